/**
 * The trust layer through a real registry (app.inject, real store, real DID resolution), on SQLite always and
 * PostgreSQL when ACDP_TEST_DATABASE_URL is set: receipts (RFC-ACDP-0010), the transparency log (RFC-ACDP-0012)
 * and lineage-head receipts (RFC-ACDP-0011).
 */
import {
  buildLogLeaf,
  CapabilitiesDocument,
  computeKeyFingerprint,
  computeLogLeafHash,
  LogEntries,
  type LogCheckpoint,
  type RegistryReceipt,
  verifyLineageHeadReceipt,
  verifyLogConsistency,
  verifyLogInclusion,
  verifyRegistryReceipt,
} from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { sql } from 'kysely'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import {
  AUTHORITY,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  recordingDispatcher,
  signRequest,
  type TestRegistry,
  type TestRegistryOptions,
  useTestRegistry,
} from './support/registry-harness.js'
import { createRegistryMetrics } from '../src/core/metrics.js'
import { SAMPLED_LEAVES } from '../src/log/log-self-check.js'
import { logNodePosition } from '../src/store/log-node-position.js'
import { registryKeyResolver, TRUST_CONFIG } from './support/trust.js'

const entriesValidator = Compile(LogEntries)
const capabilitiesValidator = Compile(CapabilitiesDocument)
const RETIRED_KEY_B64 = Buffer.alloc(32, 0x22).toString('base64')

