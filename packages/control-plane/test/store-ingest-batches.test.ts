/**
 * The ingest writer's batches over many event-loop turns and from several store instances on one database:
 * counters equal stored events, every acknowledged event is stored once, a failing event fails alone.
 * SQLite always; PostgreSQL with ACDP_TEST_DATABASE_URL (there also two store instances on one schema).
 */
import { type Database, openDatabase, testDatabaseTargets, testDatabaseUrl } from '@acdp/storage'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type pg from 'pg'
import { EventWriter } from '../src/store/event-writer.js'
import { createKyselyStore } from '../src/store/kysely-store.js'
import type { ControlPlaneTables } from '../src/store/schema.js'
import type { ControlPlaneStore, NewEvent, StoreTransaction } from '../src/store/store.js'
import { buildPublishEvent } from './support/new-event.js'
import { openMigratedStore } from './support/store-targets.js'

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
const RUNS = 10
const AGENTS = 5

let seq = 0
function event(overrides: Partial<NewEvent> = {}): NewEvent {
  seq += 1
  const identity = {
    tenantId: 'tenant-a',
    dedupKey: `evt:${seq}`,
    eventId: `${seq}`,
    ctxId: `acdp://reg.example/ctx-${seq}`,
    runId: `run-${seq % RUNS}`,
    agentId: `did:key:agent-${seq % AGENTS}`,
    registryBaseUrl: 'https://reg.example',
    eventTs: T0,
    receivedAt: T0 + seq,
  }
  const isPublish = seq % 4 !== 0
  return buildPublishEvent(identity, {
    isPublish,
    type: isPublish ? 'context_published' : 'context_retrieved',
    registryAuthority: seq % 3 === 0 ? 'a.example' : 'b.example',
    ...overrides,
  })
}

/** Resolves on the next check phase: events queued before it form one batch, after it the next. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Every counter row recomputed from the stored events; `expected` and `actual` must be equal. */
async function countersAgainstEvents(db: Database<ControlPlaneTables>['db']): Promise<{
  expected: unknown
  actual: unknown
}> {
  const events = await db
    .selectFrom('context_events')
    .select(['run_id', 'agent_id', 'registry_authority', 'event_type'])
    .execute()
  const runs: Record<string, [number, number]> = {}
  const agents: Record<string, [number, number]> = {}
  const registries: Record<string, number> = {}
  for (const row of events) {
    const isPublish = row.event_type === 'context_published' ? 1 : 0
    if (row.run_id !== null) {
      const run = (runs[row.run_id] ??= [0, 0])
      run[0] += 1
      run[1] += isPublish
    }
    if (row.agent_id !== null) {
      const agent = (agents[row.agent_id] ??= [0, 0])
      agent[0] += 1
      agent[1] += isPublish
    }
    registries[row.registry_authority] = (registries[row.registry_authority] ?? 0) + 1
  }
  const runRows = await db.selectFrom('runs').select(['run_id', 'events_count', 'contexts_count']).execute()
  const agentRows = await db.selectFrom('agents').select(['agent_did', 'event_count', 'context_count']).execute()
  const registryRows = await db.selectFrom('registries').select(['authority', 'event_count']).execute()
  const activity = await db
    .selectFrom('registry_activity')
    .select((eb) => eb.fn.sum<number>('event_count').as('n'))
    .executeTakeFirstOrThrow()
  return {
    expected: { runs, agents, registries, activity: events.length },
    actual: {
      runs: Object.fromEntries(runRows.map((r) => [r.run_id, [Number(r.events_count), Number(r.contexts_count)]])),
      agents: Object.fromEntries(agentRows.map((r) => [r.agent_did, [Number(r.event_count), Number(r.context_count)]])),
      registries: Object.fromEntries(registryRows.map((r) => [r.authority, Number(r.event_count)])),
      activity: Number(activity.n),
    },
  }
}

