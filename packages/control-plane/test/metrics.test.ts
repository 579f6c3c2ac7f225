import type { WalCheckpointStats } from '@acdp/storage'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { boundLabel, createMetrics, MAX_LABEL_VALUES } from '../src/core/metrics.js'
import { registerHttpMetrics } from '../src/core/metrics-http.js'
import { registerMetricsRoutes } from '../src/core/metrics-routes.js'

async function sampleValue(metrics: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string>) {
  const metric = metrics.registry.getSingleMetric(name)
  if (!metric) throw new Error(`no metric ${name}`)
  const { values } = await metric.get()
  const match = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
  return match?.value
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

describe('createMetrics', () => {
  it('registers every spec metric name on its own registry', async () => {
    const metrics = createMetrics()
    const text = await metrics.registry.metrics()
    for (const name of [
      'http_request_duration_seconds',
      'http_requests_total',
      'active_sse_connections',
      'acdp_events_ingested_total',
      'acdp_webhook_deliveries_total',
      'acdp_ingest_rejected_total',
      'process_cpu_user_seconds_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `)
    }
  })

  it('exposes no SQLite WAL metric until a WAL source is set, then mirrors its totals at every scrape', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false })
    expect(await metrics.registry.metrics()).not.toContain('acdp_sqlite_wal')
    const stats = walStats()
    metrics.setSqliteWalSource(() => stats)
    stats.walBytes = 4096
    stats.checkpoints.passive.complete = 3
    stats.checkpoints.truncate.busy = 2
    stats.truncateSeconds = 0.5
    stats.checkpoints.restart.complete = 4
    stats.restartSeconds = 0.125
    expect(await sampleValue(metrics, 'acdp_sqlite_wal_bytes', {})).toBe(4096)
    expect(await sampleValue(metrics, 'acdp_sqlite_wal_checkpoints_total', { mode: 'truncate', outcome: 'busy' })).toBe(
      2,
    )
    expect(await sampleValue(metrics, 'acdp_sqlite_wal_truncate_seconds_total', {})).toBe(0.5)
    expect(
      await sampleValue(metrics, 'acdp_sqlite_wal_checkpoints_total', { mode: 'restart', outcome: 'complete' }),
    ).toBe(4)
    expect(await sampleValue(metrics, 'acdp_sqlite_wal_restart_seconds_total', {})).toBe(0.125)
    stats.checkpoints.passive.complete = 7
    expect(
      await sampleValue(metrics, 'acdp_sqlite_wal_checkpoints_total', { mode: 'passive', outcome: 'complete' }),
    ).toBe(7)
  })

  it('keeps two instances independent', async () => {
    const a = createMetrics({ collectProcessMetrics: false })
    const b = createMetrics({ collectProcessMetrics: false })
    a.recordEventIngested('context_published')
    a.recordEventIngested('context_published')
    expect(await sampleValue(a, 'acdp_events_ingested_total', { event_type: 'context_published' })).toBe(2)
    expect(await sampleValue(b, 'acdp_events_ingested_total', { event_type: 'context_published' })).toBeUndefined()
  })

  it('counts ingest rejections by reason', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false })
    metrics.recordIngestRejected('pack_gate')
    expect(await sampleValue(metrics, 'acdp_ingest_rejected_total', { reason: 'pack_gate' })).toBe(1)
  })

  it('folds wire-derived event types beyond the label budget into "other"', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false })
    for (let i = 0; i < MAX_LABEL_VALUES + 10; i++) metrics.recordEventIngested(`type_${i}`)
    expect(await sampleValue(metrics, 'acdp_events_ingested_total', { event_type: 'other' })).toBe(10)
    const metric = metrics.registry.getSingleMetric('acdp_events_ingested_total')
    expect((await metric?.get())?.values).toHaveLength(MAX_LABEL_VALUES + 1)
  })
})

describe('boundLabel', () => {
  it.each([
    ['a printable short value', 'context_published', 'context_published'],
    ['an empty value', '', 'other'],
    ['a value with a newline', 'a\nb', 'other'],
    ['a value with a space', 'a b', 'other'],
    ['a 65-character value', 'x'.repeat(65), 'other'],
    ['a 64-character value', 'y'.repeat(64), 'y'.repeat(64)],
  ])('maps %s', (_name, input, expected) => {
    expect(boundLabel(4)(input)).toBe(expected)
  })

  it('keeps values already seen after the budget is spent', () => {
    const label = boundLabel(1)
    expect(label('a')).toBe('a')
    expect(label('b')).toBe('other')
    expect(label('a')).toBe('a')
  })
})

describe('HTTP metrics and GET /metrics', () => {
  it('labels requests by route pattern, not raw URL, and serves the exposition publicly', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false })
    const app = Fastify()
    registerHttpMetrics(app, metrics)
    registerMetricsRoutes(app, { metrics })
    app.get('/runs/:runId', async () => ({ ok: true }))
    await app.inject({ method: 'GET', url: '/runs/run-1' })
    await app.inject({ method: 'GET', url: '/runs/run-2' })
    await app.inject({ method: 'GET', url: '/no/such/route' })

    expect(
      await sampleValue(metrics, 'http_requests_total', { method: 'GET', path: '/runs/:runId', status_code: '200' }),
    ).toBe(2)
    expect(
      await sampleValue(metrics, 'http_requests_total', { method: 'GET', path: 'unmatched', status_code: '404' }),
    ).toBe(1)

    const res = await app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/plain')
    expect(res.body).toContain('http_request_duration_seconds_bucket{le="0.01",method="GET",path="/runs/:runId"')
    expect(res.body).not.toContain('run-1')
    await app.close()
  })
})
