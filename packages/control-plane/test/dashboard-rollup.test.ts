/**
 * The dashboard's aggregates stay exactly equal to a from-scratch aggregate of what is stored: the counters of
 * `context_events` (events, publications, receipts per registry, publications per DID method, agents seen) and
 * the `runs` table (runs and runs per scenario in the window, the most recent runs). The run counts come from
 * the `run_activity` rollup (migration 0830), kept by triggers on `runs`; the workload moves runs between
 * rollup keys the ways the API allows (an explicit started_at on POST /runs, a scenario set after the first
 * event, a completion creating a run), concurrently, and on PostgreSQL from two store instances on one schema.
 */
import { randomBytes } from 'node:crypto'
import { type Database, migrateToLatest, openDatabase, testDatabaseTargets, testDatabaseUrl } from '@acdp/storage'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { CONTROL_PLANE_MIGRATIONS } from '../src/store/migrations/index.js'
import { RUN_ACTIVITY_BUCKET_MS } from '../src/store/migrations/0830_run_activity.js'
import type { ControlPlaneTables } from '../src/store/schema.js'
import type { ControlPlaneStore, DashboardAggregates, NewEvent } from '../src/store/store.js'
import { buildPublishEvent } from './support/new-event.js'
import { openMigratedStore } from './support/store-targets.js'

const HOUR = 3_600_000
const BUCKET = 300_000
/** Not aligned to an hour or a bucket, so windows start inside a rollup hour. */
const NOW = Date.UTC(2026, 0, 20, 12, 34, 56, 789)
const TENANTS = ['tenant-a', 'tenant-b']
const REGISTRIES = ['alpha.example', 'beta.example']

/** One write of the workload, on whichever store runs it. */
type Operation = (store: ControlPlaneStore) => Promise<unknown>

/**
 * A deterministic mixed workload: publications and retrievals over 30 hours (some redelivered), retractions,
 * run starts that move a run to another hour or scenario, starts of runs without events, completions.
 */
function workload(): Operation[] {
  const operations: Operation[] = []
  for (let i = 0; i < 400; i++) {
    const tenantId = TENANTS[i % 5 === 0 ? 1 : 0] as string
    const receivedAt = NOW - ((i * 7919) % (30 * HOUR))
    const method = i % 3 === 0 ? 'web' : 'key'
    const agentId = method === 'web' ? `did:web:agent${i % 4}.example` : `did:key:z6MkAgent${i % 6}`
    const isPublish = i % 6 !== 5
    const event: NewEvent = buildPublishEvent(
      {
        tenantId,
        // Every 40th delivery repeats an earlier one: a duplicate writes nothing.
        dedupKey: `evt:${i % 40 === 39 ? i - 1 : i}`,
        eventId: `${i}`,
        ctxId: `acdp://alpha.example/ctx-${i}`,
        runId: i % 11 === 10 ? null : `run${String(i % 37).padStart(2, '0')}`,
        agentId,
        registryBaseUrl: null,
        eventTs: receivedAt,
        receivedAt,
      },
      {
        type: isPublish ? 'context_published' : 'context_retrieved',
        isPublish,
        didMethod: isPublish ? method : null,
        registryAuthority: REGISTRIES[i % 4 === 0 ? 1 : 0] as string,
        receiptPresent: i % 2 === 0,
        scenarioId: i % 3 === 1 ? null : `scenario${i % 5}`,
        bucketStart: receivedAt - (receivedAt % BUCKET),
      },
    )
    operations.push((store) => store.recordEvent(event))
    if (i % 23 === 0) {
      const at = receivedAt + 1000
      operations.push((store) =>
        store.recordEvent(
          buildPublishEvent(
            {
              tenantId,
              dedupKey: `retract:${i}`,
              eventId: `r${i}`,
              ctxId: event.ctxId,
              runId: null,
              agentId: null,
              registryBaseUrl: null,
              eventTs: at,
              receivedAt: at,
            },
            {
              type: 'context_retracted',
              registryAuthority: event.registryAuthority,
              isPublish: false,
              didMethod: null,
              lifecycle: { retracted: true, actor: null, reason: null },
            },
          ),
        ),
      )
    }
    if (i % 17 === 3) {
      // Moves the run to another hour (or keeps its time) and sets its scenario.
      const startedAt = i % 2 === 0 ? NOW - ((i * 104_729) % (28 * HOUR)) : null
      const runId = `run${String(i % 37).padStart(2, '0')}`
      operations.push((store) =>
        store.startRun({ tenantId, runId, scenarioId: `scenario${(i + 2) % 5}`, startedAt, inputs: null, now: NOW }),
      )
    }
    if (i % 29 === 0) {
      const runId = `solo${String(i).padStart(3, '0')}`
      operations.push((store) =>
        i % 2 === 0
          ? store.startRun({
              tenantId,
              runId,
              scenarioId: 'scenario9',
              startedAt: NOW - 2 * HOUR,
              inputs: null,
              now: NOW,
            })
          : store.completeRun({ tenantId, runId, status: 'completed', result: null, now: NOW - 90_000 }),
      )
    }
  }
  return operations
}