describe.each(testDatabaseTargets())('ingest batches on $name', (target) => {
  let store: ControlPlaneStore
  let database: Database<ControlPlaneTables>

  beforeEach(async () => {
    ;({ store, database } = await openMigratedStore(target))
  })
  afterEach(async () => {
    await store.close()
  })

  it('events over many turns (many batches) keep counters exact', async () => {
    const writes: Array<Promise<number | undefined>> = []
    for (let turn = 0; turn < 20; turn++) {
      for (let i = 0; i < 15; i++) writes.push(store.recordEvent(event()))
      await nextTurn()
    }
    const ids = await Promise.all(writes)
    expect(ids.every((id) => typeof id === 'number')).toBe(true)
    expect(new Set(ids).size).toBe(300)
    const { expected, actual } = await countersAgainstEvents(database.db)
    expect(actual).toEqual(expected)
    expect(Object.keys((actual as { runs: object }).runs)).toHaveLength(RUNS)
  })

  it('a failing event among many batches fails alone; its neighbours and the counters are as without it', async () => {
    // Settled as they go: the failure arrives while later turns are still being queued.
    const outcomes: Array<Promise<PromiseSettledResult<number | undefined>>> = []
    for (let turn = 0; turn < 5; turn++) {
      for (let i = 0; i < 10; i++) {
        const failing = turn === 2 && i === 4
        const write = store.recordEvent(
          event(),
          failing
            ? async () => {
                throw new Error('hook failed for one event')
              }
            : undefined,
        )
        outcomes.push(
          Promise.allSettled([write]).then(([outcome]) => outcome as PromiseSettledResult<number | undefined>),
        )
      }
      await nextTurn()
    }
    const settled = await Promise.all(outcomes)
    expect(settled.map((s) => s.status)).toEqual(settled.map((_, index) => (index === 24 ? 'rejected' : 'fulfilled')))
    const stored = await database.db
      .selectFrom('context_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(stored.n)).toBe(49)
    const { expected, actual } = await countersAgainstEvents(database.db)
    expect(actual).toEqual(expected)
  })

  it('one batch with a stored duplicate, a duplicate within it and two tenants sharing a dedup key: ids and counters as event by event', async () => {
    const first = event()
    expect(typeof (await store.recordEvent(first))).toBe('number')
    const fresh = event()
    const otherTenant = event({
      tenantId: 'tenant-b',
      dedupKey: fresh.dedupKey,
      runId: 'run-b',
      agentId: 'did:key:agent-b',
      registryAuthority: 'c.example',
    })
    const writes = [
      store.recordEvent({ ...first }),
      store.recordEvent(fresh),
      store.recordEvent({ ...fresh }),
      store.recordEvent(otherTenant),
      store.recordEvent(event()),
    ]
    const [storedDuplicate, freshId, batchDuplicate, otherId, lastId] = await Promise.all(writes)
    expect(storedDuplicate).toBeUndefined()
    expect(batchDuplicate).toBeUndefined()
    expect([freshId, otherId, lastId].every((id) => typeof id === 'number')).toBe(true)
    expect(new Set([freshId, otherId, lastId]).size).toBe(3)
    const stored = await database.db.selectFrom('context_events').select(['id', 'tenant_id']).execute()
    expect(stored).toHaveLength(4)
    const { expected, actual } = await countersAgainstEvents(database.db)
    expect(actual).toEqual(expected)
  })

  it('a lifecycle event batched with publications is projected, and hooks run inside the batch transaction', async () => {
    const published = event({ ctxId: 'acdp://b.example/ctx-life' })
    await store.recordEvent(published)
    const seen: number[] = []
    const hook = async (tx: StoreTransaction, id: number) => {
      // The event's own row is visible to its hook: the same transaction, not yet committed.
      const row = await tx.selectFrom('context_events').select('id').where('id', '=', id).executeTakeFirst()
      if (row !== undefined) seen.push(Number(row.id))
    }
    const ids = await Promise.all([
      store.recordEvent(event(), hook),
      store.recordEvent(
        event({
          type: 'context_retracted',
          isPublish: false,
          ctxId: 'acdp://b.example/ctx-life',
          eventTs: T0 + 5000,
          lifecycle: { retracted: true, actor: 'did:key:someone', reason: 'test' },
        }),
        hook,
      ),
      store.recordEvent(event(), hook),
    ])
    expect(seen.sort((a, b) => a - b)).toEqual([...ids].map(Number).sort((a, b) => a - b))
    const lifecycle = await database.db
      .selectFrom('context_lifecycle')
      .select(['retracted', 'reason'])
      .where('ctx_id', '=', 'acdp://b.example/ctx-life')
      .executeTakeFirstOrThrow()
    expect({ retracted: Number(lifecycle.retracted), reason: lifecycle.reason }).toEqual({
      retracted: 1,
      reason: 'test',
    })
    const { expected, actual } = await countersAgainstEvents(database.db)
    expect(actual).toEqual(expected)
  })

  it('hooks of a batch written as one statement see their rows, and the batch commits once they return', async () => {
    const seen: number[] = []
    const hook = async (tx: StoreTransaction, id: number) => {
      const row = await tx.selectFrom('context_events').select('id').where('id', '=', id).executeTakeFirst()
      if (row !== undefined) seen.push(Number(row.id))
    }
    const ids = await Promise.all(Array.from({ length: 12 }, () => store.recordEvent(event(), hook)))
    expect(seen.sort((a, b) => a - b)).toEqual(ids.map(Number).sort((a, b) => a - b))
    const stored = await database.db.selectFrom('context_events').select('id').execute()
    expect(stored).toHaveLength(12)
    const { expected, actual } = await countersAgainstEvents(database.db)
    expect(actual).toEqual(expected)
  })

  it('a batch without hooks holding one already-stored event (no repeat within it): that one is a duplicate, the rest stored once, counters exact', async () => {
    const first = event()
    const firstId = await store.recordEvent(first)
    expect(typeof firstId).toBe('number')
    const others = Array.from({ length: 6 }, () => event())
    const ids = await Promise.all([
      store.recordEvent(others[0] as NewEvent),
      store.recordEvent({ ...first }),
      ...others.slice(1).map((e) => store.recordEvent(e)),
    ])
    expect(ids[1]).toBeUndefined()
    const stored = ids.filter((id) => id !== undefined)
    expect(stored).toHaveLength(6)
    expect(new Set([firstId, ...stored]).size).toBe(7)
    const rows = await database.db.selectFrom('context_events').select('id').execute()
    expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(
      [firstId as number, ...(stored as number[])].sort((a, b) => a - b),
    )
    const { expected, actual } = await countersAgainstEvents(database.db)
    expect(actual).toEqual(expected)
  })

  it.runIf(target.name === 'postgres')(
    'a batch without hooks is one statement on its own (no connection checked out for a transaction); with a hook it is a transaction',
    async () => {
      const pool = database.pool as pg.Pool
      const calls = { query: 0, connect: 0 }
      const counting = {
        query: (...args: Parameters<pg.Pool['query']>) => {
          calls.query += 1
          return (pool.query as (...a: unknown[]) => unknown)(...args)
        },
        connect: () => {
          calls.connect += 1
          return pool.connect()
        },
      } as unknown as pg.Pool
      const writer = new EventWriter(database.db, 'postgres', counting)
      const hookless = await Promise.all(Array.from({ length: 10 }, () => writer.record(event(), undefined)))
      expect(hookless.every((id) => typeof id === 'number')).toBe(true)
      expect(calls).toEqual({ query: 1, connect: 0 })
      const hooked = await Promise.all([writer.record(event(), undefined), writer.record(event(), async () => {})])
      expect(hooked.every((id) => typeof id === 'number')).toBe(true)
      expect(calls).toEqual({ query: 1, connect: 1 })
      const { expected, actual } = await countersAgainstEvents(database.db)
      expect(actual).toEqual(expected)
    },
  )

  it.runIf(target.name === 'postgres')(
    'two batches without hooks in flight at once with the same events: each event stored once, acknowledged once, counters exact',
    async () => {
      const pool = database.pool as pg.Pool
      const left = new EventWriter(database.db, 'postgres', pool)
      const right = new EventWriter(database.db, 'postgres', pool)
      const acknowledged: number[] = []
      for (let turn = 0; turn < 5; turn++) {
        const events = Array.from({ length: 20 }, () => event())
        // The right writer gets the same events (in reverse; each statement sorts its rows by key): its batch
        // meets the left one's uncommitted rows on every key.
        const ids = await Promise.all([
          ...events.map((e) => left.record(e, undefined)),
          ...[...events].reverse().map((e) => right.record({ ...e }, undefined)),
        ])
        const leftIds = ids.slice(0, 20)
        const rightIds = ids.slice(20).reverse()
        leftIds.forEach((id, index) => {
          // Exactly one of the two deliveries of each event is acknowledged as stored.
          expect([id, rightIds[index]].filter((x) => x !== undefined)).toHaveLength(1)
        })
        acknowledged.push(...(ids.filter((id) => id !== undefined) as number[]))
      }
      expect(acknowledged).toHaveLength(100)
      const rows = await database.db.selectFrom('context_events').select('id').execute()
      expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual([...acknowledged].sort((a, b) => a - b))
      const { expected, actual } = await countersAgainstEvents(database.db)
      expect(actual).toEqual(expected)
    },
  )

  it.runIf(target.name === 'postgres')(
    'two store instances on one database: concurrent batches keep counters exact and store each event once',
    async () => {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)
      const schema = rows[0]?.schema as string
      const second = createKyselyStore(
        await openDatabase<ControlPlaneTables>({ kind: 'postgres', url: testDatabaseUrl() as string, schema }),
      )
      try {
        const writes: Array<Promise<number | undefined>> = []
        const shared: NewEvent[] = []
        for (let turn = 0; turn < 10; turn++) {
          for (let i = 0; i < 20; i++) {
            const e = event()
            writes.push((i % 2 === 0 ? store : second).recordEvent(e))
            // Every 5th event is delivered to both instances (a retried webhook landing on the other one).
            if (i % 5 === 0) shared.push(e)
          }
          for (const e of shared.splice(0)) writes.push((turn % 2 === 0 ? second : store).recordEvent({ ...e }))
          await nextTurn()
        }
        const ids = await Promise.all(writes)
        const acknowledged = ids.filter((id): id is number => id !== undefined)
        // 200 distinct events; each of the 40 shared ones acknowledged as stored exactly once, else a duplicate.
        expect(acknowledged).toHaveLength(200)
        expect(new Set(acknowledged).size).toBe(200)
        const stored = await database.db.selectFrom('context_events').select(['id']).execute()
        expect(stored.map((row) => Number(row.id)).sort((a, b) => a - b)).toEqual(
          [...acknowledged].sort((a, b) => a - b),
        )
        const { expected, actual } = await countersAgainstEvents(database.db)
        expect(actual).toEqual(expected)
      } finally {
        await second.close()
      }
    },
  )
})
