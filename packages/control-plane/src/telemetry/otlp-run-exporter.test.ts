import { SpanKind, TraceFlags } from '@opentelemetry/api'
import { hrTimeToMilliseconds } from '@opentelemetry/core'
import { InMemorySpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../core/config.js'
import { createMetrics } from '../core/metrics.js'
import type { StoredEvent } from '../store/schema.js'
import { createOtlpRunExporter } from './otlp-run-exporter.js'
import { describeRunSpan } from './run-span.js'

const CONFIG = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SERVICE_NAME: 'unit' })
  .telemetry as NonNullable<ReturnType<typeof loadConfig>['telemetry']>

function event(overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: 7,
    tenantId: 'acme',
    eventId: 'evt-7',
    type: 'context_published',
    ts: '2026-01-15T11:59:00.000Z',
    receivedAt: '2026-01-15T11:59:00.125Z',
    runId: 'run-1',
    ctxId: 'acdp://reg.example/child',
    lineageId: null,
    agentId: 'did:key:z6MkAgent',
    contextType: 'analysis',
    visibility: 'public',
    version: 1,
    derivedFrom: ['acdp://reg.example/p1', 'acdp://reg.example/p2'],
    registryAuthority: 'reg.example',
    scenarioId: null,
    keyFingerprint: null,
    receiptPresent: true,
    payload: {},
    ...overrides,
  }
}

function setup(options: { exporter?: SpanExporter; closeBudgetMs?: number } = {}) {
  const exporter = options.exporter ?? new InMemorySpanExporter()
  const metrics = createMetrics({ collectProcessMetrics: false })
  const warnings: string[] = []
  const sink = createOtlpRunExporter(CONFIG, {
    metrics,
    exporter,
    ...(options.closeBudgetMs !== undefined ? { closeBudgetMs: options.closeBudgetMs } : {}),
    log: { warn: (_details, message) => warnings.push(message), info: () => undefined },
  })
  const count = async (name: string, labels: Record<string, string> = {}) => {
    const metric = await metrics.registry.getSingleMetric(name)?.get()
    return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0
  }
  return { exporter: exporter as InMemorySpanExporter, sink, count, warnings }
}

describe('createOtlpRunExporter', () => {
  it('hands the SDK a finished, sampled span carrying the derived ids, parent, links and times', async () => {
    const { exporter, sink, count } = setup()
    const described = describeRunSpan(event(), true)
    sink.record(event(), true)
    await sink.flush()
    const [span] = exporter.getFinishedSpans()
    expect(span?.spanContext()).toMatchObject({
      traceId: described.traceId,
      spanId: described.spanId,
      traceFlags: TraceFlags.SAMPLED,
    })
    expect(span?.parentSpanContext).toMatchObject({ traceId: described.traceId, spanId: described.parentSpanId })
    expect(span?.links.map((l) => l.context.spanId)).toEqual(described.links.map((l) => l.spanId))
    expect(span?.kind).toBe(SpanKind.INTERNAL)
    expect(span?.ended).toBe(true)
    expect(hrTimeToMilliseconds(span?.startTime ?? [0, 0])).toBe(described.startTimeMs)
    expect(hrTimeToMilliseconds(span?.duration ?? [0, 0])).toBe(125)
    expect(span?.resource.attributes['service.name']).toBe('unit')
    expect(span?.instrumentationScope.name).toBe('@acdp/control-plane')
    expect(await count('acdp_otel_spans_exported_total')).toBe(1)
  })

  it('drops (and counts, and logs) an event it cannot describe instead of throwing into ingest', async () => {
    const { exporter, sink, count, warnings } = setup()
    const malformed = event({ derivedFrom: null as unknown as string[] })
    expect(() => sink.record(malformed, true)).not.toThrow()
    await sink.flush()
    expect(exporter.getFinishedSpans()).toHaveLength(0)
    expect(await count('acdp_otel_spans_dropped_total', { reason: 'error' })).toBe(1)
    expect(warnings).toHaveLength(1)
  })

  it('exports what was queued on close, then drops later events as shutdown', async () => {
    const { exporter, sink, count } = setup()
    sink.record(event(), true)
    await sink.close()
    sink.record(event({ id: 8, eventId: 'evt-8' }), true)
    expect(exporter.getFinishedSpans()).toHaveLength(0) // the in-memory exporter forgets its spans on shutdown
    expect(await count('acdp_otel_spans_exported_total')).toBe(1)
    expect(await count('acdp_otel_spans_dropped_total', { reason: 'shutdown' })).toBe(1)
  })

  it('stops waiting for a collector that never answers after its close budget, counting the spans as dropped', async () => {
    // An exporter that accepts a batch and never reports back, like a collector holding the request open.
    const hung: SpanExporter = { export: () => undefined, shutdown: () => new Promise(() => undefined) }
    const { sink, count, warnings } = setup({ exporter: hung, closeBudgetMs: 20 })
    sink.record(event(), true)
    sink.record(event({ id: 8, eventId: 'evt-8' }), true)
    await sink.close()
    expect(await count('acdp_otel_spans_dropped_total', { reason: 'shutdown' })).toBe(2)
    expect(await count('acdp_otel_spans_exported_total')).toBe(0)
    expect(warnings).toEqual(['OpenTelemetry export unfinished at shutdown'])
  })
})