/** Runs every operation at once, alternating between `stores`, so batches form and interleave. */
async function runConcurrently(operations: Operation[], stores: ControlPlaneStore[]): Promise<void> {
  await Promise.all(operations.map((operation, index) => operation(stores[index % stores.length] as ControlPlaneStore)))
}

const byCountThenKey =
  <T>(count: (t: T) => number, key: (t: T) => string) =>
  (x: T, y: T) =>
    count(y) - count(x) || (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0)

/** The dashboard aggregates recomputed from the stored rows, without any rollup. */
async function fromScratch(
  database: Database<ControlPlaneTables>,
  query: { tenantId: string; since: number; bucketSince: number },
): Promise<DashboardAggregates> {
  const { tenantId, since, bucketSince } = query
  const db = database.db
  const events = await db.selectFrom('context_events').selectAll().where('tenant_id', '=', tenantId).execute()
  const runs = (await db.selectFrom('runs').selectAll().where('tenant_id', '=', tenantId).execute()).filter(
    (r) => Number(r.started_at) >= since,
  )
  const links = await db.selectFrom('run_registries').selectAll().where('tenant_id', '=', tenantId).execute()
  const retracted = await db
    .selectFrom('context_lifecycle')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('retracted', '=', 1)
    .execute()

  const scenarios = new Map<string, number>()
  for (const run of runs) scenarios.set(run.scenario_id, (scenarios.get(run.scenario_id) ?? 0) + 1)
  const registries = new Map<string, { eventCount: number; publishCount: number; receiptCount: number }>()
  const methods = new Map<string, number>()
  const lastSeen = new Map<string, number>()
  for (const e of events) {
    if (e.agent_id !== null) lastSeen.set(e.agent_id, Math.max(lastSeen.get(e.agent_id) ?? 0, Number(e.received_at)))
    if (Number(e.received_at) < bucketSince) continue
    const isPublish = e.event_type === 'context_published'
    const r = registries.get(e.registry_authority) ?? { eventCount: 0, publishCount: 0, receiptCount: 0 }
    r.eventCount += 1
    r.publishCount += isPublish ? 1 : 0
    r.receiptCount += isPublish && Number(e.receipt_present) === 1 ? 1 : 0
    registries.set(e.registry_authority, r)
    if (isPublish && e.agent_id !== null) {
      const method = e.agent_id.split(':')[1] as string
      methods.set(method, (methods.get(method) ?? 0) + 1)
    }
  }
  const recent = [...runs]
    .sort((a, b) => Number(b.started_at) - Number(a.started_at) || (a.run_id < b.run_id ? -1 : 1))
    .slice(0, 10)
  return {
    totalRuns: runs.length,
    totalAgents: [...lastSeen.values()].filter((seen) => seen >= since).length,
    totalRetracted: retracted.filter((l) => Number(l.retracted_at) >= since).length,
    recentRuns: recent.map((r) => ({
      tenantId: r.tenant_id,
      runId: r.run_id,
      scenarioId: r.scenario_id,
      status: r.status as DashboardAggregates['recentRuns'][number]['status'],
      startedAt: Number(r.started_at),
      completedAt: r.completed_at === null ? null : Number(r.completed_at),
      inputsJson: r.inputs,
      resultJson: r.result,
      eventsCount: Number(r.events_count),
      contextsCount: Number(r.contexts_count),
      registries: links
        .filter((l) => l.run_id === r.run_id)
        .map((l) => l.registry_authority)
        .sort(),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    })),
    byScenario: [...scenarios.entries()]
      .map(([scenarioId, runCount]) => ({ scenarioId, runCount }))
      .sort(
        byCountThenKey(
          (s) => s.runCount,
          (s) => s.scenarioId,
        ),
      ),
    byRegistry: [...registries.entries()]
      .map(([registryAuthority, r]) => ({ registryAuthority, ...r }))
      .sort(
        byCountThenKey(
          (r) => r.eventCount,
          (r) => r.registryAuthority,
        ),
      ),
    didMethods: [...methods.entries()]
      .map(([method, publishCount]) => ({ method, publishCount }))
      .sort(
        byCountThenKey(
          (m) => m.publishCount,
          (m) => m.method,
        ),
      ),
  }
}

