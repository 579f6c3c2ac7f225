/**
 * Trust-layer conformance against a LIVE registry: every rcpt-, lhr-, log- and wit- fixture is read at test
 * time and driven through a real registry (app.inject, real store, real DID pipeline) configured with the
 * fixtures' public test key, fixed clock and fixed ctx_id randomness, so its output can be compared byte for
 * byte with the golden vectors. Failure fixtures are checked in both directions: what the registry serves
 * verifies, and the fixture's tampered object fails verification against the live registry's DID document.
 *
 * The log-001 tree's leaves 1–4 are synthetic publishes whose bodies the fixture does not carry; they are
 * bulk-loaded through the store's append path (the same transaction code a publish runs), leaf 0 is a real
 * publish of the sig-001 golden body.
 */
import {
  computeLeafHash,
  cosignCheckpoint,
  countWitnesses,
  ed25519PublicKeyFromSeed,
  isProtocolError,
  type LogCheckpoint,
  signRegistryReceipt,
  verifyCheckpoint,
  verifyLineageHeadReceipt,
  verifyLogInclusion,
  verifyRegistryReceipt,
} from '@acdp/protocol'
import { afterAll, describe, expect, it, vi } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import { buildApp } from '../src/app.js'
import { resolveConfig } from '../src/core/config.js'
import { createRegistryMetrics } from '../src/core/metrics.js'
import { createTestRegistry, publish, type TestRegistry, TestClock } from './support/registry-harness.js'
import { registryKeyResolver, TRUST_CONFIG } from './support/trust.js'

reportMissingConformance('registry trust-layer conformance')

const FAMILIES = ['rcpt-', 'lhr-', 'log-', 'wit-']
const fixtures = FAMILIES.flatMap((family) => loadFixtures(family))
const ran = new Set<string>()
const byId = (id: string) => fixtures.find((f) => f.id === id) as Fixture

/** A test registry holding the sig-001 golden context at the rcpt-001 ctx_id and created_at. */
async function goldenRegistry(): Promise<{ r: TestRegistry; publishText: string; published: Record<string, unknown> }> {
  const sig = loadFixtures('sig-001')[0] as Fixture
  const rcpt = byId('rcpt-001')
  const assigned = sig.vectors[0].registry_assigned as Record<string, string>
  const seedHex = rcpt.registry_test_keypair.private_seed_hex as string
  const uuid = (assigned.ctx_id as string).split('/').at(-1) as string
  const uuidBytes = new Uint8Array(Buffer.from(uuid.replaceAll('-', ''), 'hex'))
  const r = await createTestRegistry({
    clock: new TestClock(Date.parse(assigned.created_at as string)),
    config: {
      ...TRUST_CONFIG,
      receipt: { ...TRUST_CONFIG.receipt, signing_key_seed_b64: Buffer.from(seedHex, 'hex').toString('base64') },
    },
    deps: { random: (size) => (size === 16 ? uuidBytes.slice() : new Uint8Array(size)) },
  })
  const body = sig.vectors[0].expected.publish_request_body as { agent_id: string; signature: { key_id: string } }
  const seed = new Uint8Array(Buffer.from(sig.test_keypair.private_seed_hex as string, 'hex'))
  r.dids.host([
    {
      did: body.agent_id,
      keyId: body.signature.key_id,
      algorithm: 'ed25519',
      privateKey: seed,
      publicKey: ed25519PublicKeyFromSeed(seed),
    },
  ])
  const publishText = JSON.stringify(body)
  const res = await publish(r.app, publishText)
  expect(res.statusCode).toBe(201)
  return { r, publishText, published: res.json() as Record<string, unknown> }
}

/** Appends log-001 leaf `i` (a synthetic publish) through the store's publish transaction. */
async function appendLog001Leaf(r: TestRegistry, i: number): Promise<void> {
  const log001 = byId('log-001').vectors[0]
  const leaf = (log001.leaves as Array<Record<string, string>>)[i] as Record<string, string>
  const text = (log001.expected.leaf_canonical_forms as string[])[i] as string
  const result = await r.store.insertContext({
    ctxId: leaf.ctx_id as string,
    tenantId: 'default',
    lineageId: leaf.lineage_id as string,
    version: 1,
    supersedes: null,
    agentId: 'did:web:agents.example.com:test-producer',
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: [],
    title: `log-001 leaf ${i}`,
    summary: null,
    description: null,
    domain: null,
    schemaUri: null,
    tags: [],
    derivedFrom: [],
    contentHash: leaf.content_hash as string,
    createdAt: leaf.created_at as string,
    createdAtMs: Date.parse(leaf.created_at as string),
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText: JSON.stringify({ ctx_id: leaf.ctx_id }),
    registryReceipt: null,
    logLeaf: { leafJson: text, leafHash: computeLeafHash(new TextEncoder().encode(text)) },
  })
  expect(result).toEqual({ ok: true, leafIndex: i })
}

