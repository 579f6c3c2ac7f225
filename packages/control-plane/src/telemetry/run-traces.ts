/**
 * OpenTelemetry export of runs: the seam ingest talks to, and the switch that loads the SDK only when export is
 * configured (OTEL_EXPORTER_OTLP_ENDPOINT). With export off, nothing under `@opentelemetry/` is ever imported:
 * the SDK lives in otlp-run-exporter.ts, reached only through the dynamic import below (test/telemetry-loading
 * checks it), so an idle control plane does not pay its memory.
 */
import type { TelemetryConfig } from '../core/config.js'
import type { ControlPlaneMetrics } from '../core/metrics.js'
import type { StoredEvent } from '../store/schema.js'

/**
 * Receives each committed event once, after its commit. Contract: `record` never throws, never waits and never
 * does I/O; spans are exported in batches in the background, and when the queue is full or the collector fails
 * they are dropped and counted (`acdp_otel_spans_dropped_total`), never retried into memory without bound.
 */
export interface RunTraceSink {
  /** Queues the span of `event`; `isDeliveryVerified` says whether its HMAC was checked. */
  record(event: StoredEvent, isDeliveryVerified: boolean): void
  /** Exports what is queued now; resolves when those exports settled (successfully or not). */
  flush(): Promise<void>
  /** Flushes, then stops; later `record` calls are dropped (reason `shutdown`). Idempotent. */
  close(): Promise<void>
}

/** Where an exporter reports what it could not do (a Fastify/pino logger fits). */
export interface RunTraceLog {
  warn(details: Record<string, unknown>, message: string): void
  info(details: Record<string, unknown>, message: string): void
}

/**
 * Opens the OTLP/HTTP exporter for `config`, or returns undefined when export is not configured (without
 * loading any OpenTelemetry module).
 */
export async function openRunTraceExport(
  config: TelemetryConfig | undefined,
  options: { metrics: ControlPlaneMetrics; log: RunTraceLog },
): Promise<RunTraceSink | undefined> {
  if (config === undefined) return undefined
  const { createOtlpRunExporter } = await import('./otlp-run-exporter.js')
  return createOtlpRunExporter(config, options)
}
