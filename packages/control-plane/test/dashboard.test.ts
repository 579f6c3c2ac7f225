/**
 * GET /dashboard/overview over HTTP, on every dialect: every member, window scoping, tenant scoping.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const HOUR = 3_600_000

async function overview(t: TestApp, query = '', headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'GET',
    url: `/dashboard/overview${query}`,
    headers: { ...bearer(USER_KEY), ...headers },
  })
}

async function ingest(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  expect((await t.app.inject(signedDelivery(body, { headers }))).statusCode).toBe(204)
}

describe.each(testDatabaseTargets())('dashboard on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('reports every member of the overview over the default 24h window', async () => {
    t = await openTestApp(target)
    // Two days ago: outside 24h, inside 7d.
    await ingest(t, publishedEvent({ run_id: 'old', scenario_id: 'sc-old', agent_id: 'did:web:old.example' }))
    t.advance(48 * HOUR)
    const withReceipt = publishedEvent({ run_id: 'r1', scenario_id: 'sc-a', registry_receipt: { sig: 'x' } })
    await ingest(t, withReceipt)
    await ingest(t, publishedEvent({ run_id: 'r2', scenario_id: 'sc-a', agent_id: 'did:web:agent.example' }))
    await ingest(
      t,
      publishedEvent({
        run_id: 'r3',
        scenario_id: 'sc-b',
        registry_authority: 'b.example',
        ctx_id: 'acdp://b.example/1',
      }),
    )
    await ingest(t, retrievedEvent({ run_id: 'r1' }))
    await ingest(t, {
      event_id: 'retract-1',
      type: 'context_retracted',
      registry_authority: 'reg.example',
      ctx_id: withReceipt.ctx_id,
      at: new Date(t.deps.clock().getTime()).toISOString(),
    })

    const res = await overview(t)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({
      window: '24h',
      totalRuns: 3,
      totalContexts: 3,
      totalRetracted: 1,
      totalContextsLive: 2,
      totalAgents: 2,
      byScenario: [
        { scenario_id: 'sc-a', run_count: 2 },
        { scenario_id: 'sc-b', run_count: 1 },
      ],
      byRegistry: [
        { registry_authority: 'reg.example', event_count: 4 },
        { registry_authority: 'b.example', event_count: 1 },
      ],
      receiptCoverage: expect.arrayContaining([
        { registry_authority: 'reg.example', publish_count: 2, receipt_count: 1 },
        { registry_authority: 'b.example', publish_count: 1, receipt_count: 0 },
      ]),
      didMethods: [
        { method: 'did:key', publish_count: 2 },
        { method: 'did:web', publish_count: 1 },
      ],
      logWitness: { witnessedLogs: 0, activeAlerts: 0, unacknowledgedAlerts: 0, headsMeetingQuorum: 0 },
    })
    expect(body.recentRuns.map((r: { runId: string }) => r.runId).sort()).toEqual(['r1', 'r2', 'r3'])
    expect(body.receiptCoverage).toHaveLength(2)

    const week = (await overview(t, '?window=7d')).json()
    expect(week).toMatchObject({ window: '7d', totalRuns: 4, totalContexts: 4 })
    expect(week.didMethods).toContainEqual({ method: 'did:web', publish_count: 2 })
  })

  it('the 1h window excludes activity older than the window (aligned to 5-minute buckets)', async () => {
    t = await openTestApp(target)
    await ingest(t, publishedEvent({ run_id: 'early' }))
    t.advance(HOUR + 10 * 60_000)
    await ingest(t, publishedEvent({ run_id: 'late' }))
    const body = (await overview(t, '?window=1h')).json()
    expect(body).toMatchObject({
      totalRuns: 1,
      totalContexts: 1,
      byRegistry: [{ registry_authority: 'reg.example', event_count: 1 }],
    })
    expect(body.recentRuns.map((r: { runId: string }) => r.runId)).toEqual(['late'])
  })

  it('lists at most the 10 most recent runs', async () => {
    t = await openTestApp(target)
    for (let i = 0; i < 12; i++) {
      await ingest(t, publishedEvent({ run_id: `run-${String(i).padStart(2, '0')}` }))
      t.advance(1000)
    }
    const runs = (await overview(t)).json().recentRuns.map((r: { runId: string }) => r.runId)
    expect(runs).toHaveLength(10)
    expect(runs[0]).toBe('run-11')
    expect(runs[9]).toBe('run-02')
  })

  it('is tenant-scoped', async () => {
    t = await openTestApp(target)
    await ingest(t, publishedEvent({ run_id: 'x' }), { 'x-tenant-id': 'acme' })
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 0, totalContexts: 0, byRegistry: [] })
    expect((await overview(t, '', { 'x-tenant-id': 'acme' })).json()).toMatchObject({ totalRuns: 1, totalContexts: 1 })
  })

  it.each([
    ['?window=2h', 400],
    ['?window=', 400],
    ['?other=1', 400],
    ['?window=30d', 200],
  ])('%s → %i', async (query, status) => {
    t = await openTestApp(target)
    const res = await overview(t, query)
    expect(res.statusCode).toBe(status)
    if (status === 400) expect(res.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
  })

  it('reuses an overview for DASHBOARD_CACHE_MS per tenant and window, then recomputes it', async () => {
    t = await openTestApp(target, { DASHBOARD_CACHE_MS: '1000' })
    await ingest(t, publishedEvent({ run_id: 'c1' }))
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 1 })
    await ingest(t, publishedEvent({ run_id: 'c2' }))
    await ingest(t, publishedEvent({ run_id: 'a1' }), { 'x-tenant-id': 'acme' })
    // Within the TTL: the same tenant and window get the cached numbers; another window or tenant is computed.
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 1 })
    expect((await overview(t, '?window=7d')).json()).toMatchObject({ totalRuns: 2 })
    expect((await overview(t, '', { 'x-tenant-id': 'acme' })).json()).toMatchObject({ totalRuns: 1 })
    t.advance(999)
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 1 })
    t.advance(1)
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 2 })
  })

  it('computes every request when DASHBOARD_CACHE_MS=0', async () => {
    t = await openTestApp(target, { DASHBOARD_CACHE_MS: '0' })
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 0 })
    await ingest(t, publishedEvent({ run_id: 'n1' }))
    expect((await overview(t)).json()).toMatchObject({ totalRuns: 1 })
  })

  it('needs a credential', async () => {
    t = await openTestApp(target)
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/overview' })).statusCode).toBe(401)
  })
})