/** The rollup's non-zero rows and a GROUP BY over `runs` of the same key, both sorted. */
async function rollupAndRuns(database: Database<ControlPlaneTables>) {
  const rollup = await database.db
    .selectFrom('run_activity')
    .select(['tenant_id', 'bucket_start', 'scenario_id', 'run_count'])
    .where('run_count', '<>', 0)
    .orderBy('tenant_id')
    .orderBy('bucket_start')
    .orderBy('scenario_id')
    .execute()
  const bucket = sql<number>`(started_at / ${sql.lit(RUN_ACTIVITY_BUCKET_MS)}) * ${sql.lit(RUN_ACTIVITY_BUCKET_MS)}`
  const grouped = await database.db
    .selectFrom('runs')
    .select(['tenant_id', bucket.as('bucket_start'), 'scenario_id', (eb) => eb.fn.countAll<number>().as('run_count')])
    .groupBy(['tenant_id', bucket, 'scenario_id'])
    .orderBy('tenant_id')
    .orderBy('bucket_start')
    .orderBy('scenario_id')
    .execute()
  const normalise = (
    rows: Array<{ tenant_id: string; bucket_start: unknown; scenario_id: string; run_count: unknown }>,
  ) => rows.map((r) => [r.tenant_id, Number(r.bucket_start), r.scenario_id, Number(r.run_count)])
  return { rollup: normalise(rollup), runs: normalise(grouped) }
}

/** Windows ending at NOW: the overview's five, one starting on an exact hour, one before all data. */
const SINCES = [
  NOW - HOUR,
  NOW - 6 * HOUR,
  NOW - 24 * HOUR,
  NOW - 7 * 24 * HOUR,
  Math.floor((NOW - 5 * HOUR) / HOUR) * HOUR,
  NOW - 29 * HOUR - 17,
]

async function expectExact(database: Database<ControlPlaneTables>, stores: ControlPlaneStore[]) {
  const { rollup, runs } = await rollupAndRuns(database)
  expect(runs.length).toBeGreaterThan(20)
  expect(rollup).toEqual(runs)
  for (const tenantId of TENANTS) {
    for (const since of SINCES) {
      const query = { tenantId, since, bucketSince: Math.floor(since / BUCKET) * BUCKET }
      const expected = await fromScratch(database, query)
      for (const store of stores) expect(await store.loadDashboard(query)).toEqual(expected)
    }
  }
}

describe.each(testDatabaseTargets())('dashboard aggregates on $name', (target) => {
  let store: ControlPlaneStore | undefined
  afterEach(async () => {
    await store?.close()
    store = undefined
  })

  it('equal a from-scratch aggregate of the stored events and runs after a concurrent mixed workload', async () => {
    const opened = await openMigratedStore(target)
    store = opened.store
    await runConcurrently(workload(), [opened.store])
    const sample = await fromScratch(opened.database, { tenantId: 'tenant-a', since: NOW - 24 * HOUR, bucketSince: 0 })
    // The workload reaches every path: several scenarios and registries, both methods, retractions.
    expect(sample.byScenario.length).toBeGreaterThan(3)
    expect(sample.byRegistry).toHaveLength(2)
    expect(sample.didMethods).toHaveLength(2)
    expect(sample.totalRetracted).toBeGreaterThan(0)
    await expectExact(opened.database, [opened.store])
  })

  it('the migration counts the runs that existed before it', async () => {
    const database = (await target.open()) as Database<ControlPlaneTables>
    const table = `acdp_cp_migration_${randomBytes(4).toString('hex')}`
    const before = CONTROL_PLANE_MIGRATIONS.filter((m) => m.name < '0830')
    await migrateToLatest(database, [...before], { table })
    store = createKyselyStore(database)
    await runConcurrently(workload(), [store])
    const { applied } = await migrateToLatest(database, [...CONTROL_PLANE_MIGRATIONS], { table })
    expect(applied).toContain('0830_run_activity')
    await expectExact(database, [store])
  })
})

const pgUrl = testDatabaseUrl()

describe.skipIf(pgUrl === undefined)('dashboard aggregates, two store instances on one PostgreSQL schema', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('equal a from-scratch aggregate after both instances ingest and start runs concurrently', async () => {
    const { default: pg } = await import('pg')
    const url = pgUrl as string
    const schema = `acdp_t_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`CREATE SCHEMA ${schema}`)
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await admin.end()
    })
    const first = await openDatabase<ControlPlaneTables>({ kind: 'postgres', url, schema })
    const second = await openDatabase<ControlPlaneTables>({ kind: 'postgres', url, schema })
    await migrateToLatest(first, [...CONTROL_PLANE_MIGRATIONS], { table: `acdp_cp_migration_${schema}` })
    const stores = [createKyselyStore(first), createKyselyStore(second)]
    cleanups.push(async () => {
      for (const s of stores) await s.close()
    })
    await runConcurrently(workload(), stores)
    await expectExact(first, stores)
  })
})
