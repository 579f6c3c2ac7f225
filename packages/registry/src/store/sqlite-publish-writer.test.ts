/**
 * Group commit: publishes written together keep their own outcomes (both dialects, through the store), and the
 * SQLite writer's transaction handling (one transaction per event-loop turn, refusal next to a foreign
 * transaction, a lost transaction failing the whole batch).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { type Database, openDatabase, testDatabaseTargets, WriterGate } from '@acdp/storage'
import type { CompiledQuery } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { computeLeafHash } from '@acdp/protocol'
import { runLogSelfCheck } from '../log/log-self-check.js'
import { createCompiledStatements } from './compiled-statements.js'
import { createKyselyStore } from './kysely-store.js'
import { migrateRegistryDatabase } from './open-store.js'
import type { RegistryDatabase } from './schema.js'
import { MAX_PUBLISHES_PER_TRANSACTION, SqlitePublishWriter } from './sqlite-publish-writer.js'
import { SqliteStatements } from './sqlite-statements.js'
import type { IdempotencyRecord, NewContext } from './store.js'

const AGENT = 'did:web:agents.example.com:alice'

function newContext(overrides: Partial<NewContext> = {}): NewContext {
  const ctxId = overrides.ctxId ?? `acdp://registry.example.com/${randomUUID()}`
  return {
    ctxId,
    tenantId: 'default',
    lineageId: `lin:sha256:${randomBytes(32).toString('hex')}`,
    version: 1,
    supersedes: null,
    agentId: AGENT,
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: [],
    title: 'Title',
    summary: null,
    description: null,
    domain: null,
    schemaUri: null,
    tags: ['a', 'b'],
    derivedFrom: [],
    contentHash: `sha256:${'c'.repeat(64)}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    createdAtMs: 1_767_225_600_000,
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText: `{"ctx_id":"${ctxId}"}`,
    registryReceipt: null,
    logLeaf: null,
    ...overrides,
  }
}

function keyRecord(ctxId: string, idempotencyKey: string): IdempotencyRecord {
  return {
    tenantId: 'default',
    agentId: AGENT,
    idempotencyKey,
    contentHash: `sha256:${'c'.repeat(64)}`,
    signatureAlgorithm: 'ed25519',
    signatureKeyId: `${AGENT}#key-1`,
    signatureValue: `${'A'.repeat(86)}==`,
    ctxId,
    responseJson: `{"ctx_id":"${ctxId}"}`,
    createdAtMs: 1000,
    expiresAtMs: 1000 + 86_400_000,
  }
}

async function countRows(
  database: Database<RegistryDatabase>,
  table: 'context' | 'context_tag' | 'idempotency_record',
) {
  const row = await database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describe.each(testDatabaseTargets())('concurrent publishes on $name', (target) => {
  let database: Database<RegistryDatabase> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })

  it('keeps log leaf indexes dense when publishes of one turn conflict or fail, and the log verifies', async () => {
    database = (await target.open()) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    const store = createKyselyStore(database)
    const logged = (overrides: Partial<NewContext> = {}) => {
      const context = newContext(overrides)
      const leafJson = JSON.stringify({ leaf: context.ctxId })
      return { ...context, logLeaf: { leafJson, leafHash: computeLeafHash(new TextEncoder().encode(leafJson)) } }
    }
    const first = logged()
    expect(await store.insertContext(first, keyRecord(first.ctxId, 'taken'))).toEqual({ ok: true, leafIndex: 0 })
    const a = logged()
    const conflicting = logged()
    const b = logged()
    const broken = logged({ ctxId: first.ctxId })
    const c = logged()
    const settled = await Promise.allSettled([
      store.insertContext(a),
      store.insertContext(conflicting, keyRecord(conflicting.ctxId, 'taken')),
      store.insertContext(b),
      store.insertContext(broken),
      store.insertContext(c),
    ])
    const outcomes = settled.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))
    expect(outcomes[1]).toEqual({ ok: false, conflict: 'idempotency_key' })
    expect(outcomes[3]).toBe('rejected')
    // SQLite commits one turn's publishes in submission order; PostgreSQL commits concurrent transactions in
    // whatever order they reach the log head, so only the set of indexes is fixed there: dense, no gap for the
    // conflict or the failure.
    const indexes = [outcomes[0], outcomes[2], outcomes[4]].map((o) => (o as { leafIndex: number }).leafIndex)
    if (target.name === 'sqlite') expect(indexes).toEqual([1, 2, 3])
    else expect([...indexes].sort()).toEqual([1, 2, 3])
    expect(await store.insertContext(logged())).toEqual({ ok: true, leafIndex: 4 })
    expect(await store.log.readTreeSize()).toBe(5)
    const texts = await store.log.listLeafTexts(0, 10)
    expect(texts.map((t) => t.leafIndex)).toEqual([0, 1, 2, 3, 4])
    const check = await runLogSelfCheck(store.log, {
      logId: 'did:web:registry.example.com/log/1',
      checkpointKeys: new Map(),
    })
    expect(check).toEqual({ ok: true, treeSize: 5, checkpointTreeSize: null })
  })

  it('gives each publish of one turn its own outcome; a conflict or an error leaves nothing of its publish behind', async () => {
    database = (await target.open()) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    const store = createKyselyStore(database)
    const head = newContext()
    const superseded = newContext()
    const taken = newContext()
    await store.insertContext(head)
    await store.insertContext(superseded)
    await store.insertContext(newContext({ version: 2, supersedes: superseded.ctxId, lineageId: superseded.lineageId }))
    await store.insertContext(taken, keyRecord(taken.ctxId, 'taken'))

    const fresh = [newContext(), newContext(), newContext()]
    const successor = newContext({ version: 2, supersedes: head.ctxId, lineageId: head.lineageId })
    // Claims its key, then loses the supersession: the claim must be rolled back with it.
    const late = newContext({ version: 2, supersedes: superseded.ctxId, lineageId: superseded.lineageId })
    const reused = newContext()
    // Claims its key, then collides on the primary key: an error for this publish alone.
    const duplicate = newContext({ ctxId: head.ctxId })
    const settled = await Promise.allSettled([
      store.insertContext(fresh[0]!, keyRecord(fresh[0]!.ctxId, 'fresh-0')),
      store.insertContext(late, keyRecord(late.ctxId, 'late')),
      store.insertContext(fresh[1]!),
      store.insertContext(reused, keyRecord(reused.ctxId, 'taken')),
      store.insertContext(duplicate, keyRecord(duplicate.ctxId, 'duplicate')),
      store.insertContext(successor),
      store.insertContext(fresh[2]!),
    ])

    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'rejected'))).toEqual([
      { ok: true, leafIndex: null },
      { ok: false, conflict: 'already_superseded' },
      { ok: true, leafIndex: null },
      { ok: false, conflict: 'idempotency_key' },
      'rejected',
      { ok: true, leafIndex: null },
      { ok: true, leafIndex: null },
    ])
    for (const ctx of [...fresh, successor])
      expect((await store.findContext(ctx.ctxId, 'default'))?.ctxId).toBe(ctx.ctxId)
    expect(await store.findContext(late.ctxId, 'default')).toBeUndefined()
    expect(await store.findContext(reused.ctxId, 'default')).toBeUndefined()
    expect(await store.findIdempotencyRecord(AGENT, 'fresh-0', 0, 'default')).toMatchObject({ ctxId: fresh[0]!.ctxId })
    expect(await store.findIdempotencyRecord(AGENT, 'late', 0, 'default')).toBeUndefined()
    expect(await store.findIdempotencyRecord(AGENT, 'duplicate', 0, 'default')).toBeUndefined()
    expect(await store.findIdempotencyRecord(AGENT, 'taken', 0, 'default')).toMatchObject({ ctxId: taken.ctxId })
    expect(await store.findStatusInputs(head.ctxId)).toEqual({
      supersededBy: successor.ctxId,
      retracted: false,
      lifecycleEventsJson: null,
    })
    // 4 contexts before, 4 new; 2 tags each; the 'taken' and 'fresh-0' records only.
    expect(await countRows(database, 'context')).toBe(8)
    expect(await countRows(database, 'context_tag')).toBe(16)
    expect(await countRows(database, 'idempotency_record')).toBe(2)
  })
})

/** Counts the transactions the writer begins and can make one chosen context insert fail. */
class ObservedStatements extends SqliteStatements {
  begins = 0
  savepoints = 0
  rollbacks = 0
  /** The ctx_id whose context insert fails after SQLite ended the transaction (as on SQLITE_FULL or IOERR). */
  failTransactionAt: string | undefined

