/**
 * Prometheus metrics of one registry instance (product spec registry.md "Metrics").
 *
 * Each `buildApp` gets its own prom-client `Registry` (never the global default), so many apps in one process
 * (tests, the benchmark) never share counters or collide on registration. Every label value is either a route
 * pattern, an HTTP method/status, or a member of a closed set this code chooses (outcomes, error codes); none
 * comes from request data, so the exposition cannot grow without bound.
 */
import { registerSqliteWalMetrics } from '@acdp/service-kit'
import type { WalCheckpointStats } from '@acdp/storage'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { WebhookOutcome, WebhookQueueStats } from '../webhooks/webhooks.js'

/**
 * Default buckets of the request-duration histogram, in seconds (the Rust reference registry's), kept so
 * dashboards built for it keep working. `metrics.duration_buckets` overrides them; config.ts validates it.
 */
export const DEFAULT_DURATION_BUCKETS_SECONDS: readonly number[] = Object.freeze([
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
])

/** Label value for requests that matched no route (404s): raw paths are never used as labels. */
export const UNMATCHED_ROUTE_LABEL = 'unmatched'

/** A metric label value we accept from callers: short snake_case, like every code and outcome we emit. */
const OUTCOME_LABEL = /^[a-z][a-z0-9_.]{0,63}$/

/** The metrics of one registry instance. Record methods never throw. */
export interface RegistryMetrics {
  readonly registry: Registry
  /** One finished HTTP request, labelled by matched route pattern (`/contexts/:ctx_id`), never the raw path. */
  observeHttpRequest(route: string | undefined, method: string, status: number, durationSeconds: number): void
  /** `acdp_registry_publish_total{outcome}`: `inserted`, `idempotent_replay`, or the wire error code. */
  recordPublish(outcome: string): void
  /** `acdp_registry_rate_limit_rejections_total{scope}`, e.g. `publish_per_agent`, `lifecycle_per_agent`. */
  recordRateLimitRejection(scope: string): void
  /**
   * One call to the shared rate-limit backend (`rate_limit.backend = "postgres"`):
   * `acdp_registry_rate_limit_shared_total{scope,outcome}` (`admitted`, `refused`, `peeked`, `charged`,
   * `timeout`, `error`; scope `auth_request`, `challenge_per_agent` or `agent_write`) and
   * `acdp_registry_rate_limit_shared_seconds{scope}`.
   */
  recordSharedRateLimit(scope: string, outcome: string, seconds: number): void
  recordReceiptMinted(): void
  recordLogLeafAppended(): void
  /** `acdp_registry_lifecycle_event_total{event,outcome}`; event `retract` or `republish`. */
  recordLifecycleEvent(event: string, outcome: string): void
  /** `acdp_registry_witness_cosignatures_total{outcome}`: `aggregated`, `rejected`, `store_error`. */
  recordWitnessCosignature(outcome: string): void
  /** `acdp_registry_search_total{outcome}`: `ok` or the wire error code. */
  recordSearch(outcome: string): void
  /** `acdp_registry_cross_registry_resolutions_total{outcome}`: `resolved`, `not_found`, or a failure reason. */
  recordCrossRegistryResolution(outcome: string): void
  /** `acdp_registry_webhook_events_total{outcome}`; pass as the webhook dispatcher's `onOutcome`. */
  recordWebhookOutcome(outcome: WebhookOutcome): void
  /** Points the webhook queue gauges at the live dispatcher (read at scrape time). */
  setWebhookQueueSource(source: () => WebhookQueueStats): void
  /**
   * Registers the SQLite WAL metrics (file databases only, so PostgreSQL registries expose none), read from the
   * checkpoint worker at scrape time: `acdp_registry_sqlite_wal_bytes`,
   * `acdp_registry_sqlite_wal_checkpoints_total{mode,outcome}`, `acdp_registry_sqlite_wal_truncate_seconds_total`.
   */
  setSqliteWalSource(source: () => WalCheckpointStats): void
}

