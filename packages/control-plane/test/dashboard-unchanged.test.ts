/**
 * GET /dashboard/overview answers byte for byte what the statements it replaced answered (one query per
 * aggregate, runs counted by scanning `runs`), for the same data, on every window: the rollup and the merged
 * statements change how the numbers are read, not the numbers, their order or the response's bytes.
 */
import { testDatabaseTargets } from '@acdp/storage'
import type { Kysely } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { ControlPlaneTables } from '../src/store/schema.js'
import type { DashboardAggregates, RunRecord, RunStatus } from '../src/store/store.js'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const MINUTE = 60_000

/** The overview's aggregates as the store read them before migration 0830: one statement each. */
async function previousAggregates(
  db: Kysely<ControlPlaneTables>,
  query: { tenantId: string; since: number; bucketSince: number },
): Promise<DashboardAggregates> {
  const { tenantId, since, bucketSince } = query
  const runsInWindow = db.selectFrom('runs').where('tenant_id', '=', tenantId).where('started_at', '>=', since)
  const [runCount, agentCount, retractedCount, recent, scenarios, registries, methods] = await Promise.all([
    runsInWindow.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    db
      .selectFrom('agents')
      .where('tenant_id', '=', tenantId)
      .where('last_seen', '>=', since)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('context_lifecycle')
      .where('tenant_id', '=', tenantId)
      .where('retracted', '=', 1)
      .where('retracted_at', '>=', since)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    runsInWindow.selectAll().orderBy('started_at', 'desc').orderBy('run_id', 'asc').limit(10).execute(),
    runsInWindow
      .select(['scenario_id', (eb) => eb.fn.countAll<number>().as('run_count')])
      .groupBy('scenario_id')
      .orderBy('run_count', 'desc')
      .orderBy('scenario_id', 'asc')
      .limit(100)
      .execute(),
    db
      .selectFrom('registry_activity')
      .where('tenant_id', '=', tenantId)
      .where('bucket_start', '>=', bucketSince)
      .select((eb) => [
        'registry_authority',
        eb.fn.sum<number>('event_count').as('event_count'),
        eb.fn.sum<number>('publish_count').as('publish_count'),
        eb.fn.sum<number>('receipt_count').as('receipt_count'),
      ])
      .groupBy('registry_authority')
      .orderBy('event_count', 'desc')
      .orderBy('registry_authority', 'asc')
      .limit(100)
      .execute(),
    db
      .selectFrom('did_method_activity')
      .where('tenant_id', '=', tenantId)
      .where('bucket_start', '>=', bucketSince)
      .select((eb) => ['method', eb.fn.sum<number>('publish_count').as('publish_count')])
      .groupBy('method')
      .orderBy('publish_count', 'desc')
      .orderBy('method', 'asc')
      .limit(100)
      .execute(),
  ])
  const recentRuns: RunRecord[] = []
  for (const row of recent) {
    const links = await db
      .selectFrom('run_registries')
      .select('registry_authority')
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', row.run_id)
      .orderBy('registry_authority')
      .execute()
    recentRuns.push({
      tenantId: row.tenant_id,
      runId: row.run_id,
      scenarioId: row.scenario_id,
      status: row.status as RunStatus,
      startedAt: Number(row.started_at),
      completedAt: row.completed_at === null ? null : Number(row.completed_at),
      inputsJson: row.inputs,
      resultJson: row.result,
      eventsCount: Number(row.events_count),
      contextsCount: Number(row.contexts_count),
      registries: links.map((l) => l.registry_authority),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    })
  }
  return {
    totalRuns: Number(runCount.n),
    totalAgents: Number(agentCount.n),
    totalRetracted: Number(retractedCount.n),
    recentRuns,
    byScenario: scenarios.map((s) => ({ scenarioId: s.scenario_id, runCount: Number(s.run_count) })),
    byRegistry: registries.map((r) => ({
      registryAuthority: r.registry_authority,
      eventCount: Number(r.event_count),
      publishCount: Number(r.publish_count),
      receiptCount: Number(r.receipt_count),
    })),
    didMethods: methods.map((m) => ({ method: m.method, publishCount: Number(m.publish_count) })),
  }
}

describe.each(testDatabaseTargets())('dashboard overview unchanged on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('answers the same bytes as the per-aggregate statements, on every window', async () => {
    t = await openTestApp(target, { DASHBOARD_CACHE_MS: '0' })
    // Useful data over 40 hours, 7 minutes apart (never on an hour), so every window starts inside a rollup hour.
    for (let i = 0; i < 340; i++) {
      const registry = i % 3 === 0 ? 'b.example' : 'reg.example'
      const body =
        i % 5 === 4
          ? retrievedEvent({
              run_id: `run-${i % 23}`,
              registry_authority: registry,
              ctx_id: `acdp://${registry}/r-${i}`,
            })
          : publishedEvent({
              run_id: `run-${i % 23}-${Math.floor(i / 60)}`,
              scenario_id: `sc-${i % 4}`,
              registry_authority: registry,
              ctx_id: `acdp://${registry}/ctx-${i}`,
              agent_id: i % 2 === 0 ? 'did:web:agent.example' : `did:key:z6MkAgent${i % 3}`,
              ...(i % 2 === 0 ? { registry_receipt: { sig: `s${i}` } } : {}),
            })
      const res = await t.app.inject(signedDelivery(body))
      expect(res.statusCode, res.payload).toBe(204)
      t.advance(7 * MINUTE)
    }
    const db = t.deps.database.db
    const store = t.store
    const current = store.loadDashboard.bind(store)
    let previous = false
    store.loadDashboard = (query) => (previous ? previousAggregates(db, query) : current(query))

    for (const window of ['1h', '6h', '24h', '7d', '30d']) {
      const get = () =>
        t.app.inject({ method: 'GET', url: `/dashboard/overview?window=${window}`, headers: bearer(USER_KEY) })
      previous = false
      const now = await get()
      previous = true
      const before = await get()
      expect(now.statusCode).toBe(200)
      expect(before.statusCode).toBe(200)
      expect(now.payload).toBe(before.payload)
      expect(now.json().totalRuns).toBeGreaterThan(0)
    }
    // A window whose runs the rollup holds in whole hours and in a partial one: several scenarios in it.
    expect((await current({ tenantId: 'default', since: 0, bucketSince: 0 })).byScenario.length).toBeGreaterThan(3)
  })
})