  override statement(text: string) {
    if (text === 'BEGIN IMMEDIATE') this.begins++
    if (text === 'SAVEPOINT publish') this.savepoints++
    if (text === 'ROLLBACK') this.rollbacks++
    return super.statement(text)
  }

  override run(query: CompiledQuery): number {
    if (this.failTransactionAt !== undefined && query.sql.startsWith('insert into "context"')) {
      if (query.parameters[0] === this.failTransactionAt) {
        this.raw.exec('ROLLBACK')
        throw new Error('database or disk is full')
      }
    }
    return super.run(query)
  }
}

describe('the SQLite group-commit writer', () => {
  let database: Database<RegistryDatabase> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })

  async function openWriter() {
    database = await openDatabase<RegistryDatabase>({ kind: 'sqlite', path: ':memory:' })
    await migrateRegistryDatabase(database)
    const statements = new ObservedStatements(database.sqlite!.raw)
    return { statements, writer: new SqlitePublishWriter(statements, createCompiledStatements(database.db, 'sqlite')) }
  }

  it('waits, without blocking the event loop, while the checkpoint worker holds the writer gate; then writes the queue in one transaction', async () => {
    database = await openDatabase<RegistryDatabase>({ kind: 'sqlite', path: ':memory:' })
    await migrateRegistryDatabase(database)
    const statements = new ObservedStatements(database.sqlite!.raw)
    // The gate's two flags (checkpoint, writer), raised here as the checkpoint worker would.
    const buffer = new SharedArrayBuffer(8)
    const flags = new Int32Array(buffer)
    const writer = new SqlitePublishWriter(
      statements,
      createCompiledStatements(database.db, 'sqlite'),
      new WriterGate(buffer),
    )
    Atomics.store(flags, 0, 1)
    let settled = 0
    const first = writer.write(newContext(), undefined).then((result) => (settled++, result))
    await new Promise((resolve) => setTimeout(resolve, 30))
    // The event loop ran (this timer fired) and nothing was written while the flag was up.
    expect(settled).toBe(0)
    expect(statements.begins).toBe(0)
    const second = writer.write(newContext(), undefined).then((result) => (settled++, result))
    Atomics.store(flags, 0, 0)
    Atomics.notify(flags, 0)
    expect(await Promise.all([first, second])).toEqual([
      { ok: true, leafIndex: null },
      { ok: true, leafIndex: null },
    ])
    expect(statements.begins).toBe(1)
    // The writer's own flag is down again between transactions.
    expect(Atomics.load(flags, 1)).toBe(0)
  })

  it('writes the publishes queued in one event-loop turn in one transaction', async () => {
    const { statements, writer } = await openWriter()
    const results = await Promise.all(Array.from({ length: 10 }, () => writer.write(newContext(), undefined)))
    expect(results).toEqual(Array.from({ length: 10 }, () => ({ ok: true, leafIndex: null })))
    expect(statements.begins).toBe(1)
    await writer.write(newContext(), undefined)
    await writer.write(newContext(), undefined)
    expect(statements.begins).toBe(3)
    expect(await countRows(database!, 'context')).toBe(12)
  })

  it('writes a batch without refusals without savepoints; one refusal redoes the batch publish by publish', async () => {
    const { statements, writer } = await openWriter()
    const logged = () => {
      const context = newContext()
      const leafJson = JSON.stringify({ leaf: context.ctxId })
      return { ...context, logLeaf: { leafJson, leafHash: computeLeafHash(new TextEncoder().encode(leafJson)) } }
    }
    const clean = await Promise.all([logged(), logged(), logged()].map((ctx) => writer.write(ctx, undefined)))
    expect(clean.map((o) => o.ok && o.leafIndex)).toEqual([0, 1, 2])
    expect([statements.begins, statements.savepoints, statements.rollbacks]).toEqual([1, 0, 0])

    const first = logged()
    expect(await writer.write(first, keyRecord(first.ctxId, 'taken'))).toEqual({ ok: true, leafIndex: 3 })
    const batch = [logged(), logged(), logged()]
    const outcomes = await Promise.all(
      batch.map((ctx, i) => writer.write(ctx, i === 1 ? keyRecord(ctx.ctxId, 'taken') : undefined)),
    )
    expect(outcomes).toEqual([
      { ok: true, leafIndex: 4 },
      { ok: false, conflict: 'idempotency_key' },
      { ok: true, leafIndex: 5 },
    ])
    // The first attempt rolled back once; the redo ran one savepoint per publish.
    expect([statements.begins, statements.savepoints, statements.rollbacks]).toEqual([4, 3, 1])
    expect(await countRows(database!, 'context')).toBe(6)
    const log = createKyselyStore(database!).log
    expect(await log.readTreeSize()).toBe(6)
    const check = await runLogSelfCheck(log, { logId: 'did:web:registry.example.com/log/1', checkpointKeys: new Map() })
    expect(check).toEqual({ ok: true, treeSize: 6, checkpointTreeSize: null })
  })

  it(`splits a queue longer than ${MAX_PUBLISHES_PER_TRANSACTION} publishes over several transactions`, async () => {
    const { statements, writer } = await openWriter()
    const count = MAX_PUBLISHES_PER_TRANSACTION + 1
    await Promise.all(Array.from({ length: count }, () => writer.write(newContext(), undefined)))
    expect(statements.begins).toBe(2)
    expect(await countRows(database!, 'context')).toBe(count)
  })

  it('refuses a batch while another transaction is open on the connection, and leaves that transaction alone', async () => {
    const { writer } = await openWriter()
    const raw = database!.sqlite!.raw
    raw.exec('BEGIN')
    await expect(writer.write(newContext(), undefined)).rejects.toThrow(/transaction is already open/)
    expect(raw.isTransaction).toBe(true)
    raw.exec('ROLLBACK')
    expect(await writer.write(newContext(), undefined)).toEqual({ ok: true, leafIndex: null })
    expect(await countRows(database!, 'context')).toBe(1)
  })

  it('fails every publish of the batch when an error ends the transaction, and persists none of them', async () => {
    const { statements, writer } = await openWriter()
    const batch = [newContext(), newContext(), newContext()]
    statements.failTransactionAt = batch[1]!.ctxId
    const settled = await Promise.allSettled(batch.map((ctx) => writer.write(ctx, keyRecord(ctx.ctxId, ctx.ctxId))))
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(database!.sqlite!.raw.isTransaction).toBe(false)
    expect(await countRows(database!, 'context')).toBe(0)
    expect(await countRows(database!, 'idempotency_record')).toBe(0)
    statements.failTransactionAt = undefined
    expect(await writer.write(newContext(), undefined)).toEqual({ ok: true, leafIndex: null })
  })

  it('forgets the log edge of a lost transaction: the next publish takes the first unused index', async () => {
    const { statements, writer } = await openWriter()
    const logged = () => {
      const context = newContext()
      const leafJson = JSON.stringify({ leaf: context.ctxId })
      return { ...context, logLeaf: { leafJson, leafHash: computeLeafHash(new TextEncoder().encode(leafJson)) } }
    }
    expect(writer.committedTreeSize).toBeUndefined()
    expect(await writer.write(logged(), undefined)).toEqual({ ok: true, leafIndex: 0 })
    expect(writer.committedTreeSize).toBe(1)
    const batch = [logged(), logged(), logged()]
    statements.failTransactionAt = batch[2]!.ctxId
    const settled = await Promise.allSettled(batch.map((ctx) => writer.write(ctx, undefined)))
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected'])
    // The batch's leaves were appended in memory before the transaction was lost: the size is unknown now.
    expect(writer.committedTreeSize).toBeUndefined()
    statements.failTransactionAt = undefined
    expect(await writer.write(logged(), undefined)).toEqual({ ok: true, leafIndex: 1 })
    expect(writer.committedTreeSize).toBe(2)
    const log = createKyselyStore(database!).log
    expect(await log.readTreeSize()).toBe(2)
    const check = await runLogSelfCheck(log, { logId: 'did:web:registry.example.com/log/1', checkpointKeys: new Map() })
    expect(check).toEqual({ ok: true, treeSize: 2, checkpointTreeSize: null })
  })
})
