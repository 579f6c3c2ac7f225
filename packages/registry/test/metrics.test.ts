import type { WalCheckpointStats } from '@acdp/storage'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { createRegistryMetrics, type RegistryMetrics } from '../src/core/metrics.js'
import { registerHttpMetrics } from '../src/core/metrics-http.js'
import { registerMetricsRoute } from '../src/core/metrics-routes.js'
import { installRouteAuthentication } from '../src/core/http/route-auth.js'

const apps: FastifyInstance[] = []

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

async function buildMetricsApp(bearerToken = ''): Promise<{ app: FastifyInstance; metrics: RegistryMetrics }> {
  const metrics = createRegistryMetrics()
  const app = Fastify()
  registerHttpMetrics(app, metrics)
  // The metrics bearer is the `metrics` route-auth kind, as buildApp installs it.
  installRouteAuthentication(app, { adminTokens: [], metricsBearerToken: bearerToken })
  registerMetricsRoute(app, { metrics })
  app.get('/contexts/:ctx_id', { config: { auth: 'public' } }, async (request, reply) => {
    const { ctx_id } = request.params as { ctx_id: string }
    return ctx_id === 'missing' ? reply.code(404).send({}) : { ok: true }
  })
  await app.ready()
  apps.push(app)
  return { app, metrics }
}

async function scrape(app: FastifyInstance, authorization?: string): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
  expect(res.statusCode).toBe(200)
  return res.body
}

function walStats(): WalCheckpointStats {
  const outcomes = () => ({ complete: 0, partial: 0, busy: 0, error: 0 })
  return {
    walBytes: 0,
    checkpoints: { passive: outcomes(), restart: outcomes(), truncate: outcomes() },
    truncateSeconds: 0,
    restartSeconds: 0,
    workerRunning: true,
  }
}