describe.each(testDatabaseTargets())('trust layer on $name', (target) => {
  const start = useTestRegistry()
  const startTrusted = (options: TestRegistryOptions = {}) =>
    start({ openDatabase: target.open, ...options, config: { ...TRUST_CONFIG, ...options.config } })

  function producer(r: TestRegistry, name = 'alice'): Producer {
    const p = didWebProducer(`did:web:agents.example.com:${name}`)
    r.dids.host([p])
    return p
  }

  async function publishOne(r: TestRegistry, p: Producer, overrides: Record<string, unknown> = {}) {
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)))
    expect(res.statusCode).toBe(201)
    return res.json() as { ctx_id: string; lineage_id: string; registry_receipt: RegistryReceipt }
  }

  const get = (r: TestRegistry, url: string, headers: Record<string, string> = {}) =>
    r.app.inject({ method: 'GET', url, headers })

  const checkpointContext = (r: TestRegistry) => ({
    authority: AUTHORITY,
    capabilitiesRegistryDid: `did:web:${AUTHORITY}`,
    resolveKey: registryKeyResolver(r.app),
    now: r.clock.now(),
  })

  describe('receipts (RFC-ACDP-0010)', () => {
    it('mints a verifiable receipt with the publish and serves it on retrieval, never on /body', async () => {
      const r = await startTrusted()
      const p = producer(r)
      const body = signRequest(p, minimalUnsigned(p))
      const res = await publish(r.app, body, { 'idempotency-key': 'k-1' })
      expect(res.statusCode).toBe(201)
      const published = res.json() as { ctx_id: string; registry_receipt: RegistryReceipt }
      const receipt = published.registry_receipt
      expect(receipt.signature.key_id).toBe(`did:web:${AUTHORITY}#receipt-key-1`)

      const full = await get(r, `/contexts/${encodeURIComponent(published.ctx_id)}`)
      const envelope = full.json() as {
        body: Record<string, string>
        registry_receipt: unknown
        registry_state: object
      }
      expect(envelope.registry_receipt).toEqual(receipt)
      expect(envelope.registry_state).toEqual({ status: 'active' })
      await verifyRegistryReceipt({
        receipt: envelope.registry_receipt,
        authority: AUTHORITY,
        resolveKey: registryKeyResolver(r.app),
        context: envelope.body as never,
        contentHash: body.content_hash as string,
        producerKey: { algorithm: 'ed25519', publicKey: p.publicKey },
      })

      const bare = await get(r, `/contexts/${encodeURIComponent(published.ctx_id)}/body`)
      expect(bare.json()).not.toHaveProperty('registry_receipt')

      // An idempotent replay returns the first answer byte for byte and mints nothing new.
      const replay = await publish(r.app, body, { 'idempotency-key': 'k-1' })
      expect(replay.statusCode).toBe(200)
      expect(replay.body).toBe(res.body)
      const checkpoint = (await get(r, '/log/checkpoint')).json() as LogCheckpoint
      expect(checkpoint.tree_size).toBe(1)
    })

    // What a receipt signs must be the final fields: the key that verified the body (not a stale cached one),
    // the target's lineage, and nothing at all for a refused publish. (Session 4 tried signing the receipt while
    // the producer signature was checked, over fields guessed before the check; these tests pin those guesses.)
    it('names the key that verified the body after a did:web key rotation, not the stale cached one', async () => {
      const r = await startTrusted()
      const old = producer(r)
      await publishOne(r, old)
      const rotated = didWebProducer(old.did)
      r.dids.host([rotated])
      const body = signRequest(rotated, minimalUnsigned(rotated, { title: 'after rotation' }))
      const res = await publish(r.app, body)
      expect(res.statusCode).toBe(201)
      const published = res.json() as { ctx_id: string; registry_receipt: RegistryReceipt }
      const rotatedKey = { algorithm: 'ed25519' as const, publicKey: rotated.publicKey }
      expect(published.registry_receipt.key_fingerprint).toBe(computeKeyFingerprint(rotatedKey))
      const full = (await get(r, `/contexts/${encodeURIComponent(published.ctx_id)}`)).json() as {
        body: Record<string, string>
      }
      await verifyRegistryReceipt({
        receipt: published.registry_receipt,
        authority: AUTHORITY,
        resolveKey: registryKeyResolver(r.app),
        context: full.body as never,
        contentHash: body.content_hash as string,
        producerKey: rotatedKey,
      })
    })

    it("signs a new version's receipt over the target's lineage, whether the producer states it or not", async () => {
      const r = await startTrusted()
      const p = producer(r)
      const v1 = await publishOne(r, p)
      const v2 = await publishOne(r, p, { version: 2, supersedes: v1.ctx_id })
      const v3 = await publishOne(r, p, { version: 3, supersedes: v2.ctx_id, lineage_id: v1.lineage_id })
      for (const v of [v2, v3]) {
        expect(v.lineage_id).toBe(v1.lineage_id)
        expect(v.registry_receipt.lineage_id).toBe(v1.lineage_id)
        const full = (await get(r, `/contexts/${encodeURIComponent(v.ctx_id)}`)).json() as {
          body: Record<string, string>
          registry_receipt: unknown
        }
        await verifyRegistryReceipt({
          receipt: full.registry_receipt,
          authority: AUTHORITY,
          resolveKey: registryKeyResolver(r.app),
          context: full.body as never,
          contentHash: full.body['content_hash'] as string,
          producerKey: { algorithm: 'ed25519', publicKey: p.publicKey },
        })
      }
    })

    it('a refused signature leaves no receipt, no leaf and no count behind', async () => {
      const metrics = createRegistryMetrics()
      const r = await startTrusted({ deps: { metrics } })
      const p = producer(r)
      const forged = signRequest(p, minimalUnsigned(p))
      const other = signRequest(didWebProducer(p.did), minimalUnsigned(p))
      ;(forged.signature as { value: string }).value = (other.signature as { value: string }).value
      expect((await publish(r.app, forged)).statusCode).toBe(400)
      expect(((await get(r, '/log/checkpoint')).json() as LogCheckpoint).tree_size).toBe(0)
      const text = await metrics.registry.metrics()
      expect(text).toMatch(/^acdp_registry_receipts_minted_total 0$/m)
      await publishOne(r, p)
      expect(((await get(r, '/log/checkpoint')).json() as LogCheckpoint).tree_size).toBe(1)
    })

    it('carries key_fingerprint and the receipt in the context_published webhook, once, and counts it', async () => {
      const webhooks = recordingDispatcher()
      const metrics = createRegistryMetrics()
      const r = await startTrusted({ deps: { webhooks, metrics } })
      const p = producer(r)
      const body = signRequest(p, minimalUnsigned(p))
      const first = (await publish(r.app, body, { 'idempotency-key': 'k' })).json() as {
        registry_receipt: RegistryReceipt
      }
      await publish(r.app, body, { 'idempotency-key': 'k' })
      const published = webhooks.events.filter((e) => e.type === 'context_published')
      expect(published).toHaveLength(1)
      expect(published[0]).toMatchObject({
        key_fingerprint: first.registry_receipt.key_fingerprint,
        registry_receipt: first.registry_receipt,
      })
      const text = await metrics.registry.metrics()
      expect(text).toMatch(/^acdp_registry_receipts_minted_total 1$/m)
      expect(text).toMatch(/^acdp_registry_log_leaves_total 1$/m)
    })

    it('serves the registry DID document with current and retired receipt keys', async () => {
      const r = await startTrusted({
        config: {
          receipt: {
            ...TRUST_CONFIG.receipt,
            retired_keys: [{ public_key_b64: RETIRED_KEY_B64, key_id_fragment: 'receipt-key-0' }],
          },
        },
      })
      const res = await get(r, '/.well-known/did.json')
      expect(res.statusCode).toBe(200)
      expect(res.headers['cache-control']).toBe('public, max-age=300')
      const doc = res.json() as { id: string; verificationMethod: Array<{ id: string }>; assertionMethod: string[] }
      expect(doc.id).toBe(`did:web:${AUTHORITY}`)
      expect(doc.verificationMethod.map((m) => m.id)).toEqual([
        `did:web:${AUTHORITY}#receipt-key-1`,
        `did:web:${AUTHORITY}#receipt-key-0`,
      ])
      expect(doc.assertionMethod).toEqual([`did:web:${AUTHORITY}#receipt-key-1`])

      const caps = (await get(r, '/.well-known/acdp.json')).json() as CapabilitiesDocument
      expect(capabilitiesValidator.Check(caps)).toBe(true)
      expect(caps.profiles).toEqual(
        expect.arrayContaining([
          'acdp-registry-receipts',
          'acdp-registry-head-receipts',
          'acdp-registry-transparency-log',
        ]),
      )
    })

    it('documents the trust routes in the OpenAPI document', async () => {
      const r = await startTrusted({ config: { auth: { admin_tokens: ['t'] } } })
      const doc = (await get(r, '/openapi.json')).json() as { paths: Record<string, unknown> }
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/.well-known/did.json',
          '/log/checkpoint',
          '/log/proof',
          '/log/entries',
          '/admin/log/verify',
        ]),
      )
    })

    it('without a receipt key: no receipt, no DID document, no log, nothing advertised', async () => {
      const r = await start({ openDatabase: target.open })
      const p = producer(r)
      const published = await publish(r.app, signRequest(p, minimalUnsigned(p)))
      expect(published.json()).not.toHaveProperty('registry_receipt')
      expect((await get(r, '/.well-known/did.json')).statusCode).toBe(404)
      for (const url of ['/log/checkpoint', '/log/proof?leaf_index=0', '/log/entries?start=0&end=1']) {
        const res = await get(r, url)
        expect(res.statusCode).toBe(501)
        expect(res.json()).toMatchObject({ error: { code: 'not_implemented' } })
      }
      const caps = (await get(r, '/.well-known/acdp.json')).json() as CapabilitiesDocument
      expect(caps.profiles.filter((x) => x.includes('receipt') || x.includes('log'))).toEqual([])
    })
  })

  describe('transparency log (RFC-ACDP-0012)', () => {
    it('50 concurrent publishes get 50 distinct consecutive leaves under one root, every proof verifying', async () => {
      const r = await startTrusted()
      const p = producer(r)
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => publish(r.app, signRequest(p, minimalUnsigned(p, { title: `n${i}` })))),
      )
      expect(responses.map((res) => res.statusCode)).toEqual(Array(50).fill(201))
      const published = responses.map((res) => res.json() as { ctx_id: string; registry_receipt: RegistryReceipt })

      const checkpoint = (await get(r, '/log/checkpoint')).json() as LogCheckpoint
      expect(checkpoint.tree_size).toBe(50)
      const entries = (await get(r, '/log/entries?start=0&end=50')).json() as {
        entries: Array<{ leaf_index: number; leaf: { ctx_id: string } }>
      }
      expect(entriesValidator.Check(entries)).toBe(true)
      expect(entries.entries.map((e) => e.leaf_index)).toEqual(Array.from({ length: 50 }, (_, i) => i))
      expect(new Set(entries.entries.map((e) => e.leaf.ctx_id))).toEqual(new Set(published.map((x) => x.ctx_id)))

      const context = checkpointContext(r)
      for (const { ctx_id, registry_receipt } of published) {
        const proof = (await get(r, `/log/proof?ctx_id=${encodeURIComponent(ctx_id)}`)).json()
        const verified = await verifyLogInclusion(proof, computeLogLeafHash(buildLogLeaf(registry_receipt)), context)
        expect(verified.checkpoint.root_hash).toBe(checkpoint.root_hash)
      }

      // Every historical checkpoint is consistent with the current one.
      for (const first of [1, 7, 32, 49, 50]) {
        const older = (await get(r, `/log/proof?leaf_index=0&tree_size=${first}`)).json() as {
          log_checkpoint: LogCheckpoint
        }
        const proof = (await get(r, `/log/proof?first=${first}&second=50`)).json()
        const verified = await verifyLogConsistency(proof, older.log_checkpoint, context)
        expect(verified.checkpoint.root_hash).toBe(checkpoint.root_hash)
      }
    })

    it('serves proofs from its in-memory hashes only while they are right: warm at one size, then grown', async () => {
      const r = await startTrusted()
      const p = producer(r)
      const receipts: RegistryReceipt[] = []
      const publishMany = async (count: number) => {
        for (let i = 0; i < count; i++)
          receipts.push((await publishOne(r, p, { title: `g${receipts.length}` })).registry_receipt)
      }
      const context = checkpointContext(r)
      const proveAll = async (size: number) => {
        const checkpoint = (await get(r, '/log/checkpoint')).json() as LogCheckpoint
        expect(checkpoint.tree_size).toBe(size)
        for (const [index, receipt] of receipts.entries()) {
          const proof = (await get(r, `/log/proof?leaf_index=${index}`)).json()
          const verified = await verifyLogInclusion(proof, computeLogLeafHash(buildLogLeaf(receipt)), context)
          expect(verified.checkpoint.root_hash).toBe(checkpoint.root_hash)
        }
        return checkpoint
      }
      // 11 leaves: right-edge ranges [8, 11) and [10, 11) are folded and cached, subtrees up to level 3 read.
      await publishMany(11)
      const at11 = await proveAll(11)
      // Growing to 21 completes subtrees over [8, 16) and changes every right edge: a stale fold or node would
      // break these proofs or the consistency proof from the warm size.
      await publishMany(10)
      const at21 = await proveAll(21)
      expect(at21.root_hash).not.toBe(at11.root_hash)
      const consistency = (await get(r, '/log/proof?first=11&second=21')).json()
      const verified = await verifyLogConsistency(consistency, at11, context)
      expect(verified.checkpoint.root_hash).toBe(at21.root_hash)
      // Historical inclusion at the warm size still answers with the warm root.
      const historical = (await get(r, '/log/proof?leaf_index=3&tree_size=11')).json()
      const old = await verifyLogInclusion(
        historical,
        computeLogLeafHash(buildLogLeaf(receipts[3] as RegistryReceipt)),
        context,
      )
      expect(old.checkpoint.root_hash).toBe(at11.root_hash)
    })

    it('never discloses restricted contexts: 404 by ctx_id, no leaf echoed in entries or index proofs', async () => {
      const r = await startTrusted()
      const alice = producer(r)
      const secret = await publishOne(r, alice, {
        visibility: 'restricted',
        audience: ['did:web:agents.example.com:bob'],
      })
      const open = await publishOne(r, alice)

      const byId = await get(r, `/log/proof?ctx_id=${encodeURIComponent(secret.ctx_id)}`)
      expect(byId.statusCode).toBe(404)
      expect(byId.json()).toMatchObject({ error: { code: 'not_found' } })
      const byIndex = (await get(r, '/log/proof?leaf_index=0')).json() as Record<string, unknown>
      expect(byIndex).not.toHaveProperty('leaf')
      expect(byIndex.leaf_index).toBe(0)
      const entries = (await get(r, '/log/entries?start=0&end=2')).json() as {
        entries: Array<Record<string, unknown>>
      }
      expect(entries.entries[0]).not.toHaveProperty('leaf')
      expect(entries.entries[0]).toHaveProperty('leaf_hash')
      expect(entries.entries[1]?.leaf).toMatchObject({ ctx_id: open.ctx_id })

      // The authorized reader sees its own leaf.
      const r2ok = await r.app.inject({ method: 'GET', url: '/log/proof?leaf_index=0' })
      expect(r2ok.statusCode).toBe(200)
    })

    it.each([
      ['no mode', ''],
      ['mixed modes', '?leaf_index=0&first=1&second=1'],
      ['both inclusion forms', '?leaf_index=0&ctx_id=x'],
      ['leaf_index out of range', '?leaf_index=2'],
      ['tree_size above current', '?leaf_index=0&tree_size=3'],
      ['leaf_index not below tree_size', '?leaf_index=1&tree_size=1'],
      ['first of zero', '?first=0&second=1'],
      ['first above second', '?first=2&second=1'],
      ['second above current', '?first=1&second=3'],
      ['malformed number', '?leaf_index=01'],
      ['negative number', '?leaf_index=-1'],
      ['only first', '?first=1'],
      ['malformed ctx_id', '?ctx_id=not-an-id'],
      ['repeated parameter', '?leaf_index=0&leaf_index=1'],
    ])('GET /log/proof with %s is 400 schema_violation', async (_name, query) => {
      const r = await startTrusted()
      const p = producer(r)
      await publishOne(r, p)
      await publishOne(r, p)
      const res = await get(r, `/log/proof${query}`)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ error: { code: 'schema_violation' } })
    })

    it('answers 404 for an unlogged ctx_id and 400 for malformed /log/entries ranges', async () => {
      const r = await startTrusted()
      await publishOne(r, producer(r))
      const unknown = await get(
        r,
        `/log/proof?ctx_id=${encodeURIComponent(`acdp://${AUTHORITY}/12345678-1234-4321-8123-123456781234`)}`,
      )
      expect(unknown.statusCode).toBe(404)
      for (const query of ['?start=1&end=1', '?start=0&end=2', '?start=0', '?start=a&end=1']) {
        const res = await get(r, `/log/entries${query}`)
        expect(res.statusCode).toBe(400)
        expect(res.json()).toMatchObject({ error: { code: 'schema_violation' } })
      }
    })

    it('detects a tampered leaf or node, refuses to serve the log, and says why', async () => {
      const r = await startTrusted({ config: { auth: { admin_tokens: ['admin-secret'] } } })
      const p = producer(r)
      for (let i = 0; i < 5; i++) await publishOne(r, p, { title: `t${i}` })
      expect((await get(r, '/log/checkpoint')).statusCode).toBe(200)

      const verify = () =>
        r.app.inject({ method: 'POST', url: '/admin/log/verify', headers: { authorization: 'Bearer admin-secret' } })
      expect((await r.app.inject({ method: 'POST', url: '/admin/log/verify' })).statusCode).toBe(403)
      expect((await verify()).json()).toEqual({ status: 'ok', tree_size: 5, checkpoint_tree_size: 5 })

      const db = r.database.db
      const original = await db
        .selectFrom('log_leaf')
        .select('leaf_json')
        .where('leaf_index', '=', 3)
        .executeTakeFirstOrThrow()
      await db
        .updateTable('log_leaf')
        .set({ leaf_json: original.leaf_json.replace('"created_at":"', '"created_at":"1') })
        .where('leaf_index', '=', 3)
        .execute()
      const failed = await verify()
      expect(failed.statusCode).toBe(503)
      expect(failed.json()).toMatchObject({ status: 'failed', reason: expect.stringContaining('leaf 3') })
      const refused = await get(r, '/log/checkpoint')
      expect(refused.statusCode).toBe(503)
      expect(refused.json()).toMatchObject({
        error: { code: 'internal_error', message: expect.stringContaining('leaf 3') },
      })

      // Restoring the leaf heals the log; tampering with an interior node is caught as well.
      await db.updateTable('log_leaf').set({ leaf_json: original.leaf_json }).where('leaf_index', '=', 3).execute()
      expect((await verify()).json()).toMatchObject({ status: 'ok' })
      await sql`update log_node set hash = ${new Uint8Array(32)} where pos = ${logNodePosition(1, 1)}`.execute(db)
      expect((await verify()).json()).toMatchObject({
        status: 'failed',
        reason: expect.stringContaining('node (1, 1)'),
      })
    })

    it('keeps its history across a restart and re-checks it on startup', async () => {
      const r = await startTrusted()
      const p = producer(r)
      await publishOne(r, p)
      await publishOne(r, p)
      const before = (await get(r, '/log/checkpoint')).json() as LogCheckpoint
      await r.app.close()
      const { buildApp } = await import('../src/app.js')
      const app = await buildApp(r.config, r.deps)
      await app.ready()
      try {
        const after = (await app.inject({ method: 'GET', url: '/log/checkpoint' })).json() as LogCheckpoint
        expect(after.root_hash).toBe(before.root_hash)
        expect(after.tree_size).toBe(2)
      } finally {
        await app.close()
      }
    })
    describe('the start-up self-check anchors on the last signed checkpoint', () => {
      async function restart(r: TestRegistry) {
        await r.app.close()
        const { buildApp } = await import('../src/app.js')
        r.app = await buildApp(r.config, r.deps)
        await r.app.ready()
        return get(r, '/log/checkpoint')
      }

      it('signs a checkpoint over the checked tree and re-proves only what was appended since', async () => {
        // One agent publishes 100 times on a frozen clock: beyond the per-agent budget, which is not under test.
        const r = await startTrusted({ config: { limits: { publish_rate_per_minute: 0 } } })
        const p = producer(r)
        for (let i = 0; i < 90; i++) await publishOne(r, p, { title: `a${i}` })
        expect((await restart(r)).statusCode).toBe(200)
        expect((await r.store.log.findLatestCheckpoint())?.treeSize).toBe(90)
        for (let i = 0; i < 10; i++) await publishOne(r, p, { title: `b${i}` })

        // Count the leaf texts the start-up check reads: the 10 appended since the anchor, plus its samples.
        const log = r.store.log
        const listLeafTexts = log.listLeafTexts.bind(log)
        let read = 0
        log.listLeafTexts = async (start, end) => {
          read += end - start
          return listLeafTexts(start, end)
        }
        try {
          const ok = await restart(r)
          expect(ok.statusCode).toBe(200)
          expect((ok.json() as LogCheckpoint).tree_size).toBe(100)
        } finally {
          log.listLeafTexts = listLeafTexts
        }
        expect(read).toBeGreaterThanOrEqual(10)
        expect(read).toBeLessThanOrEqual(10 + SAMPLED_LEAVES)
        expect((await r.store.log.findLatestCheckpoint())?.treeSize).toBe(100)
        await r.app.close()
      })

      it.each([
        ['a leaf text below the anchor', 'leaf 2'],
        ['a subtree of the anchor tiling', 'do not fold'],
        ['a node appended after the anchor', 'node (1, 2)'],
      ])('refuses to serve the log when %s was altered', async (what, reason) => {
        const r = await startTrusted()
        const p = producer(r)
        for (let i = 0; i < 5; i++) await publishOne(r, p, { title: `t${i}` })
        expect((await get(r, '/log/checkpoint')).statusCode).toBe(200)
        for (let i = 0; i < 3; i++) await publishOne(r, p, { title: `u${i}` })
        const db = r.database.db
        if (what.startsWith('a leaf')) {
          const row = await db
            .selectFrom('log_leaf')
            .select('leaf_json')
            .where('leaf_index', '=', 2)
            .executeTakeFirstOrThrow()
          await db
            .updateTable('log_leaf')
            .set({ leaf_json: row.leaf_json.replace('"created_at":"', '"created_at":"1') })
            .where('leaf_index', '=', 2)
            .execute()
        } else if (what.startsWith('a subtree')) {
          // Tree size 5 is tiled by (2, 0) and (0, 4).
          await sql`update log_node set hash = ${new Uint8Array(32)} where pos = ${logNodePosition(2, 0)}`.execute(db)
        } else {
          await sql`update log_node set hash = ${new Uint8Array(32)} where pos = ${logNodePosition(1, 2)}`.execute(db)
        }
        const refused = await restart(r)
        expect(refused.statusCode).toBe(503)
        expect(refused.json()).toMatchObject({ error: { message: expect.stringContaining(reason) } })
        await r.app.close()
      })
    })
  })

  describe('lineage-head receipts (RFC-ACDP-0011)', () => {
    it('signs the served head on /current, follows supersession, and never appears on the array', async () => {
      const r = await startTrusted()
      const p = producer(r)
      const v1 = await publishOne(r, p)
      const path = `/lineages/${encodeURIComponent(v1.lineage_id)}`
      const check = async (expected: { ctx_id: string; version: number }) => {
        const res = await get(r, `${path}/current`)
        expect(res.statusCode).toBe(200)
        const envelope = res.json() as {
          body: { ctx_id: string; version: number }
          registry_state: { status: string }
          lineage_head_receipt: unknown
        }
        expect(envelope.body.ctx_id).toBe(expected.ctx_id)
        const verified = await verifyLineageHeadReceipt({
          receipt: envelope.lineage_head_receipt,
          authority: AUTHORITY,
          capabilitiesRegistryDid: `did:web:${AUTHORITY}`,
          resolveKey: registryKeyResolver(r.app),
          lineageId: v1.lineage_id,
          endpoint: 'current',
          served: {
            ctx_id: envelope.body.ctx_id,
            version: envelope.body.version,
            status: envelope.registry_state.status,
          },
          now: r.clock.now(),
        })
        expect(verified.receipt).toMatchObject({ head_version: expected.version, as_of: r.clock.now().toISOString() })
      }
      await check({ ctx_id: v1.ctx_id, version: 1 })
      r.clock.advance(1000)
      const v2 = await publishOne(r, p, { version: 2, supersedes: v1.ctx_id, lineage_id: v1.lineage_id })
      await check({ ctx_id: v2.ctx_id, version: 2 })

      const array = (await get(r, path)).json() as Array<Record<string, unknown>>
      expect(array).toHaveLength(2)
      for (const item of array) expect(item).not.toHaveProperty('lineage_head_receipt')
      expect(array[0]).toHaveProperty('registry_receipt')
    })

    it('sends no head receipt with a 404', async () => {
      const r = await startTrusted()
      const res = await get(r, `/lineages/${encodeURIComponent(`lin:sha256:${'a'.repeat(64)}`)}/current`)
      expect(res.statusCode).toBe(404)
      expect(res.json()).not.toHaveProperty('lineage_head_receipt')
    })
  })
})
