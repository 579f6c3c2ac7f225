/**
 * `acdp get --verify` and `acdp log audit` against fake loopback registries built from the protocol library
 * (FakeRegistry: receipts and checkpoints signed with test keys), over real HTTP sockets: an honest registry, and
 * dishonest ones that forge evidence or rewrite their log's history.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  computeKeyFingerprint,
  cosignCheckpoint,
  createOutboundClient,
  type OutboundClient,
  sha256String,
} from '@acdp/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeRegistry, fakeDidKeyProducer } from '../../protocol/test/support/fake-registry.js'
import { runCli } from '../src/cli.js'
import { captureIo } from '../src/test-io.js'

const producer = fakeDidKeyProducer(9)
let server: Server | undefined

afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** Serves `fake` on 127.0.0.1; `onRequest` may change the fake before it answers (a log growing between polls). */
async function serve(
  fake: FakeRegistry,
  onRequest: (path: string) => void = () => {},
  override: (path: string) => string | undefined = () => undefined,
): Promise<string> {
  server = createServer((req, res) => {
    onRequest(req.url ?? '/')
    const replaced = override(req.url ?? '/')
    const answer = replaced === undefined ? fake.answer(req.url ?? '/') : { status: 200, body: replaced }
    res.writeHead(answer.status, { 'content-type': 'application/acdp+json' })
    res.end(answer.body)
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`
}

/** A did:key witness (resolved locally, no network) cosigning the fake's checkpoint at `treeSize`. */
const witness = fakeDidKeyProducer(21)
function cosign(fake: FakeRegistry, treeSize: number) {
  return cosignCheckpoint({
    checkpoint: fake.checkpoint(treeSize),
    witnessId: witness.did,
    witnessedAt: new Date(),
    key: { algorithm: 'ed25519', keyId: witness.keyId, privateKey: witness.privateKey },
  })
}

/** Serves `fake` with its newest checkpoint in the RFC-ACDP-0015 §6.1 envelope, cosigned at `witnessedSize`. */
function serveWitnessed(fake: FakeRegistry, witnessedSize: number): Promise<string> {
  const cosignature = cosign(fake, witnessedSize)
  return serve(
    fake,
    () => {},
    (path) =>
      path === '/log/checkpoint'
        ? JSON.stringify({ log_checkpoint: fake.checkpoint(witnessedSize), witness_signatures: [cosignature] })
        : undefined,
  )
}

async function cli(args: string[], outbound?: OutboundClient) {
  const io = captureIo({
    cwd: mkdtempSync(join(tmpdir(), 'acdp-cli-')),
    ...(outbound === undefined ? {} : { outbound }),
  })
  const code = await runCli(args, io)
  return { code, out: io.out(), err: io.err(), cwd: io.cwd }
}

describe('acdp get --verify', () => {
  it('checks signature, receipt and the inclusion proof it fetches, and prints each stage', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = fake.publish(producer)
    fake.publish(producer)
    const url = await serve(fake)
    const { code, out } = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(out).toMatch(/ok\s+signature/)
    expect(out).toMatch(/ok\s+registry_receipt\s+receipt by did:web:registry\.example\.com verifies/)
    expect(out).toMatch(/ok\s+log_inclusion\s+leaf 0 is in did:web:registry\.example\.com\/log\/1 at tree size 2/)
    expect(out).toContain('note  inclusion proof fetched from GET /log/proof')
    expect(code).toBe(0)
  })

  it('checks the witness cosignatures served beside the newest checkpoint over the proof it asks at that size', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = fake.publish(producer)
    fake.publish(producer)
    const url = await serveWitnessed(fake, 2)
    const trusted = await cli(['get', ctxId, '--verify', '--registry', url, '--trust-witness', witness.did])
    expect(trusted.out).toMatch(
      /ok\s+log_inclusion\s+leaf 0 is in did:web:registry\.example\.com\/log\/1 at tree size 2/,
    )
    expect(trusted.out).toMatch(new RegExp(`ok\\s+witness_signatures\\s+1-witnessed: ${witness.did}`))
    expect(trusted.out).toContain('note  witness cosignatures fetched from GET /log/checkpoint')
    // Every stage verified: the only case the summary line says "verified".
    expect(trusted.out.trimEnd().split('\n').at(-1)).toBe(
      'verified: schema, producer_content_hash, key_binding, did_resolution, signature, registry_receipt, log_inclusion, witness_signatures, key_revocation',
    )
    expect(trusted.code).toBe(0)
    const two = await cli(['get', ctxId, '--verify', '--registry', url, '--require', 'receipt,log,witness=2'])
    expect(two.out).toMatch(/FAIL\s+witness_signatures\s+required \(witness=2\): only 1 witness\(es\) cosigned/)
    expect(two.out.trimEnd().split('\n').at(-1)).toBe('verification FAILED: witness_signatures')
    expect(two.code).toBe(1)
    const one = await cli(['get', ctxId, '--verify', '--registry', url, '--require', 'receipt,log,witness'])
    expect(one.code).toBe(0)

    // A trust list naming another witness: the cosignature is not counted, and the verdict fails.
    const other = fakeDidKeyProducer(22).did
    const untrusted = await cli(['get', ctxId, '--verify', '--registry', url, '--trust-witness', other])
    expect(untrusted.out).toMatch(/FAIL\s+witness_signatures\s+invalid_witness_cosignature/)
    expect(untrusted.code).toBe(1)
  })

  it('leaves cosignatures out when the witnessed checkpoint does not include the context yet', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    fake.publish(producer)
    const newest = fake.publish(producer)
    const url = await serveWitnessed(fake, 1)
    const { code, out } = await cli(['get', newest, '--verify', '--registry', url, '--json'])
    const verification = JSON.parse(out).verification as {
      checks: Array<{ name: string; ok: boolean; detail: string }>
      notes: string[]
    }
    expect(verification.checks.find((c) => c.name === 'log_inclusion')).toMatchObject({
      ok: true,
      detail: expect.stringContaining('at tree size 2'),
    })
    expect(verification.checks.map((c) => c.name)).not.toContain('witness_signatures')
    expect(verification.notes).toContain(
      'the newest witnessed checkpoint (tree size 1) does not include this context yet',
    )
    expect(code).toBe(0)
  })

  it('fails (exit 1) on a forged receipt and on a proof that does not reach the checkpoint', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = fake.publish(producer)
    fake.publish(producer)
    const url = await serve(fake)
    fake.tamper = 'receipt_signature'
    const forged = await cli(['get', ctxId, '--verify', '--registry', url, '--json'])
    expect(forged.code).toBe(1)
    const checks = JSON.parse(forged.out).verification.checks as Array<{ name: string; ok: boolean }>
    expect(checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['registry_receipt'])
    const stages = JSON.parse(forged.out).verification.stages as Array<{ name: string; state: string }>
    expect(stages.find((stage) => stage.name === 'log_inclusion')?.state).toBe('not_checked')
    fake.tamper = 'inclusion_path'
    const badProof = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(badProof.code).toBe(1)
    expect(badProof.out).toMatch(/FAIL\s+log_inclusion\s+invalid_log_proof/)
  })

  it('applies the producer key revocation it finds: before T historically authorized, after T fail closed', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const before = fake.publish(producer, {}, '2026-04-16T10:30:15.123Z')
    const after = fake.publish(producer, {}, '2026-05-03T09:00:00.000Z')
    // Registry-attested (RFC-ACDP-0014 §6): the producer is a did:key and has no second key to sign with.
    fake.publish(fake.asProducer(), {
      type: 'key-revocation',
      metadata: {
        revoked_key_fingerprint: computeKeyFingerprint({ algorithm: 'ed25519', publicKey: producer.publicKey }),
        compromised_since: '2026-05-01T00:00:00.000Z',
        revoked_key_controller: producer.did,
      },
    })
    const url = await serve(fake)
    const ok = await cli(['get', before, '--verify', '--registry', url])
    expect(ok.out).toMatch(/ok\s+key_revocation\s+.*historically authorized \(pre-compromise, receipt-attested\)/)
    expect(ok.out).toContain('registry-attested')
    expect(ok.out).toContain('note  1 verified key revocation(s)')
    expect(ok.code).toBe(0)
    const revoked = await cli(['get', after, '--verify', '--registry', url])
    expect(revoked.out).toMatch(/FAIL\s+key_revocation\s+.*at or after the boundary: fail closed/)
    expect(revoked.code).toBe(1)
  })

  it('says so when the registry offers no search (revocations not looked up)', async () => {
    const fake = new FakeRegistry({
      authority: 'registry.example.com',
      profiles: ['acdp-registry-core', 'acdp-registry-receipts'],
    })
    const ctxId = fake.publish(producer)
    const url = await serve(fake, () => {})
    const original = fake.answer.bind(fake)
    fake.answer = (path) => (path.startsWith('/contexts/search') ? { status: 501, body: '{}' } : original(path))
    const { code, out } = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(out).toMatch(/note\s+revocations not looked up \(search answered 501\)/)
    expect(out).toMatch(/not checked\s+key_revocation\s+the producer's key revocations were not looked up/)
    expect(out.trimEnd().split('\n').at(-1)).toBe(
      'body, signature, registry_receipt and log_inclusion verified; key_revocation not checked',
    )
    expect(code).toBe(0)
  })
})

describe('acdp get --verify: every stage in one of four states', () => {
  it('reports missing evidence as not available, and --require turns it into a failure (exit 1)', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = fake.publish(producer)
    fake.serveReceipts = false
    const url = await serve(fake)
    const lenient = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(lenient.out).toMatch(/not available\s+registry_receipt\s+the registry attaches no registry_receipt/)
    expect(lenient.out).toMatch(/not available\s+log_inclusion\s+no inclusion proof was served or found/)
    // The registry advertises receipts and a log (so their absence is named), never witnessing (RFC-ACDP-0015 §10).
    expect(lenient.out).toMatch(
      /not available\s+witness_signatures\s+no registry profile calls for witness cosignatures \(RFC-ACDP-0015 §10\) and none were served/,
    )
    expect(lenient.out.trimEnd().split('\n').at(-1)).toBe(
      'body, signature and key_revocation verified; no registry receipt; no inclusion proof',
    )
    expect(lenient.code).toBe(0)

    const json = await cli(['get', ctxId, '--verify', '--registry', url, '--json'])
    const verification = JSON.parse(json.out).verification as {
      ok: boolean
      summary: string
      unchecked: string[]
      stages: Array<{ name: string; state: string; reason: string }>
    }
    expect(verification.stages.map((stage) => [stage.name, stage.state])).toEqual([
      ['schema', 'verified'],
      ['producer_content_hash', 'verified'],
      ['key_binding', 'verified'],
      ['did_resolution', 'verified'],
      ['signature', 'verified'],
      ['registry_receipt', 'not_available'],
      ['log_inclusion', 'not_available'],
      ['witness_signatures', 'not_available'],
      ['key_revocation', 'verified'],
    ])
    expect(verification).toMatchObject({ ok: true, unchecked: [], summary: lenient.out.trimEnd().split('\n').at(-1) })

    const strict = await cli(['get', ctxId, '--verify', '--registry', url, '--require', 'receipt'])
    expect(strict.out).toMatch(
      /FAIL\s+registry_receipt\s+required \(receipt\): the registry attaches no registry_receipt/,
    )
    expect(strict.out.trimEnd().split('\n').at(-1)).toBe('verification FAILED: registry_receipt')
    expect(strict.code).toBe(1)
  })

  it('does not call for evidence the registry does not advertise: summary verified, text and --json', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com', profiles: ['acdp-registry-core'] })
    const ctxId = fake.publish(producer)
    fake.serveReceipts = false
    const url = await serve(fake)
    const text = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(text.out).toMatch(
      /not available\s+registry_receipt\s+the registry does not advertise acdp-registry-receipts/,
    )
    expect(text.out).toMatch(
      /not available\s+log_inclusion\s+the registry does not advertise acdp-registry-transparency-log/,
    )
    expect(text.out.trimEnd().split('\n').at(-1)).toBe(
      "verified: schema, producer_content_hash, key_binding, did_resolution, signature, key_revocation (not called for by the registry's profiles: registry_receipt, log_inclusion, witness_signatures)",
    )
    expect(text.code).toBe(0)

    const json = await cli(['get', ctxId, '--verify', '--registry', url, '--json'])
    const verification = JSON.parse(json.out).verification as {
      summary: string
      profiles: unknown
      stages: Array<{ name: string; state: string; called_for: boolean }>
    }
    expect(verification.profiles).toEqual({ known: true, profiles: ['acdp-registry-core'] })
    expect(verification.summary).toBe(text.out.trimEnd().split('\n').at(-1))
    expect(verification.stages.map((stage) => [stage.name, stage.called_for])).toEqual([
      ['schema', true],
      ['producer_content_hash', true],
      ['key_binding', true],
      ['did_resolution', true],
      ['signature', true],
      ['registry_receipt', false],
      ['log_inclusion', false],
      ['witness_signatures', false],
      ['key_revocation', true],
    ])

    // --require is unchanged: it fails missing evidence whatever the profiles say.
    const strict = await cli(['get', ctxId, '--verify', '--registry', url, '--require', 'receipt'])
    expect(strict.out.trimEnd().split('\n').at(-1)).toBe('verification FAILED: registry_receipt')
    expect(strict.code).toBe(1)
  })

  it('says the profiles are unknown when the capabilities cannot be read, and names all missing evidence', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com', profiles: ['acdp-registry-core'] })
    const ctxId = fake.publish(producer)
    fake.serveReceipts = false
    const url = await serve(
      fake,
      () => {},
      (path) => (path === '/.well-known/acdp.json' ? 'not json' : undefined),
    )
    const text = await cli(['get', ctxId, '--verify', '--registry', url])
    const summary = text.out.trimEnd().split('\n').at(-1)
    expect(summary).toMatch(
      /^body, signature and key_revocation verified; no registry receipt; no inclusion proof; no witness cosignatures; registry profiles unknown: GET \/\.well-known\/acdp\.json failed \(.*not strict JSON\)$/,
    )
    expect(text.code).toBe(0)
    const json = await cli(['get', ctxId, '--verify', '--registry', url, '--json'])
    const verification = JSON.parse(json.out).verification as { summary: string; profiles: { known: boolean } }
    expect(verification.profiles.known).toBe(false)
    expect(verification.summary).toBe(summary)
  })

  it('reports the stages after a failure as not checked, in text and --json', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = fake.publish(producer)
    const url = await serve(
      fake,
      () => {},
      (path) => {
        if (!path.startsWith('/contexts/acdp')) return undefined
        const envelope = JSON.parse(fake.answer(path).body) as { body: Record<string, unknown> }
        envelope.body['title'] = 'tampered after signing'
        return JSON.stringify(envelope)
      },
    )
    const text = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(text.out).toMatch(/FAIL\s+producer_content_hash\s+hash_mismatch/)
    for (const stage of ['key_binding', 'did_resolution', 'signature', 'registry_receipt', 'log_inclusion']) {
      expect(text.out).toMatch(
        new RegExp(`not checked\\s+${stage}\\s+not checked: the producer_content_hash stage failed first`),
      )
    }
    expect(text.out.trimEnd().split('\n').at(-1)).toBe('verification FAILED: producer_content_hash')
    expect(text.code).toBe(1)
    const json = await cli(['get', ctxId, '--verify', '--registry', url, '--json'])
    const verification = JSON.parse(json.out).verification as { unchecked: string[] }
    expect(verification.unchecked).toEqual([
      'key_binding',
      'did_resolution',
      'signature',
      'registry_receipt',
      'log_inclusion',
      'witness_signatures',
      'key_revocation',
    ])
  })

  it('answers a usage error (exit 2) for an unknown --require item and for --require without --verify', async () => {
    const typo = await cli(['get', 'acdp://registry.example.com/x', '--verify', '--require', 'receipt,witness=0'])
    expect(typo.code).toBe(2)
    expect(typo.err).toContain('--require takes receipt, log and witness[=N] (N from 1 to 999), got "witness=0"')
    const alone = await cli(['get', 'acdp://registry.example.com/x', '--require', 'receipt'])
    expect(alone.code).toBe(2)
    expect(alone.err).toContain('--require and --fetch-data need --verify')
  })
})

describe('acdp get --verify --fetch-data', () => {
  it('fetches each DataRef location through the outbound client and checks its content_hash', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const data = 'id,score\n1,0.9\n'
    const url = await serve(
      fake,
      () => {},
      (path) => (path === '/data.csv' ? data : undefined),
    )
    const ctxId = fake.publish(producer, {
      data_refs: [
        { type: 'raw_data', location: `${url}/data.csv`, content_hash: sha256String(data) },
        { type: 'raw_data', location: `${url}/data.csv`, content_hash: sha256String('other bytes') },
        { type: 'raw_data', embedded: { encoding: 'utf8', content: data, content_hash: sha256String(data) } },
      ],
    })
    const without = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(without.out).toMatch(/not checked\s+data_ref\[0\]\s+.*was not fetched/)
    expect(without.out).toMatch(/ok\s+data_ref\[2\]\s+embedded utf8 content/)

    const allowlisted = createOutboundClient({ allowCidrs: ['127.0.0.1/32'], allowHttpForAllowlisted: true })
    try {
      const fetched = await cli(['get', ctxId, '--verify', '--fetch-data', '--registry', url], allowlisted)
      expect(fetched.out).toMatch(
        new RegExp(`ok\\s+data_ref\\[0\\]\\s+${data.length} bytes from ${url}/data.csv hash to`),
      )
      expect(fetched.out).toMatch(/FAIL\s+data_ref\[1\]\s+data_ref_hash_mismatch: /)
      expect(fetched.out).toMatch(/ok\s+signature/)
      expect(fetched.out.trimEnd().split('\n').at(-1)).toBe('verification FAILED: data_ref[1]')
      expect(fetched.code).toBe(1)
    } finally {
      await allowlisted.close()
    }
    // Without an allowlist the loopback location is refused before connecting, and the stage says why.
    const refused = await cli(['get', ctxId, '--verify', '--fetch-data', '--registry', url])
    expect(refused.out).toMatch(/FAIL\s+data_ref\[0\]\s+.* not fetched: outbound_refused\/scheme/)
    expect(refused.code).toBe(1)
  })
})

describe('acdp log audit', () => {
  it('verifies checkpoints over time and the consistency proofs between them (honest, growing log)', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    fake.publish(producer)
    fake.publish(producer)
    const url = await serve(fake, (path) => {
      if (path === '/log/checkpoint') fake.publish(producer)
    })
    const { code, out, cwd } = await cli([
      'log',
      'audit',
      url,
      '--count',
      '3',
      '--interval',
      '0',
      '--state',
      'head.json',
    ])
    expect(out).toContain('log audit of registry.example.com')
    expect(out).toMatch(/ok\s+checkpoint verified: size 3/)
    expect(out).toMatch(/ok\s+size 3 → 4: consistency proof verified/)
    expect(out).toMatch(/ok\s+size 4 → 5: consistency proof verified/)
    expect(code).toBe(0)
    // The state file carries the newest verified checkpoint to the next run, which continues from it.
    expect(JSON.parse(readFileSync(join(cwd, 'head.json'), 'utf8'))).toMatchObject({ tree_size: 5 })
  })

  it('detects a registry that rewrites history between two polls (exit 1, both checkpoints shown)', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    for (let i = 0; i < 4; i++) fake.publish(producer)
    let polls = 0
    const url = await serve(fake, (path) => {
      if (path !== '/log/checkpoint') return
      polls++
      if (polls === 2) {
        fake.rewriteHistory(1)
        fake.publish(producer)
      }
    })
    const { code, out } = await cli(['log', 'audit', url, '--count', '2', '--interval', '0'])
    expect(code).toBe(1)
    expect(out).toMatch(/FAIL\s+HISTORY REWRITE: consistency 4 → 5 does not verify/)
    expect(out).toContain('"tree_size":4')
    expect(out).toContain('audit FAILED')
  })

  it('detects a fork at the same size and refuses a checkpoint whose signature does not cover it', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    for (let i = 0; i < 3; i++) fake.publish(producer)
    let polls = 0
    const url = await serve(fake, (path) => {
      if (path === '/log/checkpoint' && ++polls === 2) fake.rewriteHistory(0)
    })
    const fork = await cli(['log', 'audit', url, '--count', '2', '--interval', '0'])
    expect(fork.code).toBe(1)
    expect(fork.out).toMatch(/HISTORY REWRITE: two roots for size 3/)

    fake.tamper = 'checkpoint_signature'
    const forged = await cli(['log', 'audit', url, '--count', '1', '--interval', '0', '--json'])
    expect(forged.code).toBe(1)
    expect(JSON.parse(forged.out).steps[0]).toMatchObject({
      ok: false,
      detail: expect.stringContaining('invalid checkpoint'),
    })
  })

  it('answers a usage error without a sub-command or registry', async () => {
    expect((await cli(['log'])).code).toBe(2)
    expect((await cli(['log', 'audit'])).code).toBe(2)
  })
})

describe('acdp get --verify reads registry_state.status (RFC-ACDP-0004 §4.1)', () => {
  it.each(['ACTIVE', 'in progress', ''])(
    'rejects the malformed status %j: schema_violation, exit 1',
    async (status) => {
      const fake = new FakeRegistry({ authority: 'registry.example.com' })
      const ctxId = fake.publish(producer)
      fake.servedStatus = status
      const url = await serve(fake)
      const text = await cli(['get', ctxId, '--verify', '--registry', url])
      expect(text.code).toBe(1)
      expect(text.out).toMatch(/FAIL\s+schema\s+schema_violation: malformed registry state: registry_state\.status/)
      expect(text.out).toContain('verification FAILED')
      const json = await cli(['get', ctxId, '--verify', '--json', '--registry', url])
      expect(json.code).toBe(1)
      const verification = (JSON.parse(json.out) as { verification: Record<string, unknown> }).verification
      expect(verification.ok).toBe(false)
      expect(verification.checks).toEqual([
        { name: 'schema', ok: false, detail: expect.stringContaining('schema_violation') as unknown },
      ])
    },
  )

  it('accepts the well-formed unknown status "paused_x" with a warning line and a notes entry', async () => {
    const fake = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = fake.publish(producer)
    fake.servedStatus = 'paused_x'
    const url = await serve(fake)
    const text = await cli(['get', ctxId, '--verify', '--registry', url])
    expect(text.code).toBe(0)
    expect(text.out).toMatch(/note {2}warning: registry_state\.status "paused_x" is not defined by this ACDP version/)
    const json = await cli(['get', ctxId, '--verify', '--json', '--registry', url])
    expect(json.code).toBe(0)
    const verification = (JSON.parse(json.out) as { verification: { ok: boolean; notes: string[] } }).verification
    expect(verification.ok).toBe(true)
    expect(verification.notes).toContainEqual(expect.stringContaining('warning: registry_state.status "paused_x"'))
  })
})
