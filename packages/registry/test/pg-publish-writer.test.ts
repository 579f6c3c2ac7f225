/**
 * The PostgreSQL group-commit publish writer (src/store/pg-publish-writer.ts), against a real PostgreSQL
 * (ACDP_TEST_DATABASE_URL; skipped without it): a conflicting publish fails alone inside its batch, an error
 * before COMMIT or a killed connection fails the whole batch and stores nothing, and two store instances on one
 * schema keep the log dense with every acknowledged publish's leaf (RFC-ACDP-0012 §7.1).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { computeLeafHash, MemoryMerkleTree, planTreeRoot, readProof } from '@acdp/protocol'
import { type Database, openDatabase, openPostgresTestSchema, testDatabaseUrl } from '@acdp/storage'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createKyselyStore, type KyselyStoreOptions } from '../src/store/kysely-store.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import type { RegistryDatabase } from '../src/store/schema.js'
import type { IdempotencyRecord, InsertContextResult, NewContext, RegistryStore } from '../src/store/store.js'

const AUTHORITY = 'registry.example.com'
const url = testDatabaseUrl()
const encoder = new TextEncoder()

function newContext(overrides: Partial<NewContext> = {}): NewContext {
  const ctxId = overrides.ctxId ?? `acdp://${AUTHORITY}/${randomUUID()}`
  const leafJson = JSON.stringify({ ctx_id: ctxId })
  return {
    ctxId,
    tenantId: 'default',
    lineageId: `lin:sha256:${randomBytes(32).toString('hex')}`,
    version: 1,
    supersedes: null,
    agentId: 'did:web:agents.example.com:alice',
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: ['did:web:b.example'],
    title: 'Title',
    summary: null,
    description: null,
    domain: null,
    schemaUri: null,
    tags: ['t1', 't2'],
    derivedFrom: [],
    contentHash: `sha256:${'b'.repeat(64)}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    createdAtMs: Date.parse('2026-01-01T00:00:00.000Z'),
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText: `{"ctx_id":"${ctxId}"}`,
    registryReceipt: `{"receipt":"${ctxId}"}`,
    logLeaf: { leafJson, leafHash: computeLeafHash(encoder.encode(leafJson)) },
    ...overrides,
  }
}

function idempotency(ctxId: string, key: string): IdempotencyRecord {
  return {
    tenantId: 'default',
    agentId: 'did:web:agents.example.com:alice',
    idempotencyKey: key,
    contentHash: `sha256:${'b'.repeat(64)}`,
    signatureAlgorithm: 'ed25519',
    signatureKeyId: 'did:web:agents.example.com:alice#key-1',
    signatureValue: 'A'.repeat(86) + '==',
    ctxId,
    responseJson: `{"ctx_id":"${ctxId}"}`,
    createdAtMs: 1000,
    expiresAtMs: 1000 + 86_400_000,
  }
}

async function count(database: Database<RegistryDatabase>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(database.db)
  return Number(rows[0]?.n)
}

/** Every leaf 0..size-1 is stored once, and the stored nodes give the root of the leaves in index order. */
async function expectDenseLog(store: RegistryStore, acknowledged: Map<number, NewContext>): Promise<void> {
  const size = await store.log.readTreeSize()
  expect(size).toBe(acknowledged.size)
  const leaves = await store.log.listLeaves(0, size)
  expect(leaves.map((l) => l.leafIndex)).toEqual([...Array(size).keys()])
  const reference = new MemoryMerkleTree()
  for (const leaf of leaves) {
    const context = acknowledged.get(leaf.leafIndex)
    expect(leaf.ctxId).toBe(context?.ctxId)
    expect(leaf.leafHash).toEqual(context?.logLeaf?.leafHash)
    reference.appendLeafHash(leaf.leafHash)
  }
  if (size > 0) expect((await readProof(store.log, planTreeRoot(size)))[0]).toEqual(reference.computeRoot())
}

