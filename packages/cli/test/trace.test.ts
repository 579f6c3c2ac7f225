/**
 * `acdp trace` against two live registries on loopback sockets (registry-a and registry-b authorities, trust layer
 * on), over real HTTP: output lines, the final complete / TRUNCATED line, --json, the exit codes, and every node's
 * evidence (receipt, inclusion proof, revocations) checked against ITS OWN registry.
 */
import { mkdtempSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  computeKeyFingerprint,
  cosignCheckpoint,
  createOutboundClient,
  ed25519PublicKeyFromSeed,
  type LogCheckpoint,
  type OutboundClient,
} from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
} from '../../registry/test/support/registry-harness.js'
import { TRUST_CONFIG } from '../../registry/test/support/trust.js'
import { runCli } from '../src/cli.js'
import { captureIo } from '../src/test-io.js'

const A = 'registry-a.example'
const B = 'registry-b.example'
const producer = didKeyProducer()
let a: TestRegistry
let b: TestRegistry
let mapArgs: string[]
let urlA: string
let urlB: string
let outbound: OutboundClient

async function live(authority: string): Promise<{ r: TestRegistry; url: string }> {
  const r = await createTestRegistry({ config: { ...TRUST_CONFIG, registry: { authority } } })
  await r.app.listen({ host: '127.0.0.1', port: 0 })
  return { r, url: `http://127.0.0.1:${(r.app.server.address() as AddressInfo).port}` }
}

async function publishOn(r: TestRegistry, title: string, derivedFrom: string[] = [], by = producer): Promise<string> {
  const res = await publish(r.app, signRequest(by, minimalUnsigned(by, { title, derived_from: derivedFrom })))
  expect(res.statusCode).toBe(201)
  return (res.json() as { ctx_id: string }).ctx_id
}

async function trace(args: string[], fetch?: typeof globalThis.fetch) {
  const io = captureIo({
    cwd: mkdtempSync(join(tmpdir(), 'acdp-trace-')),
    outbound,
    ...(fetch === undefined ? {} : { fetch }),
  })
  const code = await runCli(['trace', ...args], io)
  return { code, out: io.out(), err: io.err() }
}

type Check = { name: string; ok: boolean; detail: string }
type JsonNode = {
  ctxId: string
  depth: number
  verification: { ok: boolean; checks: Check[]; notes: string[]; unchecked: string[] }
}

/** The --json document's nodes by ctx_id. */
function jsonNodes(out: string): Map<string, JsonNode> {
  const document = JSON.parse(out) as { nodes: JsonNode[] }
  return new Map(document.nodes.map((node) => [node.ctxId, node]))
}

beforeAll(async () => {
  const liveA = await live(A)
  const liveB = await live(B)
  a = liveA.r
  b = liveB.r
  urlA = liveA.url
  urlB = liveB.url
  mapArgs = ['--registry', liveA.url, '--authority-url', `${B}=${liveB.url}`]
  // Any authority nobody mapped goes through the SSRF-safe client; its DNS answers loopback, which it refuses.
  outbound = createOutboundClient({ allowCidrs: [], lookup: async () => [{ address: '127.0.0.1', family: 4 }] })
})

afterAll(async () => {
  await outbound?.close()
  await a?.close()
  await b?.close()
})