async function expectVerificationFailure(run: () => Promise<unknown>, reason?: string): Promise<void> {
  let error: unknown
  try {
    await run()
  } catch (caught) {
    error = caught
  }
  expect(isProtocolError(error)).toBe(true)
  if (reason !== undefined) expect((error as { details?: { reason?: string } }).details?.reason).toBe(reason)
}

describe.runIf(hasConformance)('trust-layer conformance fixtures (live registry)', () => {
  afterAll(() => {
    console.log(`[trust conformance] ${ran.size}/${fixtures.length} fixtures driven against a live registry`)
  })

  it('rcpt-001..004: the live receipt equals the golden receipt; tampered receipts fail against the live DID document', async () => {
    const { r, published } = await goldenRegistry()
    try {
      const expected = byId('rcpt-001').vectors[0].expected.registry_receipt
      expect(published.registry_receipt).toEqual(expected)
      const full = (
        await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(expected.ctx_id as string)}` })
      ).json() as { body: Record<string, string>; registry_receipt: unknown }
      expect(full.registry_receipt).toEqual(expected)
      ran.add('rcpt-001')

      const producerKey = {
        algorithm: 'ed25519' as const,
        publicKey: new Uint8Array(Buffer.from(byId('rcpt-001').producer_key.public_key_hex as string, 'hex')),
      }
      const base = {
        authority: 'registry.example.com',
        resolveKey: registryKeyResolver(r.app),
        context: full.body as never,
        contentHash: expected.content_hash as string,
        producerKey,
      }
      await verifyRegistryReceipt({ ...base, receipt: full.registry_receipt })

      await expectVerificationFailure(
        () => verifyRegistryReceipt({ ...base, receipt: byId('rcpt-002').input.registry_receipt }),
        'signature_invalid',
      )
      ran.add('rcpt-002')

      // rcpt-003: a receipt whose own signature verifies but attests another producer key.
      const { signature: _s, ...unsigned } = expected as Record<string, unknown>
      const seed = new Uint8Array(Buffer.from(byId('rcpt-001').registry_test_keypair.private_seed_hex, 'hex'))
      const wrongKey = signRegistryReceipt(
        {
          ...(unsigned as Parameters<typeof signRegistryReceipt>[0]),
          key_fingerprint: byId('rcpt-003').input.receipt_key_fingerprint as string,
        },
        {
          algorithm: 'ed25519',
          keyId: (expected as { signature: { key_id: string } }).signature.key_id,
          privateKey: seed,
        },
      )
      await expectVerificationFailure(
        () => verifyRegistryReceipt({ ...base, receipt: wrongKey }),
        'key_fingerprint_mismatch',
      )
      ran.add('rcpt-003')

      await expectVerificationFailure(
        () =>
          verifyRegistryReceipt({
            ...base,
            authority: byId('rcpt-004').input.serving_authority as string,
            receipt: full.registry_receipt,
          }),
        'registry_did_mismatch',
      )
      ran.add('rcpt-004')
    } finally {
      await r.close()
    }
  })

  it('lhr-001..004: the live head receipt equals the golden one; stale, foreign and future receipts fail', async () => {
    const { r } = await goldenRegistry()
    try {
      const golden = byId('lhr-001').vectors[0].expected.lineage_head_receipt as {
        lineage_id: string
        as_of: string
      }
      r.clock.nowMs = Date.parse(golden.as_of)
      const current = await r.app.inject({
        method: 'GET',
        url: `/lineages/${encodeURIComponent(golden.lineage_id)}/current`,
      })
      const envelope = current.json() as {
        body: { ctx_id: string; version: number }
        registry_state: { status: string }
        lineage_head_receipt: unknown
      }
      expect(envelope.lineage_head_receipt).toEqual(golden)
      ran.add('lhr-001')

      const verify = (receipt: unknown, overrides: Record<string, unknown> = {}) =>
        verifyLineageHeadReceipt({
          receipt,
          authority: 'registry.example.com',
          resolveKey: registryKeyResolver(r.app),
          lineageId: golden.lineage_id,
          endpoint: 'current',
          served: {
            ctx_id: envelope.body.ctx_id,
            version: envelope.body.version,
            status: envelope.registry_state.status,
          },
          now: r.clock.now(),
          ...overrides,
        })
      await verify(envelope.lineage_head_receipt)

      const stale = byId('lhr-002').input.served_response
      await expectVerificationFailure(
        () =>
          verify(stale.lineage_head_receipt, {
            served: { ...stale.body_excerpt, status: stale.registry_state.status },
          }),
        'head_ctx_id_mismatch',
      )
      ran.add('lhr-002')

      await expectVerificationFailure(
        () =>
          verify(envelope.lineage_head_receipt, {
            authority: byId('lhr-003').input.serving_authority,
            capabilitiesRegistryDid: byId('lhr-003').input.capabilities_registry_did,
          }),
        'registry_did_mismatch',
      )
      ran.add('lhr-003')

      const future = byId('lhr-004').input
      await expectVerificationFailure(
        () => verify(future.lineage_head_receipt, { now: new Date(future.consumer_clock as string) }),
        'as_of_in_future',
      )
      ran.add('lhr-004')
    } finally {
      await r.close()
    }
  })

  it('log-001..004: leaves, checkpoints and proofs of the live log equal the goldens; tampered ones fail', async () => {
    const { r } = await goldenRegistry()
    try {
      const log001 = byId('log-001').vectors[0]
      const log003 = byId('log-003').vectors[0]
      const leaves = log001.leaves as Array<Record<string, string>>
      const appendSynthetic = (i: number) => appendLog001Leaf(r, i)
      await appendSynthetic(1)
      await appendSynthetic(2)
      const first = log003.first_checkpoint_unsigned as LogCheckpoint
      r.clock.nowMs = Date.parse(first.timestamp)
      const atThree = (await r.app.inject({ method: 'GET', url: '/log/proof?leaf_index=0&tree_size=3' })).json() as {
        log_checkpoint: LogCheckpoint
      }
      expect(atThree.log_checkpoint).toEqual({
        ...first,
        signature: { ...atThree.log_checkpoint.signature, value: log003.expected.first_signature_value_base64 },
      })
      await appendSynthetic(3)
      await appendSynthetic(4)

      const goldenCheckpoint = log001.expected.log_checkpoint as LogCheckpoint
      r.clock.nowMs = Date.parse(goldenCheckpoint.timestamp)
      const checkpoint = (await r.app.inject({ method: 'GET', url: '/log/checkpoint' })).json()
      expect(checkpoint).toEqual(goldenCheckpoint)
      const entries = (await r.app.inject({ method: 'GET', url: '/log/entries?start=0&end=5' })).json() as {
        entries: Array<{ leaf_hash: string; leaf: unknown }>
      }
      expect(entries.entries.map((e) => e.leaf_hash)).toEqual(log001.expected.leaf_hashes)
      expect(entries.entries.map((e) => e.leaf)).toEqual(leaves)
      const inclusion = (
        await r.app.inject({
          method: 'GET',
          url: `/log/proof?ctx_id=${encodeURIComponent(leaves[0]?.ctx_id as string)}`,
        })
      ).json() as Record<string, unknown>
      const { leaf: echoed, ...proof } = inclusion
      const { log_checkpoint: embedded, ...path } = proof
      expect(echoed).toEqual(leaves[0])
      expect(embedded).toEqual(goldenCheckpoint)
      expect(path).toEqual(log001.expected.log_inclusion)
      ran.add('log-001')

      const context = {
        authority: 'registry.example.com',
        resolveKey: registryKeyResolver(r.app),
        now: r.clock.now(),
      }
      const leafHash = new Uint8Array(Buffer.from((byId('log-002').input.leaf_hash as string).slice(7), 'hex'))
      await verifyLogInclusion(proof, leafHash, context)
      await expectVerificationFailure(
        () => verifyLogInclusion(byId('log-002').input.log_inclusion, leafHash, context),
        'root_mismatch',
      )
      ran.add('log-002')

      const consistency = (await r.app.inject({ method: 'GET', url: '/log/proof?first=3&second=5' })).json() as Record<
        string,
        unknown
      >
      // The fixture pins the proof members; the live answer also embeds the size-5 checkpoint (RFC-ACDP-0012 §8.2).
      const { log_checkpoint: second, ...consistencyPath } = consistency
      expect(second).toEqual(goldenCheckpoint)
      expect(consistencyPath).toEqual(log003.expected.consistency_proof_response)
      ran.add('log-003')

      await verifyCheckpoint(checkpoint, context)
      await expectVerificationFailure(
        () => verifyCheckpoint(byId('log-004').input.log_checkpoint, context),
        'signature_invalid',
      )
      ran.add('log-004')
    } finally {
      await r.close()
    }
  })

  it('wit-001..004: verified cosignatures are served beside the matching checkpoint; bad ones are dropped', async () => {
    const { r } = await goldenRegistry()
    try {
      for (const i of [1, 2, 3, 4]) await appendLog001Leaf(r, i)
      await r.app.close()
      const golden = byId('log-001').vectors[0].expected.log_checkpoint as LogCheckpoint
      // After every fixture cosignature's witnessed_at (a future-dated one would be refused).
      r.clock.nowMs = Date.parse(golden.timestamp) + 3_600_000

      // Two witnesses (wit-003). Witness A also answers a cosignature made by B's key (wit-004) and one over a
      // rewritten root (wit-002's presented checkpoint, signed with A's genuine key).
      const wit003 = byId('wit-003')
      const keys = wit003.witness_test_keypairs as Array<{ witness_id: string; private_seed_hex: string }>
      const cosignatureOf = (vector: Fixture['vectors'][number], witnessId: string) => ({
        ...vector.cosignature_unsigned,
        signature: {
          algorithm: 'ed25519',
          key_id: `${witnessId}#witness-key-1`,
          value: vector.expected.signature_value_base64,
        },
      })
      const a = keys[0] as { witness_id: string; private_seed_hex: string }
      const b = keys[1] as { witness_id: string; private_seed_hex: string }
      for (const w of keys) {
        const seed = new Uint8Array(Buffer.from(w.private_seed_hex, 'hex'))
        r.dids.host([
          {
            did: w.witness_id,
            keyId: `${w.witness_id}#witness-key-1`,
            algorithm: 'ed25519',
            privateKey: seed,
            publicKey: ed25519PublicKeyFromSeed(seed),
          },
        ])
      }
      const presented = byId('wit-002').scenario.presented_checkpoint as LogCheckpoint
      const rewritten = cosignCheckpoint({
        checkpoint: presented,
        witnessId: a.witness_id,
        witnessedAt: new Date(golden.timestamp),
        key: {
          algorithm: 'ed25519',
          keyId: `${a.witness_id}#witness-key-1`,
          privateKey: new Uint8Array(Buffer.from(a.private_seed_hex, 'hex')),
        },
      })
      const answers = new Map<string, unknown>([
        [
          'witness.example.org',
          {
            witness_id: a.witness_id,
            witness_signatures: [
              byId('wit-004').cosignature,
              rewritten,
              byId('wit-001').vectors[0].expected.log_cosignature,
            ],
          },
        ],
        [
          'witness-2.example.org',
          { witness_id: b.witness_id, witness_signatures: [cosignatureOf(wit003.vectors[1], b.witness_id)] },
        ],
      ])
      const requested: string[] = []
      const outbound = {
        async request(url: string | URL) {
          const u = new URL(url)
          requested.push(u.href)
          return {
            status: 200,
            headers: {},
            body: new TextEncoder().encode(JSON.stringify(answers.get(u.hostname))),
            url: u.href,
          }
        },
        async checkUrl() {},
        async close() {},
      }
      const metrics = createRegistryMetrics()
      const config = resolveConfig({
        ...r.config,
        registry: { ...r.config.registry, profiles: ['acdp-registry-core', 'acdp-registry-discovery'] },
        witnesses: keys.map((w) => ({
          did: w.witness_id,
          url: `https://${w.witness_id.slice(8)}/log/witness`,
          poll_seconds: 3600,
        })),
      } as never)
      const app = await buildApp(config, { ...r.deps, outbound, metrics })
      await app.ready()
      try {
        let served: { log_checkpoint?: LogCheckpoint; witness_signatures?: unknown[] } = {}
        await vi.waitFor(
          async () => {
            served = (await app.inject({ method: 'GET', url: '/log/checkpoint' })).json()
            expect(served.witness_signatures).toHaveLength(2)
          },
          { timeout: 5000, interval: 20 },
        )
        expect(requested.every((u) => u.includes(`log_id=${encodeURIComponent(golden.log_id)}`))).toBe(true)
        expect(served.log_checkpoint?.root_hash).toBe(golden.root_hash)
        expect(served.witness_signatures).toEqual([
          byId('wit-001').vectors[0].expected.log_cosignature,
          cosignatureOf(wit003.vectors[1], b.witness_id),
        ])
        const count = await countWitnesses(served.witness_signatures ?? [], {
          checkpoint: served.log_checkpoint as LogCheckpoint,
          resolveKey: (keyId) => r.deps.resolver.resolveKey(keyId),
          isTrustedWitness: () => true,
          now: r.clock.now(),
        })
        expect(count.count).toBe(wit003.expected_quorum.witnessed_count)
        ran.add('wit-001')
        ran.add('wit-003')
        const text = await metrics.registry.metrics()
        expect(text).toMatch(/acdp_registry_witness_cosignatures_total\{outcome="rejected"\} 2/)
        expect(text).toMatch(/acdp_registry_witness_cosignatures_total\{outcome="aggregated"\} 2/)
        ran.add('wit-002')
        ran.add('wit-004')
      } finally {
        await app.close()
      }
    } finally {
      await r.database.close()
    }
  })

  it('ran every loaded fixture', () => {
    const missing = fixtures.map((f) => f.id).filter((id) => !ran.has(id))
    expect(missing).toEqual([])
  })
})