describe.skipIf(url === undefined)('PostgreSQL publish writer', () => {
  const opened: Array<Database<RegistryDatabase>> = []
  afterEach(async () => {
    // The schema's owner (the first opened) drops it on close: close the others first.
    for (const database of opened.reverse()) await database.close()
    opened.length = 0
  })

  async function openStore(options: KyselyStoreOptions = {}): Promise<{
    store: RegistryStore
    database: Database<RegistryDatabase>
  }> {
    const database = (await openPostgresTestSchema(url as string)) as Database<RegistryDatabase>
    opened.push(database)
    await migrateRegistryDatabase(database)
    return { store: createKyselyStore(database, options), database }
  }

  it('fails a conflicting publish alone and commits the rest of its batch with dense leaves', async () => {
    const { store, database } = await openStore()
    const head = newContext()
    const taken = newContext()
    expect(await store.insertContext(head)).toEqual({ ok: true, leafIndex: 0 })
    expect(await store.insertContext(taken, idempotency(taken.ctxId, 'taken'))).toEqual({ ok: true, leafIndex: 1 })
    const successor = newContext({ supersedes: head.ctxId, lineageId: head.lineageId, version: 2 })
    expect(await store.insertContext(successor)).toEqual({ ok: true, leafIndex: 2 })

    // One turn: all six reach the same batch. The second and fourth are refused.
    const a = newContext()
    const lateSuccessor = newContext({ supersedes: head.ctxId, lineageId: head.lineageId, version: 2 })
    const b = newContext()
    const keyLoser = newContext({ supersedes: successor.ctxId, lineageId: head.lineageId, version: 3 })
    const c = newContext({ logLeaf: null, registryReceipt: null })
    const d = newContext()
    const results = await Promise.all([
      store.insertContext(a, idempotency(a.ctxId, 'a')),
      store.insertContext(lateSuccessor),
      store.insertContext(b),
      store.insertContext(keyLoser, idempotency(keyLoser.ctxId, 'taken')),
      store.insertContext(c),
      store.insertContext(d),
    ])
    expect(results).toEqual<InsertContextResult[]>([
      { ok: true, leafIndex: 3 },
      { ok: false, conflict: 'already_superseded' },
      { ok: true, leafIndex: 4 },
      { ok: false, conflict: 'idempotency_key' },
      { ok: true, leafIndex: null },
      { ok: true, leafIndex: 5 },
    ])
    // The refused ones left nothing: no row, and the key loser's supersede of `successor` was undone.
    expect(await store.findContext(lateSuccessor.ctxId, 'default')).toBeUndefined()
    expect(await store.findContext(keyLoser.ctxId, 'default')).toBeUndefined()
    expect((await store.findStatusInputs(successor.ctxId))?.supersededBy).toBeNull()
    expect((await store.findIdempotencyRecord(taken.agentId, 'taken', 2000, 'default'))?.ctxId).toBe(taken.ctxId)
    expect((await store.findContext(a.ctxId, 'default'))?.registryReceipt).toBe(a.registryReceipt)
    expect(await count(database, 'context_tag')).toBe(2 * 7)
    await expectDenseLog(store, new Map([head, taken, successor, a, b, d].map((ctx, i) => [i, ctx])))
  })

  it('puts two publishes with one idempotency key in different batches: the first wins, the second is told', async () => {
    const { store } = await openStore()
    const first = newContext()
    const second = newContext()
    const results = await Promise.all([
      store.insertContext(first, idempotency(first.ctxId, 'same')),
      store.insertContext(second, idempotency(second.ctxId, 'same')),
    ])
    expect(results).toEqual([
      { ok: true, leafIndex: 0 },
      { ok: false, conflict: 'idempotency_key' },
    ])
    expect((await store.findIdempotencyRecord(first.agentId, 'same', 2000, 'default'))?.ctxId).toBe(first.ctxId)
  })

  it('fails only the publish a statement refuses, after the batch is redone publish by publish', async () => {
    const { store } = await openStore()
    const good = newContext()
    // PostgreSQL text cannot hold NUL: the tag insert fails for this publish only.
    const poisoned = newContext({ tags: ['bad\u0000tag'] })
    const alsoGood = newContext()
    const results = await Promise.allSettled([
      store.insertContext(good),
      store.insertContext(poisoned),
      store.insertContext(alsoGood),
    ])
    expect(results[0]).toEqual({ status: 'fulfilled', value: { ok: true, leafIndex: 0 } })
    expect(results[1]?.status).toBe('rejected')
    expect(results[2]).toEqual({ status: 'fulfilled', value: { ok: true, leafIndex: 1 } })
    expect(await store.findContext(poisoned.ctxId, 'default')).toBeUndefined()
    await expectDenseLog(store, new Map([good, alsoGood].map((ctx, i) => [i, ctx])))
  })

  it('fails every publish of a batch that errs before COMMIT and stores nothing of it', async () => {
    let fail = true
    const { store, database } = await openStore({
      beforePublishBatchCommit: async () => {
        if (fail) throw new Error('injected failure before commit')
      },
    })
    const batch = [newContext(), newContext({ logLeaf: null }), newContext()]
    const results = await Promise.allSettled(
      batch.map((ctx, i) => store.insertContext(ctx, idempotency(ctx.ctxId, `k${i}`))),
    )
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    for (const table of ['context', 'context_tag', 'idempotency_record', 'log_leaf', 'log_node']) {
      expect(await count(database, table)).toBe(0)
    }
    expect(await store.log.readTreeSize()).toBe(0)
    // The next batch starts from the stored edge: leaf 0 again, no gap.
    fail = false
    const next = newContext()
    expect(await store.insertContext(next)).toEqual({ ok: true, leafIndex: 0 })
    await expectDenseLog(store, new Map([[0, next]]))
  })

  it('leaves nothing half-written when the connection dies in the middle of a batch', async () => {
    let kill = true
    const { store, database } = await openStore({
      beforePublishBatchCommit: async (tx) => {
        if (!kill) return
        kill = false
        // The batch's own backend ends, as on a crash of the database session right before COMMIT.
        await sql`select pg_terminate_backend(pg_backend_pid())`.execute(tx)
      },
    })
    const batch = [newContext(), newContext(), newContext({ logLeaf: null })]
    const results = await Promise.allSettled(batch.map((ctx) => store.insertContext(ctx)))
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(kill).toBe(false)
    for (const table of ['context', 'context_tag', 'log_leaf', 'log_node']) expect(await count(database, table)).toBe(0)
    expect(await store.log.readTreeSize()).toBe(0)
    const next = newContext()
    expect(await store.insertContext(next)).toEqual({ ok: true, leafIndex: 0 })
    await expectDenseLog(store, new Map([[0, next]]))
  })

  it('keeps the log dense across two store instances publishing concurrently on one schema', async () => {
    const { store: one, database } = await openStore()
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)
    const second = await openDatabase<RegistryDatabase>({
      kind: 'postgres',
      url: url as string,
      schema: rows[0]?.schema as string,
    })
    opened.push(second)
    const two = createKyselyStore(second)
    const acknowledged = new Map<number, NewContext>()
    const publish = async (store: RegistryStore, n: number) => {
      for (let i = 0; i < n; i++) {
        const burst = Array.from({ length: 8 }, () => newContext())
        const results = await Promise.all(burst.map((ctx) => store.insertContext(ctx)))
        results.forEach((result, k) => {
          if (!result.ok || result.leafIndex === null) throw new Error('publish refused')
          expect(acknowledged.has(result.leafIndex)).toBe(false)
          acknowledged.set(result.leafIndex, burst[k] as NewContext)
        })
      }
    }
    await Promise.all([publish(one, 15), publish(two, 15), publish(one, 10), publish(two, 10)])
    expect(acknowledged.size).toBe(400)
    await expectDenseLog(one, acknowledged)
    await expectDenseLog(two, acknowledged)
  })
})