describe('acdp trace', () => {
  it('prints every verified context with its depth and "complete", and exits 0', async () => {
    const oldest = await publishOn(a, 'oldest')
    const middle = await publishOn(b, 'middle', [oldest])
    const side = await publishOn(b, 'side')
    const root = await publishOn(a, 'root', [middle, side])
    const { code, out, err } = await trace([root, ...mapArgs])
    expect(err).toBe('')
    const lines = out.trimEnd().split('\n')
    expect(lines.slice(0, 4)).toEqual([
      `ok    depth  0  ${root}  root`,
      `ok    depth  1  ${middle}  middle`,
      `ok    depth  1  ${side}  side`,
      `ok    depth  2  ${oldest}  oldest`,
    ])
    expect(lines.at(-1)).toBe('complete: 4 verified, 0 failed')
    expect(code).toBe(0)
  })

  it('fails every node without the evidence --require names (exit 1), and refuses an unknown requirement (exit 2)', async () => {
    const oldest = await publishOn(b, 'req-oldest')
    const root = await publishOn(a, 'req-root', [oldest])
    const lenient = await trace([root, ...mapArgs, '--require', 'receipt,log'])
    expect(lenient.out.trimEnd().split('\n').at(-1)).toBe('complete: 2 verified, 0 failed')
    expect(lenient.code).toBe(0)
    const strict = await trace([root, ...mapArgs, '--require', 'receipt,log', '--require', 'witness'])
    expect(strict.out.trimEnd().split('\n')).toEqual([
      `FAIL  depth  0  ${root}  req-root  failed: witness_signatures`,
      `FAIL  depth  1  ${oldest}  req-oldest  failed: witness_signatures`,
      '',
      'complete: 0 verified, 2 failed',
    ])
    expect(strict.code).toBe(1)
    const json = await trace([root, ...mapArgs, '--require', 'witness=2', '--json'])
    const nodes = (JSON.parse(json.out) as { nodes: Array<{ verification: { stages: unknown[] } }> }).nodes
    expect(nodes[0]?.verification.stages).toContainEqual({
      name: 'witness_signatures',
      state: 'failed',
      reason: expect.stringMatching(/^required \(witness=2\): /),
      called_for: false,
    })
    const typo = await trace([root, ...mapArgs, '--require', 'recipt'])
    expect(typo.code).toBe(2)
    expect(typo.err).toContain('--require takes receipt, log and witness[=N]')
  })

  it('fails a fanout overrun by default and, with --partial, prints TRUNCATED with the frontier (exit 1)', async () => {
    const parents = [await publishOn(b, 'p1'), await publishOn(b, 'p2'), await publishOn(b, 'p3')]
    const root = await publishOn(a, 'wide', parents)
    const refused = await trace([root, ...mapArgs, '--max-fanout', '2'])
    expect(refused.code).toBe(1)
    expect(refused.out).toBe('')
    expect(refused.err).toMatch(/^acdp trace: cross_registry_resolution_failed: .*more than max_fanout_per_context 2/)

    const partial = await trace([root, ...mapArgs, '--max-fanout', '2', '--partial'])
    expect(partial.code).toBe(1)
    expect(partial.out).toContain(`ok    depth  1  ${parents[1]}  p2`)
    expect(partial.out.trimEnd().split('\n').at(-1)).toBe(
      `TRUNCATED by max_fanout_per_context: 3 verified, 0 failed; unwalked frontier (1): ${parents[2]}`,
    )

    const json = await trace([root, ...mapArgs, '--max-fanout', '2', '--partial', '--json'])
    const document = JSON.parse(json.out) as Record<string, unknown>
    expect(document).toMatchObject({
      complete: false,
      truncatedBy: 'max_fanout_per_context',
      unwalkedFrontier: [parents[2]],
      failures: [],
    })
    expect((document['nodes'] as Array<Record<string, unknown>>).map((node) => [node['depth'], node['title']])).toEqual(
      [
        [0, 'wide'],
        [1, 'p1'],
        [1, 'p2'],
      ],
    )
    expect(json.code).toBe(1)

    const full = await trace([root, ...mapArgs, '--json'])
    expect(JSON.parse(full.out)).toMatchObject({ complete: true })
    expect(JSON.parse(full.out)).not.toHaveProperty('unwalkedFrontier')
    expect(full.code).toBe(0)
  })

  it('truncates at --max-depth and fails a walk over --max-nodes', async () => {
    const first = await publishOn(b, 'c0')
    const second = await publishOn(b, 'c1', [first])
    const root = await publishOn(a, 'deep', [second])
    const cut = await trace([root, ...mapArgs, '--max-depth', '1'])
    expect(cut.out.trimEnd().split('\n').at(-1)).toBe(
      `TRUNCATED by max_depth: 2 verified, 0 failed; unwalked frontier (1): ${first}`,
    )
    expect(cut.code).toBe(1)
    const tooMany = await trace([root, ...mapArgs, '--max-nodes', '2'])
    expect(tooMany.err).toMatch(/cross_registry_resolution_failed: .*max_total_nodes 2/)
    expect(tooMany.code).toBe(1)
  })

  it('reports a missing predecessor and one on an authority nobody mapped as FAIL lines (exit 1)', async () => {
    const missing = `acdp://${B}/0b9d6c3e-2f1a-4c5d-9e8f-7a6b5c4d3e2f`
    const unmapped = 'acdp://registry-c.example/1b9d6c3e-2f1a-4c5d-9e8f-7a6b5c4d3e2f'
    const present = await publishOn(b, 'present')
    const root = await publishOn(a, 'gappy', [missing, unmapped, present])
    const { code, out } = await trace([root, ...mapArgs])
    expect(out).toContain(`ok    depth  1  ${present}  present`)
    expect(out).toContain(`FAIL  depth  1  ${missing}  unresolvable: not_found`)
    // https://registry-c.example through the SSRF-safe client, refused there: never a plain-HTTP fallback.
    expect(out).toContain(`FAIL  depth  1  ${unmapped}  unresolvable: outbound_refused`)
    expect(out.trimEnd().split('\n').at(-1)).toBe('complete: 2 verified, 2 failed')
    expect(code).toBe(1)
  })

  it('reports an unreachable root registry as a FAIL line, not as an empty clean walk (exit 1)', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const root = `acdp://${A}/0b9d6c3e-2f1a-4c5d-9e8f-7a6b5c4d3e2f`
    const { code, out } = await trace([root, '--registry', `http://127.0.0.1:${port}`])
    expect(out).toContain(`FAIL  depth  0  ${root}  unresolvable: outbound_failed`)
    expect(out.trimEnd().split('\n').at(-1)).toBe('complete: 0 verified, 1 failed')
    expect(code).toBe(1)
  })

  it.each([
    [['--max-depth', '-1']],
    [['--max-fanout', '0']],
    [['--timeout-seconds', 'soon']],
    [['--authority-url', 'http://127.0.0.1:1']],
    [['--authority-url', `${B}=ftp://x`]],
    [['--registry', 'localhost:3000']],
  ])('refuses %j as a usage error (exit 2)', async (flags) => {
    const { code, err } = await trace([`acdp://${A}/0b9d6c3e-2f1a-4c5d-9e8f-7a6b5c4d3e2f`, ...flags])
    expect(err).toMatch(/^acdp trace: usage: /)
    expect(code).toBe(2)
  })

  it('is listed in the main help and has its own', async () => {
    const io = captureIo({ cwd: tmpdir() })
    await runCli(['--help'], io)
    expect(io.out()).toMatch(/\n {2}trace +walk a context's derived_from chain/)
    const help = captureIo({ cwd: tmpdir() })
    expect(await runCli(['trace', '--help'], help)).toBe(0)
    expect(help.out()).toContain('Usage: acdp trace <ctx_id>')
  })
})