/** Creates a fresh registry with every registry metric registered on it. */
export function createRegistryMetrics(
  options: { durationBuckets?: number[]; collectProcessMetrics?: boolean } = {},
): RegistryMetrics {
  const registry = new Registry()
  if (options.collectProcessMetrics ?? false) collectDefaultMetrics({ register: registry })
  const registers = [registry]
  let webhookQueue: () => WebhookQueueStats = () => ({ enabled: false, queue_in_flight: 0, queue_capacity: 0 })

  const requests = new Counter({
    name: 'acdp_registry_request_total',
    help: 'HTTP requests by matched route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  })
  const requestDuration = new Histogram({
    name: 'acdp_registry_request_duration_seconds',
    help: 'HTTP request latency in seconds by matched route pattern and method.',
    labelNames: ['route', 'method'] as const,
    buckets: options.durationBuckets ?? [...DEFAULT_DURATION_BUCKETS_SECONDS],
    registers,
  })
  const publishes = new Counter({
    name: 'acdp_registry_publish_total',
    help: 'Publish outcomes: inserted, idempotent_replay, or the wire error code.',
    labelNames: ['outcome'] as const,
    registers,
  })
  const rateLimitRejections = new Counter({
    name: 'acdp_registry_rate_limit_rejections_total',
    help: 'Requests refused by a rate limiter, by limiter scope.',
    labelNames: ['scope'] as const,
    registers,
  })
  const sharedRateLimit = new Counter({
    name: 'acdp_registry_rate_limit_shared_total',
    help: 'Calls to the shared (PostgreSQL) rate-limit backend, by limiter scope and outcome.',
    labelNames: ['scope', 'outcome'] as const,
    registers,
  })
  const sharedRateLimitSeconds = new Histogram({
    name: 'acdp_registry_rate_limit_shared_seconds',
    help: 'Time spent in the shared (PostgreSQL) rate-limit backend per call, by limiter scope.',
    labelNames: ['scope'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  })
  const receiptsMinted = new Counter({
    name: 'acdp_registry_receipts_minted_total',
    help: 'Registry receipts minted (one per first publish on a receipts-profile registry).',
    registers,
  })
  const logLeaves = new Counter({
    name: 'acdp_registry_log_leaves_total',
    help: 'Transparency-log leaves appended.',
    registers,
  })
  const lifecycleEvents = new Counter({
    name: 'acdp_registry_lifecycle_event_total',
    help: 'Lifecycle events (retract, republish) by outcome.',
    labelNames: ['event', 'outcome'] as const,
    registers,
  })
  const witnessCosignatures = new Counter({
    name: 'acdp_registry_witness_cosignatures_total',
    help: 'Witness cosignatures received, by outcome (aggregated, rejected, store_error).',
    labelNames: ['outcome'] as const,
    registers,
  })
  const searches = new Counter({
    name: 'acdp_registry_search_total',
    help: 'Keyword searches, by outcome (ok or the wire error code).',
    labelNames: ['outcome'] as const,
    registers,
  })
  const crossRegistry = new Counter({
    name: 'acdp_registry_cross_registry_resolutions_total',
    help: 'Foreign ctx_id resolutions against origin registries, by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  })
  const webhookEvents = new Counter({
    name: 'acdp_registry_webhook_events_total',
    help: 'Webhook events by outcome: enqueued, dropped_queue_full, delivered, retried, failed_permanent, failed_exhausted, dropped_shutdown.',
    labelNames: ['outcome'] as const,
    registers,
  })
  new Gauge({
    name: 'acdp_registry_webhook_queue_depth',
    help: 'Webhook events held: queued, in flight, or waiting for a retry.',
    registers,
    collect() {
      this.set(webhookQueue().queue_in_flight)
    },
  })
  new Gauge({
    name: 'acdp_registry_webhook_queue_capacity',
    help: 'Configured webhook queue capacity (webhook.queue_capacity); 0 when webhooks are disabled.',
    registers,
    collect() {
      const stats = webhookQueue()
      this.set(stats.enabled ? stats.queue_capacity : 0)
    },
  })

  return {
    registry,
    observeHttpRequest(route, method, status, durationSeconds) {
      const routeLabel = route ?? UNMATCHED_ROUTE_LABEL
      requests.inc({ route: routeLabel, method, status: String(status) })
      requestDuration.observe({ route: routeLabel, method }, durationSeconds)
    },
    recordPublish: (outcome) => publishes.inc({ outcome: toOutcomeLabel(outcome) }),
    recordRateLimitRejection: (scope) => rateLimitRejections.inc({ scope: toOutcomeLabel(scope) }),
    recordSharedRateLimit(scope, outcome, seconds) {
      const label = toOutcomeLabel(scope)
      sharedRateLimit.inc({ scope: label, outcome: toOutcomeLabel(outcome) })
      sharedRateLimitSeconds.observe({ scope: label }, seconds)
    },
    recordReceiptMinted: () => receiptsMinted.inc(),
    recordLogLeafAppended: () => logLeaves.inc(),
    recordLifecycleEvent: (event, outcome) =>
      lifecycleEvents.inc({ event: toOutcomeLabel(event), outcome: toOutcomeLabel(outcome) }),
    recordWitnessCosignature: (outcome) => witnessCosignatures.inc({ outcome: toOutcomeLabel(outcome) }),
    recordSearch: (outcome) => searches.inc({ outcome: toOutcomeLabel(outcome) }),
    recordCrossRegistryResolution: (outcome) => crossRegistry.inc({ outcome: toOutcomeLabel(outcome) }),
    recordWebhookOutcome: (outcome) => webhookEvents.inc({ outcome }),
    setWebhookQueueSource(source) {
      webhookQueue = source
    },
    setSqliteWalSource(source) {
      registerSqliteWalMetrics(registers, 'acdp_registry_', source)
    },
  }
}

/** Outcomes are our own codes; anything else (a caller bug) is counted as `other` rather than trusted. */
function toOutcomeLabel(value: string): string {
  return OUTCOME_LABEL.test(value) ? value : 'other'
}
