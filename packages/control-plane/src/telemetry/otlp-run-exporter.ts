/**
 * The OTLP/HTTP exporter of run spans, on the official OpenTelemetry SDK: spans described by run-span.ts become
 * SDK `ReadableSpan`s carrying their deterministic ids, a `BatchSpanProcessor` batches them, and the
 * `OTLPTraceExporter` (JSON encoding) posts them to the configured collector. The only module that imports
 * `@opentelemetry/*`; loaded on demand by run-traces.ts.
 *
 * Bounded: at most `maxQueueSize` spans are queued or in flight; beyond that a span is dropped at once and
 * counted (`reason="queue_full"`), so a slow or absent collector costs a counter increment per event, not memory
 * or ingest latency. A batch the collector refuses or never answers (after the exporter's own retries within
 * OTEL_EXPORTER_OTLP_TIMEOUT) is dropped and counted (`reason="export_failed"`).
 *
 * The collector URL comes only from the operator's configuration and no part of a request reaches it except span
 * data, which is why this client does not go through the SSRF-safe outbound client (whose policy would refuse
 * the loopback or private address a collector usually has); see docs/control-plane/opentelemetry.md.
 */
import { type Link, type SpanContext, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api'
import { type ExportResult, ExportResultCode, hrTimeDuration, millisToHrTime } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { defaultResource, type Resource, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace'
import type { TelemetryConfig } from '../core/config.js'
import type { ControlPlaneMetrics } from '../core/metrics.js'
import type { StoredEvent } from '../store/schema.js'
import { SERVICE_VERSION } from '../core/version.js'
import { describeRunSpan, type RunSpan } from './run-span.js'
import type { RunTraceLog, RunTraceSink } from './run-traces.js'

/** Instrumentation scope of every exported span. */
const SCOPE = { name: '@acdp/control-plane', version: SERVICE_VERSION }

/**
 * How long `close` waits for the last exports. A collector that is down would otherwise hold the shutdown for the
 * whole export timeout and its retries (10 s by default, the default shutdown deadline too); spans still pending
 * then are counted as dropped (`reason="shutdown"`).
 */
export const CLOSE_BUDGET_MS = 2000

/**
 * Builds the exporter. `exporter` replaces the OTLP exporter (tests); `closeBudgetMs` replaces
 * {@link CLOSE_BUDGET_MS}.
 */
export function createOtlpRunExporter(
  config: TelemetryConfig,
  options: { metrics: ControlPlaneMetrics; log: RunTraceLog; exporter?: SpanExporter; closeBudgetMs?: number },
): RunTraceSink {
  const { metrics, log } = options
  const resource = defaultResource().merge(
    resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': SERVICE_VERSION }),
  )
  // Spans accepted and not yet settled (queued in the processor or in an export request): the bound.
  let pending = 0
  let isFailing = false
  let isClosed = false
  // Set when close gave up waiting: whatever settles later was already counted as dropped.
  let isAbandoned = false
  const settle = (count: number, result: ExportResult) => {
    if (isAbandoned) return
    pending -= count
    if (result.code === ExportResultCode.SUCCESS) {
      metrics.otelSpansExported.inc(count)
      if (isFailing) log.info({ endpoint: config.tracesUrl }, 'OpenTelemetry export recovered')
      isFailing = false
      return
    }
    metrics.otelSpansDropped.inc({ reason: 'export_failed' }, count)
    if (!isFailing) {
      // Once per outage, not per batch; the message is the exporter's (it never contains the configured headers).
      log.warn(
        { endpoint: config.tracesUrl, spans: count, error: result.error?.message },
        'OpenTelemetry export failed; spans are dropped until the collector answers',
      )
    }
    isFailing = true
  }
  const inner =
    options.exporter ??
    new OTLPTraceExporter({
      url: config.tracesUrl,
      headers: { ...config.headers },
      timeoutMillis: config.exportTimeoutMs,
    })
  const counting: SpanExporter = {
    export(spans, done) {
      inner.export(spans, (result) => {
        settle(spans.length, result)
        done(result)
      })
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  }
  const processor = new BatchSpanProcessor({
    exporter: counting,
    maxQueueSize: config.maxQueueSize,
    maxExportBatchSize: config.maxExportBatchSize,
    scheduledDelayMillis: config.scheduleDelayMs,
    // The processor gives up waiting a little after the exporter's own deadline, so the exporter settles first.
    exportTimeoutMillis: config.exportTimeoutMs + 1000,
  })
  let closing: Promise<void> | undefined

  return {
    record(event: StoredEvent, isDeliveryVerified: boolean) {
      if (isClosed) {
        metrics.otelSpansDropped.inc({ reason: 'shutdown' })
        return
      }
      if (pending >= config.maxQueueSize) {
        metrics.otelSpansDropped.inc({ reason: 'queue_full' })
        return
      }
      let span: ReadableSpan
      try {
        span = toReadableSpan(describeRunSpan(event, isDeliveryVerified), resource)
      } catch (error) {
        // The contract is "never throws": a span that cannot be built is a dropped span, not a failed ingest.
        metrics.otelSpansDropped.inc({ reason: 'error' })
        log.warn({ err: error, eventId: event.id }, 'could not describe an event as a span; dropped')
        return
      }
      pending += 1
      processor.onEnd(span)
    },
    async flush() {
      // A failed export is already counted by `settle`; flushing reports nothing more.
      await processor.forceFlush().catch(() => undefined)
    },
    close() {
      isClosed = true
      closing ??= (async () => {
        let timer: NodeJS.Timeout | undefined
        const budget = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), options.closeBudgetMs ?? CLOSE_BUDGET_MS)
          timer.unref()
        })
        const outcome = await Promise.race([processor.shutdown().catch(() => undefined), budget])
        clearTimeout(timer)
        if (outcome === 'timeout' && pending > 0) {
          metrics.otelSpansDropped.inc({ reason: 'shutdown' }, pending)
          log.warn({ endpoint: config.tracesUrl, spans: pending }, 'OpenTelemetry export unfinished at shutdown')
          // Late callbacks of the abandoned exports must not count these spans a second time.
          pending = 0
          isAbandoned = true
        }
      })()
      return closing
    },
  }
}

/** The SDK's finished-span shape for one described span (sampled; ended; no events). */
function toReadableSpan(span: RunSpan, resource: Resource): ReadableSpan {
  const context: SpanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED }
  const startTime = millisToHrTime(span.startTimeMs)
  const endTime = millisToHrTime(span.endTimeMs)
  const links: Link[] = span.links.map((link) => ({
    context: { traceId: link.traceId, spanId: link.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true },
  }))
  return {
    name: span.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    ...(span.parentSpanId !== undefined
      ? {
          parentSpanContext: {
            traceId: span.traceId,
            spanId: span.parentSpanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          },
        }
      : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: { code: SpanStatusCode.UNSET },
    attributes: span.attributes,
    links,
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: span.droppedLinksCount,
  }
}