describe('acdp trace: every node gets the evidence of acdp get --verify, from its own registry', () => {
  const EVERY_STAGE = [
    'schema',
    'producer_content_hash',
    'key_binding',
    'did_resolution',
    'signature',
    'registry_receipt',
    'log_inclusion',
    'key_revocation',
  ]

  it('passes a chain across two registries on every stage (exit 0) and lists the stages in --json', async () => {
    const oldest = await publishOn(b, 'e-oldest')
    const root = await publishOn(a, 'e-root', [oldest])
    const text = await trace([root, ...mapArgs])
    expect(text.out.trimEnd().split('\n')).toEqual([
      `ok    depth  0  ${root}  e-root`,
      `ok    depth  1  ${oldest}  e-oldest`,
      '',
      'complete: 2 verified, 0 failed',
    ])
    expect(text.code).toBe(0)
    const json = await trace([root, ...mapArgs, '--json'])
    expect(json.code).toBe(0)
    for (const node of jsonNodes(json.out).values()) {
      expect(node.verification.ok).toBe(true)
      expect(node.verification.checks.map((check) => check.name)).toEqual(EVERY_STAGE)
      expect(node.verification.checks.every((check) => check.ok)).toBe(true)
      expect(node.verification.notes).toContain('inclusion proof fetched from GET /log/proof')
    }
  })

  it("fetches a node's inclusion proof and revocations from ITS registry, never from the root's", async () => {
    const predecessor = await publishOn(b, 'proved-on-b')
    const root = await publishOn(a, 'root-on-a', [predecessor])
    // The root's registry does not know the predecessor's leaf: asked there, the proof would be a 404.
    const onA = await fetch(`${urlA}/log/proof?ctx_id=${encodeURIComponent(predecessor)}`)
    expect(onA.status).toBe(404)
    const asked: string[] = []
    const recording: typeof globalThis.fetch = (input, init) => {
      asked.push(input instanceof Request ? input.url : String(input))
      return fetch(input, init)
    }
    const { code, out } = await trace([root, ...mapArgs, '--json'], recording)
    expect(code).toBe(0)
    const node = jsonNodes(out).get(predecessor)!
    expect(node.verification.checks.find((check) => check.name === 'log_inclusion')).toMatchObject({ ok: true })
    const proofs = asked.filter((url) => url.includes('/log/proof') && url.includes(encodeURIComponent(predecessor)))
    expect(proofs.length).toBeGreaterThan(0)
    expect(proofs.every((url) => url.startsWith(`${urlB}/`))).toBe(true)
    const searches = asked.filter((url) => url.includes('/contexts/search') && url.includes('key-revocation'))
    expect(searches.some((url) => url.startsWith(`${urlB}/`))).toBe(true)
    expect(searches.some((url) => url.startsWith(`${urlA}/`))).toBe(true)
  })

  it("checks the witness cosignatures beside a node's own registry's checkpoint against --trust-witness", async () => {
    const oldest = await publishOn(b, 'witnessed-on-b')
    const root = await publishOn(a, 'cites-witnessed', [oldest])
    // B's newest checkpoint, as a registry aggregating cosignatures would serve it, cosigned by a did:key witness.
    const witness = didKeyProducer()
    const cosigning: typeof globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      const response = await fetch(input, init)
      if (url !== `${urlB}/log/checkpoint`) return response
      const served = (await response.json()) as { log_checkpoint?: LogCheckpoint } & LogCheckpoint
      const checkpoint = served.log_checkpoint ?? served
      const cosignature = cosignCheckpoint({
        checkpoint,
        witnessId: witness.did,
        witnessedAt: new Date(),
        key: { algorithm: 'ed25519', keyId: witness.keyId, privateKey: witness.privateKey },
      })
      return Response.json({ log_checkpoint: checkpoint, witness_signatures: [cosignature] })
    }
    const trusted = await trace([root, ...mapArgs, '--json', '--trust-witness', witness.did], cosigning)
    const stage = (out: string) =>
      jsonNodes(out)
        .get(oldest)!
        .verification.checks.find((check) => check.name === 'witness_signatures')
    expect(stage(trusted.out)).toMatchObject({ ok: true, detail: expect.stringContaining(witness.did) })
    expect(trusted.code).toBe(0)
    const other = didKeyProducer().did
    const untrusted = await trace([root, ...mapArgs, '--trust-witness', other], cosigning)
    expect(untrusted.out).toContain(`FAIL  depth  1  ${oldest}  witnessed-on-b  failed: witness_signatures`)
    expect(untrusted.code).toBe(1)
  })

  it("keeps a node's evidence lookups inside the walk's total timeout (a hanging proof fails the walk)", async () => {
    const stuck = await publishOn(b, 'proof-hangs')
    const root = await publishOn(a, 'cites-hanging', [stuck])
    let abortedLookup = false
    const hanging: typeof globalThis.fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      if (!url.startsWith(`${urlB}/log/proof`)) return fetch(input, init)
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener(
          'abort',
          () => {
            abortedLookup = true
            reject(init.signal?.reason)
          },
          { once: true },
        )
      })
    }
    const { code, out, err } = await trace([root, ...mapArgs, '--timeout-seconds', '1'], hanging)
    expect(out).toBe('')
    expect(err).toMatch(/^acdp trace: cross_registry_resolution_failed: .*exceeded its 1000 ms budget/)
    expect(abortedLookup).toBe(true)
    expect(code).toBe(1)
  })

  it('fails a node whose key was revoked before its created_at (key_revocation, never walked through, exit 1)', async () => {
    // Its own producer: the revocation below must not touch the other tests' contexts.
    const victim = didKeyProducer()
    const hidden = await publishOn(b, 'behind-revoked', [], victim)
    const signed = await publishOn(b, 'signed-by-revoked', [hidden], victim)
    const root = await publishOn(a, 'cites-revoked', [signed])
    const createdAt = (await b.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(signed)}` })).json()
      .body.created_at as string
    // Registry-attested (RFC-ACDP-0014 §6; a did:key producer has no second key), compromised since before the
    // node was published: the rev-001 "at or after T" case, found on the node's own registry (B).
    const seed = new Uint8Array(Buffer.alloc(32, 0x11))
    const registryB: Producer = {
      did: `did:web:${B}`,
      keyId: `did:web:${B}#receipt-key-1`,
      algorithm: 'ed25519',
      privateKey: seed,
      publicKey: ed25519PublicKeyFromSeed(seed),
    }
    b.dids.host([registryB])
    const metadata = {
      revoked_key_fingerprint: computeKeyFingerprint({ algorithm: 'ed25519', publicKey: victim.publicKey }),
      compromised_since: new Date(Date.parse(createdAt) - 60_000).toISOString(),
      revoked_key_controller: victim.did,
    }
    const revocation = await publish(
      b.app,
      signRequest(registryB, minimalUnsigned(registryB, { type: 'key-revocation', metadata })),
    )
    expect(revocation.statusCode).toBe(201)

    const { code, out } = await trace([root, ...mapArgs])
    const lines = out.trimEnd().split('\n')
    expect(lines[0]).toBe(`ok    depth  0  ${root}  cites-revoked`)
    expect(lines[1]).toMatch(
      new RegExp(`^FAIL  depth  1  ${signed}  untrustworthy: key_revocation \\(.*at or after the boundary`),
    )
    expect(out).not.toContain(hidden)
    expect(lines.at(-1)).toBe('complete: 1 verified, 1 failed')
    expect(code).toBe(1)
  })

  it('fails a node whose receipt was tampered with, names its failed stages, and still walks through it', async () => {
    const oldest = await publishOn(a, 'behind-tampered')
    const tampered = await publishOn(b, 'tampered-receipt', [oldest])
    const root = await publishOn(a, 'cites-tampered', [tampered])
    // B's answer for that one context carries a receipt whose signature was altered in transit.
    const tampering: typeof globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      const response = await fetch(input, init)
      if (url !== `${urlB}/contexts/${encodeURIComponent(tampered)}`) return response
      const envelope = (await response.json()) as { registry_receipt: { signature: { value: string } } }
      const value = envelope.registry_receipt.signature.value
      envelope.registry_receipt.signature.value = `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`
      return new Response(JSON.stringify(envelope), { status: 200, headers: response.headers })
    }
    const { code, out } = await trace([root, ...mapArgs], tampering)
    expect(out.trimEnd().split('\n')).toEqual([
      `ok    depth  0  ${root}  cites-tampered`,
      `FAIL  depth  1  ${tampered}  tampered-receipt  failed: registry_receipt`,
      // The body is still the producer's (RFC-ACDP-0010 §8): its derived_from is walked.
      `ok    depth  2  ${oldest}  behind-tampered`,
      '',
      'complete: 2 verified, 1 failed',
    ])
    expect(code).toBe(1)
    const json = await trace([root, ...mapArgs, '--json'], tampering)
    const node = jsonNodes(json.out).get(tampered)!
    expect(node.verification.ok).toBe(false)
    expect(node.verification.checks.filter((check) => !check.ok).map((check) => check.name)).toEqual([
      'registry_receipt',
    ])
    // The proof rests on the receipt: reported, as not checked, instead of dropped or failed on its own.
    expect(node.verification.unchecked).toContain('log_inclusion')
    expect(json.code).toBe(1)
  })

  /** A fetch through which B serves `status` as registry_state.status of `ctxId` (a hostile or broken registry). */
  const servingStatus =
    (ctxId: string, status: string): typeof globalThis.fetch =>
    async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      const response = await fetch(input, init)
      if (url !== `${urlB}/contexts/${encodeURIComponent(ctxId)}`) return response
      const envelope = (await response.json()) as { registry_state: { status: string } }
      envelope.registry_state.status = status
      return new Response(JSON.stringify(envelope), { status: 200, headers: response.headers })
    }

  it.each(['ACTIVE', 'in progress', ''])(
    'fails a node whose registry serves the malformed status %j as schema_violation (RFC-ACDP-0004 §4.1)',
    async (status) => {
      const malformed = await publishOn(b, `malformed-status-${status.length}`)
      const root = await publishOn(a, 'cites-malformed', [malformed])
      const { code, out } = await trace([root, ...mapArgs], servingStatus(malformed, status))
      expect(out).toContain(
        `FAIL  depth  1  ${malformed}  untrustworthy: schema (schema_violation: malformed registry state`,
      )
      expect(out).toContain('complete: 1 verified, 1 failed')
      expect(code).toBe(1)
      const json = await trace([root, ...mapArgs, '--json'], servingStatus(malformed, status))
      const failures = (JSON.parse(json.out) as { failures: Array<{ ctxId: string; reason: string; detail: string }> })
        .failures
      expect(failures).toEqual([
        expect.objectContaining({
          ctxId: malformed,
          reason: 'schema',
          detail: expect.stringContaining('schema_violation'),
        }),
      ])
      expect(json.code).toBe(1)
    },
  )

  it('walks a node with the unknown well-formed status "paused_x" and notes a warning for it', async () => {
    const paused = await publishOn(b, 'paused-status')
    const root = await publishOn(a, 'cites-paused', [paused])
    const text = await trace([root, ...mapArgs], servingStatus(paused, 'paused_x'))
    expect(text.out).toContain(`ok    depth  1  ${paused}  paused-status`)
    expect(text.code).toBe(0)
    const json = await trace([root, ...mapArgs, '--json'], servingStatus(paused, 'paused_x'))
    expect(jsonNodes(json.out).get(paused)?.verification.notes).toContainEqual(
      expect.stringContaining('warning: registry_state.status "paused_x" is not defined by this ACDP version'),
    )
    expect(
      jsonNodes(json.out)
        .get(root)
        ?.verification.notes.some((note) => note.startsWith('warning:')),
    ).toBe(false)
    expect(json.code).toBe(0)
  })
})