describe('registry metrics', () => {
  it('exposes no SQLite WAL metric until a WAL source is set, then mirrors its totals at every scrape', async () => {
    const { app, metrics } = await buildMetricsApp()
    expect(await scrape(app)).not.toContain('acdp_registry_sqlite_wal')
    const stats = walStats()
    metrics.setSqliteWalSource(() => stats)
    stats.walBytes = 8192
    stats.checkpoints.truncate.complete = 2
    stats.checkpoints.passive.partial = 5
    stats.truncateSeconds = 0.25
    stats.checkpoints.restart.complete = 4
    stats.restartSeconds = 0.125
    let text = await scrape(app)
    expect(text).toContain('acdp_registry_sqlite_wal_bytes 8192')
    expect(text).toContain('acdp_registry_sqlite_wal_checkpoints_total{mode="truncate",outcome="complete"} 2')
    expect(text).toContain('acdp_registry_sqlite_wal_checkpoints_total{mode="passive",outcome="partial"} 5')
    expect(text).toContain('acdp_registry_sqlite_wal_truncate_seconds_total 0.25')
    expect(text).toContain('acdp_registry_sqlite_wal_checkpoints_total{mode="restart",outcome="complete"} 4')
    expect(text).toContain('acdp_registry_sqlite_wal_restart_seconds_total 0.125')
    stats.checkpoints.truncate.complete = 3
    text = await scrape(app)
    expect(text).toContain('acdp_registry_sqlite_wal_checkpoints_total{mode="truncate",outcome="complete"} 3')
  })

  it('labels HTTP requests by route pattern, method and status, never by the raw path', async () => {
    const { app } = await buildMetricsApp()
    await app.inject({ method: 'GET', url: '/contexts/acdp%3A%2F%2Fa.example%2Fx' })
    await app.inject({ method: 'GET', url: '/contexts/missing' })
    await app.inject({ method: 'GET', url: '/no/such/route?secret=1' })
    const text = await scrape(app)
    expect(text).toContain('acdp_registry_request_total{route="/contexts/:ctx_id",method="GET",status="200"} 1')
    expect(text).toContain('acdp_registry_request_total{route="/contexts/:ctx_id",method="GET",status="404"} 1')
    expect(text).toContain('acdp_registry_request_total{route="unmatched",method="GET",status="404"} 1')
    expect(text).toMatch(/acdp_registry_request_duration_seconds_count\{route="\/contexts\/:ctx_id",method="GET"\} 2/)
    expect(text).not.toContain('a.example')
    expect(text).not.toContain('secret')
  })

  it('serves the Prometheus text format', async () => {
    const { app } = await buildMetricsApp()
    const res = await app.inject({ method: 'GET', url: '/metrics' })
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  })

  it('counts publish outcomes, including error codes, and maps a foreign value to other', async () => {
    const { app, metrics } = await buildMetricsApp()
    metrics.recordPublish('inserted')
    metrics.recordPublish('inserted')
    metrics.recordPublish('idempotent_replay')
    metrics.recordPublish('hash_mismatch')
    metrics.recordPublish('Not A Code {}')
    const text = await scrape(app)
    expect(text).toContain('acdp_registry_publish_total{outcome="inserted"} 2')
    expect(text).toContain('acdp_registry_publish_total{outcome="idempotent_replay"} 1')
    expect(text).toContain('acdp_registry_publish_total{outcome="hash_mismatch"} 1')
    expect(text).toContain('acdp_registry_publish_total{outcome="other"} 1')
  })

  it('exposes webhook outcomes and the live queue depth and capacity', async () => {
    const { app, metrics } = await buildMetricsApp()
    metrics.recordWebhookOutcome('enqueued')
    metrics.recordWebhookOutcome('dropped_queue_full')
    metrics.setWebhookQueueSource(() => ({ enabled: true, queue_in_flight: 7, queue_capacity: 1024 }))
    const text = await scrape(app)
    expect(text).toContain('acdp_registry_webhook_events_total{outcome="enqueued"} 1')
    expect(text).toContain('acdp_registry_webhook_events_total{outcome="dropped_queue_full"} 1')
    expect(text).toContain('acdp_registry_webhook_queue_depth 7')
    expect(text).toContain('acdp_registry_webhook_queue_capacity 1024')
  })

  it('keeps each app instance on its own registry', async () => {
    const a = await buildMetricsApp()
    const b = await buildMetricsApp()
    a.metrics.recordPublish('inserted')
    expect(await scrape(a.app)).toContain('acdp_registry_publish_total{outcome="inserted"} 1')
    expect(await scrape(b.app)).not.toContain('acdp_registry_publish_total{outcome="inserted"}')
  })

  it('exports process metrics when asked', async () => {
    const metrics = createRegistryMetrics({ collectProcessMetrics: true })
    expect(await metrics.registry.metrics()).toContain('process_cpu_user_seconds_total')
  })
})

describe('metrics bearer token', () => {
  it.each([
    { name: 'no Authorization header', authorization: undefined },
    { name: 'a wrong token', authorization: 'Bearer wrong-token' },
    { name: 'a token prefix', authorization: 'Bearer s3cret-metrics' },
    { name: 'Basic credentials', authorization: 'Basic czNjcmV0LW1ldHJpY3MtdG9rZW4=' },
    { name: 'an empty bearer', authorization: 'Bearer ' },
  ])('answers 401 with WWW-Authenticate for $name', async ({ authorization }) => {
    const { app } = await buildMetricsApp('s3cret-metrics-token')
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
    expect(res.statusCode).toBe(401)
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"')
    expect(res.json()).toEqual({ error: { code: 'not_authorized', message: expect.any(String) } })
    expect(res.body).not.toContain('acdp_registry')
  })

  it.each(['Bearer s3cret-metrics-token', 'bearer s3cret-metrics-token', 'Bearer  s3cret-metrics-token '])(
    'serves the metrics for %j',
    async (authorization) => {
      const { app } = await buildMetricsApp('s3cret-metrics-token')
      expect(await scrape(app, authorization)).toContain('acdp_registry_request_total')
    },
  )
})

it('uses configured duration buckets', async () => {
  const metrics = createRegistryMetrics({ durationBuckets: [0.5, 2] })
  metrics.observeHttpRequest('/x', 'GET', 200, 1)
  const text = await metrics.registry.metrics()
  expect(text).toContain('acdp_registry_request_duration_seconds_bucket{le="0.5",route="/x",method="GET"} 0')
  expect(text).toContain('acdp_registry_request_duration_seconds_bucket{le="2",route="/x",method="GET"} 1')
})
