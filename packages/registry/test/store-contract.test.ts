/**
 * The RegistryStore contract, run against every real dialect: SQLite in memory always, PostgreSQL when
 * ACDP_TEST_DATABASE_URL is set (a throwaway schema per test).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { type Database, testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import type { RegistryDatabase } from '../src/store/schema.js'
import type { IdempotencyRecord, NewContext, RegistryStore } from '../src/store/store.js'

const AUTHORITY = 'registry.example.com'

function newCtxId(): string {
  return `acdp://${AUTHORITY}/${randomUUID()}`
}

function newContext(overrides: Partial<NewContext> = {}): NewContext {
  const ctxId = overrides.ctxId ?? newCtxId()
  return {
    ctxId,
    tenantId: 'default',
    lineageId: `lin:sha256:${randomBytes(32).toString('hex')}`,
    version: 1,
    supersedes: null,
    agentId: 'did:web:agents.example.com:alice',
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: [],
    title: 'Title',
    summary: null,
    description: null,
    domain: null,
    schemaUri: null,
    tags: [],
    derivedFrom: [],
    contentHash: `sha256:${'b'.repeat(64)}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    createdAtMs: Date.parse('2026-01-01T00:00:00.000Z'),
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText: `{ "title" : "Title", "x\\u00e9": 1.0, "ctx_id":"${ctxId}"}`,
    registryReceipt: null,
    logLeaf: null,
    ...overrides,
  }
}

function idempotency(ctxId: string, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return {
    tenantId: 'default',
    agentId: 'did:web:agents.example.com:alice',
    idempotencyKey: 'key-1',
    contentHash: `sha256:${'b'.repeat(64)}`,
    signatureAlgorithm: 'ed25519',
    signatureKeyId: 'did:web:agents.example.com:alice#key-1',
    signatureValue: 'A'.repeat(86) + '==',
    ctxId,
    responseJson: `{"ctx_id":"${ctxId}"}`,
    createdAtMs: 1000,
    expiresAtMs: 1000 + 86_400_000,
    ...overrides,
  }
}

describe.each(testDatabaseTargets())('registry store on $name', (target) => {
  let database: Database<RegistryDatabase> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })

  async function openStore(): Promise<RegistryStore> {
    database = (await target.open()) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    return createKyselyStore(database)
  }

  it('applies its migrations once and reports healthy storage', async () => {
    const store = await openStore()
    expect((await migrateRegistryDatabase(database as Database<RegistryDatabase>)).applied).toEqual([])
    expect(await store.checkHealth()).toBe(true)
  })

  it('returns the stored body text byte for byte and the denormalized columns', async () => {
    const store = await openStore()
    const ctx = newContext({
      visibility: 'restricted',
      audience: ['did:web:b.example', 'did:key:z6Mkabc'],
      expiresAtMs: 1_900_000_000_123,
    })
    expect(await store.insertContext(ctx)).toEqual({ ok: true, leafIndex: null })
    expect(await store.findContext(ctx.ctxId, 'default')).toEqual({
      ctxId: ctx.ctxId,
      lineageId: ctx.lineageId,
      version: 1,
      supersedes: null,
      supersededBy: null,
      agentId: ctx.agentId,
      contextType: 'data_snapshot',
      visibility: 'restricted',
      audience: ['did:web:b.example', 'did:key:z6Mkabc'],
      contentHash: ctx.contentHash,
      createdAt: ctx.createdAt,
      createdAtMs: ctx.createdAtMs,
      expiresAtMs: 1_900_000_000_123,
      bodyText: ctx.bodyText,
      registryReceipt: null,
      leafIndex: null,
      retracted: false,
      lifecycleEventsJson: null,
      tenantId: 'default',
    })
  })

  it('answers undefined for an absent context', async () => {
    const store = await openStore()
    expect(await store.findContext(newCtxId(), 'default')).toBeUndefined()
    expect(await store.findStatusInputs(newCtxId())).toBeUndefined()
  })

  it('writes the search side tables and search_text', async () => {
    const store = await openStore()
    const source = newCtxId()
    const ctx = newContext({
      tags: ['BTC', 'price'],
      derivedFrom: [source],
      audience: ['did:web:b.example'],
      visibility: 'private',
      summary: 'Hourly Snapshot',
      domain: 'finance',
    })
    await store.insertContext(ctx)
    const db = (database as Database<RegistryDatabase>).db
    expect(
      await db.selectFrom('context_tag').select('tag').where('ctx_id', '=', ctx.ctxId).orderBy('tag').execute(),
    ).toEqual([{ tag: 'BTC' }, { tag: 'price' }])
    expect(await db.selectFrom('context_derived_from').selectAll().execute()).toEqual([
      { ctx_id: ctx.ctxId, source_ctx_id: source },
    ])
    expect(await db.selectFrom('context_audience').selectAll().execute()).toEqual([
      { ctx_id: ctx.ctxId, did: 'did:web:b.example' },
    ])
    const row = await db.selectFrom('context').select('search_text').executeTakeFirstOrThrow()
    expect(row.search_text.split('\n')).toEqual([
      'title',
      'hourly snapshot',
      'btc',
      'price',
      'data_snapshot',
      'finance',
      ctx.agentId,
    ])
  })

  it('marks the predecessor superseded in the successor transaction and lists the lineage in version order', async () => {
    const store = await openStore()
    const v1 = newContext()
    const v2 = newContext({ version: 2, supersedes: v1.ctxId, lineageId: v1.lineageId })
    await store.insertContext(v1)
    expect(await store.insertContext(v2)).toEqual({ ok: true, leafIndex: null })
    expect(await store.findStatusInputs(v1.ctxId)).toEqual({
      supersededBy: v2.ctxId,
      retracted: false,
      lifecycleEventsJson: null,
    })
    expect((await store.listLineage(v1.lineageId, 'default')).map((c) => [c.version, c.ctxId])).toEqual([
      [1, v1.ctxId],
      [2, v2.ctxId],
    ])
  })

  it('refuses a second successor and writes nothing for it', async () => {
    const store = await openStore()
    const v1 = newContext()
    await store.insertContext(v1)
    await store.insertContext(newContext({ version: 2, supersedes: v1.ctxId, lineageId: v1.lineageId }))
    const loser = newContext({ version: 2, supersedes: v1.ctxId, lineageId: v1.lineageId })
    expect(await store.insertContext(loser, idempotency(loser.ctxId))).toEqual({
      ok: false,
      conflict: 'already_superseded',
    })
    expect(await store.findContext(loser.ctxId, 'default')).toBeUndefined()
    expect(await store.findIdempotencyRecord('did:web:agents.example.com:alice', 'key-1', 0, 'default')).toBeUndefined()
  })

  it('lets exactly one of 20 concurrent successors of one context win', async () => {
    const store = await openStore()
    const v1 = newContext()
    await store.insertContext(v1)
    const lineageId = v1.lineageId
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        store.insertContext(newContext({ version: 2, supersedes: v1.ctxId, lineageId })),
      ),
    )
    expect(results.filter((r) => r.ok)).toHaveLength(1)
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.conflict === 'already_superseded')).toBe(true)
    expect(await store.listLineage(lineageId, 'default')).toHaveLength(2)
  })

  it('records idempotency atomically and refuses a second live record for the same agent and key', async () => {
    const store = await openStore()
    const first = newContext()
    expect(await store.insertContext(first, idempotency(first.ctxId))).toEqual({ ok: true, leafIndex: null })
    expect(
      await store.findIdempotencyRecord('did:web:agents.example.com:alice', 'key-1', 2000, 'default'),
    ).toMatchObject({
      ctxId: first.ctxId,
      responseJson: `{"ctx_id":"${first.ctxId}"}`,
    })
    const second = newContext()
    expect(await store.insertContext(second, idempotency(second.ctxId))).toEqual({
      ok: false,
      conflict: 'idempotency_key',
    })
    expect(await store.findContext(second.ctxId, 'default')).toBeUndefined()
    // Other agents never interact with this key.
    const other = newContext({ agentId: 'did:web:agents.example.com:bob' })
    expect(
      await store.insertContext(other, idempotency(other.ctxId, { agentId: 'did:web:agents.example.com:bob' })),
    ).toEqual({
      ok: true,
      leafIndex: null,
    })
  })

  it('lets exactly one of 20 concurrent first publishes with one key win', async () => {
    const store = await openStore()
    const results = await Promise.all(
      Array.from({ length: 20 }, () => {
        const ctx = newContext()
        return store.insertContext(ctx, idempotency(ctx.ctxId))
      }),
    )
    expect(results.filter((r) => r.ok)).toHaveLength(1)
    expect(await store.countIdempotencyRecords(0)).toBe(1)
  })

  it('ignores, replaces and sweeps expired idempotency records', async () => {
    const store = await openStore()
    const old = newContext()
    await store.insertContext(old, idempotency(old.ctxId, { createdAtMs: 0, expiresAtMs: 100 }))
    expect(
      await store.findIdempotencyRecord('did:web:agents.example.com:alice', 'key-1', 100, 'default'),
    ).toBeUndefined()
    expect(await store.countIdempotencyRecords(100)).toBe(0)
    const fresh = newContext()
    expect(await store.insertContext(fresh, idempotency(fresh.ctxId, { createdAtMs: 200, expiresAtMs: 300 }))).toEqual({
      ok: true,
      leafIndex: null,
    })
    expect(await store.sweepIdempotencyRecords(250)).toBe(0)
    expect(await store.sweepIdempotencyRecords(300)).toBe(1)
    expect(await store.countIdempotencyRecords(0)).toBe(0)
  })
  it('appends lifecycle events with a compare-and-swap on the event count, one winner among concurrent appends', async () => {
    const store = await openStore()
    const ctx = newContext()
    await store.insertContext(ctx)
    expect(await store.hasLifecycleState()).toBe(false)
    expect(await store.findRetractionState(ctx.ctxId)).toEqual({ retracted: false })
    const retracted = '[{"event_type":"retracted"}]'
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.appendLifecycleEvent({
          ctxId: ctx.ctxId,
          tenantId: 'default',
          expectedCount: 0,
          eventsJson: retracted,
          retracted: true,
        }),
      ),
    )
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await store.hasLifecycleState()).toBe(true)
    expect(await store.findRetractionState(ctx.ctxId)).toEqual({ retracted: true })
    expect(await store.findStatusInputs(ctx.ctxId)).toEqual({
      supersededBy: null,
      retracted: true,
      lifecycleEventsJson: retracted,
    })
    // A stale expected count writes nothing; the current one appends.
    const both = '[{"event_type":"retracted"},{"event_type":"republished"}]'
    expect(
      await store.appendLifecycleEvent({
        ctxId: ctx.ctxId,
        tenantId: 'default',
        expectedCount: 0,
        eventsJson: both,
        retracted: false,
      }),
    ).toBe(false)
    expect(
      await store.appendLifecycleEvent({
        ctxId: ctx.ctxId,
        tenantId: 'default',
        expectedCount: 1,
        eventsJson: both,
        retracted: false,
      }),
    ).toBe(true)
    expect(await store.findContext(ctx.ctxId, 'default')).toMatchObject({ retracted: false, lifecycleEventsJson: both })
    expect(
      await store.appendLifecycleEvent({
        ctxId: newCtxId(),
        tenantId: 'default',
        expectedCount: 0,
        eventsJson: both,
        retracted: true,
      }),
    ).toBe(false)
    expect(await store.findRetractionState(newCtxId())).toBeUndefined()
  })

  it('lists key-revocation contexts by signer only', async () => {
    const store = await openStore()
    const alice = 'did:web:agents.example.com:alice'
    const revocation = newContext({ contextType: 'key-revocation' })
    await store.insertContext(revocation)
    await store.insertContext(newContext())
    await store.insertContext(newContext({ contextType: 'key-revocation', agentId: 'did:web:agents.example.com:bob' }))
    expect(await store.listKeyRevocations([alice])).toEqual([
      { ctxId: revocation.ctxId, agentId: alice, bodyText: revocation.bodyText },
    ])
    expect(await store.listKeyRevocations([alice, 'did:web:agents.example.com:bob'])).toHaveLength(2)
    expect(await store.listKeyRevocations([])).toEqual([])
    expect((await store.listKeyRevocationSigners()).sort()).toEqual([alice, 'did:web:agents.example.com:bob'])
  })
})
