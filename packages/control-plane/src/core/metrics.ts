/**
 * Prometheus metrics of one control-plane instance (product spec control-plane.md "Metrics").
 *
 * Each `buildApp` gets its own prom-client `Registry`, so two instances in one process (tests, the benchmark)
 * never share counters and never collide on registration. Names follow the spec table with the `acdp_` prefix;
 * `active_sse_connections` and the `http_*` pair keep their unprefixed spec names.
 *
 * Label values that come from the wire (event types, rejection reasons) pass through {@link boundLabel}, so a
 * peer sending endless distinct `type` strings cannot grow the exposition without bound.
 */
import { registerSqliteWalMetrics } from '@acdp/service-kit'
import type { WalCheckpointStats } from '@acdp/storage'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/** Most distinct values one wire-derived label keeps before further new values are counted as `other`. */
export const MAX_LABEL_VALUES = 64

/** Buckets of `http_request_duration_seconds`, in seconds (spec: 0.01 to 10 s), plus finer low buckets. */
const HTTP_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Buckets of webhook delivery attempt durations, in seconds. */
const DELIVERY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The metrics of one instance. Methods are safe to call at any rate; counters never throw. */
export interface ControlPlaneMetrics {
  readonly registry: Registry
  readonly eventsIngested: Counter<'event_type'>
  readonly ingestRejected: Counter<'reason'>
  readonly activeSseConnections: Gauge
  readonly sseStreamsTerminated: Counter<'reason'>
  /** SSE frames serialised (once per event and heartbeat, however many streams receive them). */
  readonly sseFramesEncoded: Counter
  /** Socket writes of the SSE flush (one per stream per flush round, whatever the frames it carries). */
  readonly sseSocketWrites: Counter
  readonly webhookDeliveries: Counter<'status'>
  readonly webhookDeliveryDuration: Histogram<'outcome'>
  readonly webhookOutboxPending: Gauge
  readonly eventBusNotifications: Counter<'direction'>
  readonly httpRequestDuration: Histogram<'method' | 'path' | 'status_code'>
  readonly httpRequests: Counter<'method' | 'path' | 'status_code'>
  /** Run spans the OpenTelemetry collector accepted (telemetry/otlp-run-exporter.ts). */
  readonly otelSpansExported: Counter
  /** Run spans dropped: `queue_full`, `export_failed` (collector down or refusing), `shutdown`, `error`. */
  readonly otelSpansDropped: Counter<'reason'>
  /** Counts one stored event (`acdp_events_ingested_total{event_type}`); call once per new row, not for dedups. */
  recordEventIngested(eventType: string): void
  /** Counts one refused ingest (`acdp_ingest_rejected_total{reason}`), e.g. `pack_gate`, `signature`. */
  recordIngestRejected(reason: string): void
  /**
   * Registers the SQLite WAL metrics (file databases only, so PostgreSQL instances expose none), read from the
   * checkpoint worker at scrape time: `acdp_sqlite_wal_bytes`, `acdp_sqlite_wal_checkpoints_total{mode,outcome}`,
   * `acdp_sqlite_wal_truncate_seconds_total`. Call at most once.
   */
  setSqliteWalSource(source: () => WalCheckpointStats): void
}

export interface CreateMetricsOptions {
  /** Export Node process metrics (CPU, memory, event-loop lag, GC). Default true. */
  collectProcessMetrics?: boolean
}

/** Creates a fresh registry with every control-plane metric registered on it. */
export function createMetrics(options: CreateMetricsOptions = {}): ControlPlaneMetrics {
  const registry = new Registry()
  if (options.collectProcessMetrics ?? true) collectDefaultMetrics({ register: registry })
  const registers = [registry]

  const eventsIngested = new Counter({
    name: 'acdp_events_ingested_total',
    help: 'Events persisted by ingest, by event type (duplicates not counted).',
    labelNames: ['event_type'] as const,
    registers,
  })
  const ingestRejected = new Counter({
    name: 'acdp_ingest_rejected_total',
    help: 'Ingest requests refused, by reason.',
    labelNames: ['reason'] as const,
    registers,
  })
  const eventTypeLabel = boundLabel(MAX_LABEL_VALUES)
  const reasonLabel = boundLabel(MAX_LABEL_VALUES)

  return {
    registry,
    eventsIngested,
    ingestRejected,
    activeSseConnections: new Gauge({
      name: 'active_sse_connections',
      help: 'Open server-sent event streams on this instance.',
      registers,
    }),
    sseStreamsTerminated: new Counter({
      name: 'acdp_sse_streams_terminated_total',
      help: 'Server-sent event streams ended, by reason (client_closed, slow_client, server_shutdown, error).',
      labelNames: ['reason'] as const,
      registers,
    }),
    sseFramesEncoded: new Counter({
      name: 'acdp_sse_frames_encoded_total',
      help: 'Server-sent event frames serialised and UTF-8 encoded: once per event, shared by every stream.',
      registers,
    }),
    sseSocketWrites: new Counter({
      name: 'acdp_sse_socket_writes_total',
      help: 'Socket writes made by the SSE flush: one per stream per flush round, however many frames it carries.',
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'acdp_webhook_deliveries_total',
      help: 'Outbound webhook delivery outcomes: delivered, retry (attempt failed, will retry), failed (gave up).',
      labelNames: ['status'] as const,
      registers,
    }),
    webhookDeliveryDuration: new Histogram({
      name: 'acdp_webhook_delivery_duration_seconds',
      help: 'Duration of one outbound webhook delivery attempt, by outcome.',
      labelNames: ['outcome'] as const,
      buckets: DELIVERY_BUCKETS_SECONDS,
      registers,
    }),
    webhookOutboxPending: new Gauge({
      name: 'acdp_webhook_outbox_pending',
      help: 'Pending outbound webhook deliveries seen by the last sweep of this instance.',
      registers,
    }),
    eventBusNotifications: new Counter({
      name: 'acdp_event_bus_notifications_total',
      help: 'Cross-instance event notifications (PostgreSQL LISTEN/NOTIFY), by direction (sent, received, dropped).',
      labelNames: ['direction'] as const,
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status code.',
      labelNames: ['method', 'path', 'status_code'] as const,
      buckets: HTTP_BUCKETS_SECONDS,
      registers,
    }),
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status code.',
      labelNames: ['method', 'path', 'status_code'] as const,
      registers,
    }),
    otelSpansExported: new Counter({
      name: 'acdp_otel_spans_exported_total',
      help: 'Run spans accepted by the OpenTelemetry collector.',
      registers,
    }),
    otelSpansDropped: new Counter({
      name: 'acdp_otel_spans_dropped_total',
      help: 'Run spans dropped instead of exported, by reason (queue_full, export_failed, shutdown, error).',
      labelNames: ['reason'] as const,
      registers,
    }),
    recordEventIngested(eventType) {
      eventsIngested.inc({ event_type: eventTypeLabel(eventType) })
    },
    recordIngestRejected(reason) {
      ingestRejected.inc({ reason: reasonLabel(reason) })
    },
    setSqliteWalSource(source) {
      registerSqliteWalMetrics(registers, 'acdp_', source)
    },
  }
}

/**
 * Returns a function mapping a wire-derived string to a label value: the value itself while fewer than `limit`
 * distinct values have been seen (and it is short and printable), `other` afterwards.
 */
export function boundLabel(limit: number): (value: string) => string {
  const seen = new Set<string>()
  return (value) => {
    if (seen.has(value)) return value
    if (seen.size >= limit || value.length === 0 || value.length > 64 || !/^[\x21-\x7e]+$/.test(value)) return 'other'
    seen.add(value)
    return value
  }
}
