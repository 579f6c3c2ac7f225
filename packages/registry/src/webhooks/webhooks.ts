/**
 * Outbound registry webhooks (product spec registry.md "Events").
 *
 * Best-effort delivery of three event types to one configured receiver: a bounded in-memory queue that never
 * blocks or fails the triggering request, HMAC-signed deliveries through the outbound SSRF policy client only,
 * retries with capped exponential backoff on 429 / 5xx / transport errors, a few concurrent deliveries, and a
 * graceful drain on close. Events are lost on restart by design (no outbox), as the product spec describes.
 */
import { setTimeout as sleepTimer } from 'node:timers/promises'
import { cappedExponentialMs, jitterFraction } from '@acdp/service-kit'
import {
  isProtocolError,
  type OutboundClient,
  type RegistryWebhookEventFields,
  signTimestampedWebhook,
  signWebhookBody,
  signWebhookV2,
  WEBHOOK_EVENT_HEADER_NAMES,
  WEBHOOK_EVENT_SCHEMA_VERSION,
  WEBHOOK_HEADERS,
} from '@acdp/protocol'

/** The `[webhook]` configuration section, keys as in the TOML file (`webhook.url`, `webhook.queue_capacity`…). */
export interface WebhookConfig {
  enabled: boolean
  /** Receiver URL; HTTPS and a public authority unless the outbound policy allowlists it. */
  url: string
  /** HMAC key; never logged. */
  secret: string
  /** Per-delivery-attempt deadline, whole request included. */
  timeout_seconds: number
  /** Retries after the first attempt (so at most `max_retries + 1` attempts). */
  max_retries: number
  /** Events held at once (queued, in flight, or waiting to retry); beyond it new events are dropped. */
  queue_capacity: number
}

/** First retry delay; each later retry doubles it (registry.md "Delivery rules" 4). */
export const WEBHOOK_BACKOFF_INITIAL_MS = 250
/** Ceiling of a single retry delay. */
export const WEBHOOK_BACKOFF_CAP_MS = 15_000
/** Deliveries running at once: enough to hide one slow receiver round trip, few enough to stay polite. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 4
/** The receiver's answer is never read; a small cap keeps a hostile receiver from making us buffer it. */
const RESPONSE_BODY_CAP_BYTES = 16 * 1024

/**
 * What happened to an event, for metrics: `enqueued`; `dropped_queue_full` (queue at capacity);
 * `delivered` (2xx); `retried` (one retry scheduled); `failed_permanent` (non-429 4xx or policy refusal);
 * `failed_exhausted` (retries used up); `dropped_shutdown` (still pending when the drain deadline passed).
 */
export type WebhookOutcome =
  | 'enqueued'
  | 'dropped_queue_full'
  | 'delivered'
  | 'retried'
  | 'failed_permanent'
  | 'failed_exhausted'
  | 'dropped_shutdown'

/** The outbound policy client surface used here (`createOutboundClient` from @acdp/protocol). */
export type WebhookOutboundClient = Pick<OutboundClient, 'request' | 'checkUrl'>

/** Minimal structured logger (pino's call shape). Messages never carry the secret or the body. */
export interface WebhookLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/** Injected effects. Tests pass a recording `sleep` so retries never wait on the wall clock. */
export interface WebhookDeps {
  client: WebhookOutboundClient
  log: WebhookLog
  clock: () => Date
  /** CSPRNG bytes (event ids). */
  random: (byteLength: number) => Uint8Array
  /** Resolves after `ms`, or early (rejecting or resolving) when `signal` aborts. Default: a real timer. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  /** Uniform [0, 1) for backoff jitter. Default: derived from `random`. */
  jitter?: () => number
  /** Observer for metrics; must not throw. */
  onOutcome?: (outcome: WebhookOutcome) => void
  concurrency?: number
}

/** Queue snapshot for `/admin/status` and the queue-depth gauge. */
export interface WebhookQueueStats {
  enabled: boolean
  /** Events held: queued, being delivered, or waiting for a retry. */
  queue_in_flight: number
  queue_capacity: number
}

/** The registry's webhook sender. `emit` never throws and never waits for delivery. */
export interface WebhookDispatcher {
  /**
   * Queues one event. Returns the minted `event_id`, or `undefined` when webhooks are disabled, the
   * dispatcher is closing, or the queue is full (dropped with a warning and a `dropped_queue_full` outcome).
   * `tenantId` is sent as `X-Tenant-Id` for tenant-scoped events.
   */
  emit(event: RegistryWebhookEventFields, options?: { tenantId?: string }): string | undefined
  stats(): WebhookQueueStats
  /**
   * Stops accepting events and waits for pending deliveries up to `drainTimeoutMs` (default 10 s); events still
   * pending after it are dropped (`dropped_shutdown`). Idempotent.
   */
  close(options?: { drainTimeoutMs?: number }): Promise<void>
}

/** Default drain budget on close, inside the product's 30 s graceful-shutdown window. */
export const DEFAULT_WEBHOOK_DRAIN_TIMEOUT_MS = 10_000

/**
 * Refuses a webhook configuration that must not start (registry.md "Delivery rules" 5–6): enabled with an empty
 * secret, a non-positive capacity/timeout, a negative retry count, or a URL the outbound SSRF policy refuses.
 * Call at startup, before binding.
 *
 * @throws Error naming the key and the fix; the policy client's ProtocolError is kept as `cause`.
 */
export async function assertWebhookConfigAllowed(config: WebhookConfig, client: WebhookOutboundClient): Promise<void> {
  if (!config.enabled) return
  if (config.secret.length === 0) throw new Error('webhook.secret must be non-empty when webhook.enabled = true')
  if (!Number.isSafeInteger(config.queue_capacity) || config.queue_capacity < 1) {
    throw new Error('webhook.queue_capacity must be an integer ≥ 1')
  }
  if (!Number.isSafeInteger(config.max_retries) || config.max_retries < 0) {
    throw new Error('webhook.max_retries must be an integer ≥ 0')
  }
  if (!(config.timeout_seconds > 0) || !Number.isFinite(config.timeout_seconds)) {
    throw new Error('webhook.timeout_seconds must be a positive number')
  }
  if (config.url.length === 0) throw new Error('webhook.url must be set when webhook.enabled = true')
  try {
    await client.checkUrl(config.url)
  } catch (error) {
    const reason = isProtocolError(error) ? error.message : 'invalid URL'
    throw new Error(`webhook.url is refused by the outbound policy (HTTPS to a public authority required): ${reason}`, {
      cause: error,
    })
  }
}

/**
 * The retry delay before retry number `retry` (0-based): 250 ms · 2^retry, capped at 15 s, stretched by up to
 * 20 % of jitter (never below the nominal delay, never above the cap) so many registries restarted together do
 * not retry in lockstep. A receiver's `Retry-After` (seconds) lengthens the delay up to the cap, never shortens it.
 */
export function computeWebhookBackoffMs(retry: number, jitter: number, retryAfterSeconds?: number): number {
  const nominal = cappedExponentialMs(WEBHOOK_BACKOFF_INITIAL_MS, retry, WEBHOOK_BACKOFF_CAP_MS)
  let delay = Math.min(WEBHOOK_BACKOFF_CAP_MS, nominal * (1 + 0.2 * jitter))
  if (retryAfterSeconds !== undefined)
    delay = Math.max(delay, Math.min(WEBHOOK_BACKOFF_CAP_MS, retryAfterSeconds * 1000))
  return Math.floor(delay)
}

/**
 * Rewrites a wire ctx_id (`acdp://<authority>/<id>`) into the event form `<authority>/<id>` (registry.md
 * "Resources": ctx_id is `<authority>/<id>` in events). A value without the scheme is returned unchanged.
 */
export function toEventCtxId(ctxId: string): string {
  return ctxId.startsWith('acdp://') ? ctxId.slice('acdp://'.length) : ctxId
}

/** A pending delivery: the serialized body is built once and re-sent byte for byte on every retry. */
interface PendingDelivery {
  eventId: string
  eventHeader: string
  body: Uint8Array
  tenantId: string | undefined
}

/**
 * Builds the dispatcher for `config`. When `config.enabled` is false the result accepts and discards events
 * (no log, no metric) so callers need not branch.
 */
export function createWebhookDispatcher(config: WebhookConfig, deps: WebhookDeps): WebhookDispatcher {
  if (!config.enabled) return createDisabledDispatcher(config)
  return new QueueingDispatcher(config, deps)
}

function createDisabledDispatcher(config: WebhookConfig): WebhookDispatcher {
  return {
    emit: () => undefined,
    stats: () => ({ enabled: false, queue_in_flight: 0, queue_capacity: config.queue_capacity }),
    close: async () => {},
  }
}

type AttemptResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'permanent'; status?: number; reason: string }
  | { kind: 'transient'; status?: number; reason: string; retryAfterSeconds?: number }

class QueueingDispatcher implements WebhookDispatcher {
  /** Events not yet picked up by a worker. Only `emit` appends; only `pump` shifts. */
  private readonly waiting: PendingDelivery[] = []
  /** Events held in total (waiting + being delivered or backing off). Never exceeds `queue_capacity`. */
  private held = 0
  private running = 0
  private isClosing = false
  private closed: Promise<void> | undefined
  private readonly abort = new AbortController()
  private readonly idleWaiters: Array<() => void> = []
  private readonly concurrency: number
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  private readonly jitter: () => number

  constructor(
    private readonly config: WebhookConfig,
    private readonly deps: WebhookDeps,
  ) {
    this.concurrency = Math.max(1, deps.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY)
    this.sleep = deps.sleep ?? ((ms, signal) => sleepTimer(ms, undefined, { signal }))
    this.jitter = deps.jitter ?? (() => jitterFraction(deps.random))
  }

  emit(event: RegistryWebhookEventFields, options: { tenantId?: string } = {}): string | undefined {
    try {
      if (this.isClosing) return undefined
      if (this.held >= this.config.queue_capacity) {
        this.deps.log.warn(
          { event_type: event.type, queue_capacity: this.config.queue_capacity },
          'webhook queue full; event dropped',
        )
        this.observe('dropped_queue_full')
        return undefined
      }
      const eventId = formatUuidV4(this.deps.random(16))
      // The envelope members come first and the variant cannot carry them (typed), so no key is ever duplicated.
      const envelope = { ...event, event_id: eventId, schema_version: WEBHOOK_EVENT_SCHEMA_VERSION }
      const body = Buffer.from(JSON.stringify(envelope), 'utf8')
      this.waiting.push({
        eventId,
        eventHeader: WEBHOOK_EVENT_HEADER_NAMES[event.type],
        body,
        tenantId: options.tenantId,
      })
      this.held += 1
      this.observe('enqueued')
      this.pump()
      return eventId
    } catch (error) {
      // Delivery must never fail the triggering request; an unexpected fault here is logged and swallowed.
      this.deps.log.error({ err: error, event_type: event.type }, 'webhook event could not be queued')
      return undefined
    }
  }

  stats(): WebhookQueueStats {
    return { enabled: true, queue_in_flight: this.held, queue_capacity: this.config.queue_capacity }
  }

  close(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    this.closed ??= this.drain(options.drainTimeoutMs ?? DEFAULT_WEBHOOK_DRAIN_TIMEOUT_MS)
    return this.closed
  }

  private async drain(drainTimeoutMs: number): Promise<void> {
    this.isClosing = true
    if (this.held === 0) return
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    const deadline = new AbortController()
    const timedOut = sleepTimer(drainTimeoutMs, 'timeout' as const, { signal: deadline.signal }).catch(
      () => 'idle' as const,
    )
    const winner = await Promise.race([idle.then(() => 'idle' as const), timedOut])
    deadline.abort()
    if (winner === 'idle') return
    // Deadline passed: cut retry back-offs short and drop whatever has not been delivered.
    const dropped = this.waiting.length
    this.waiting.length = 0
    this.held -= dropped
    for (let i = 0; i < dropped; i += 1) this.observe('dropped_shutdown')
    this.deps.log.warn({ dropped }, 'webhook drain deadline passed; pending events dropped')
    this.abort.abort()
    if (this.held > 0) await idle
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const delivery = this.waiting.shift()!
      this.running += 1
      void this.deliver(delivery).finally(() => {
        this.running -= 1
        this.held -= 1
        this.pump()
        if (this.held === 0) for (const wake of this.idleWaiters.splice(0)) wake()
      })
    }
  }

  /** Runs every attempt of one delivery. Never rejects. */
  private async deliver(delivery: PendingDelivery): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const result = await this.attempt(delivery)
      const context = { event_id: delivery.eventId, event: delivery.eventHeader, attempt: attempt + 1 }
      if (result.kind === 'delivered') {
        this.observe('delivered')
        return
      }
      if (result.kind === 'permanent') {
        this.deps.log.warn({ ...context, status: result.status, reason: result.reason }, 'webhook delivery refused')
        this.observe('failed_permanent')
        return
      }
      if (attempt >= this.config.max_retries || this.abort.signal.aborted) {
        this.deps.log.warn(
          { ...context, status: result.status, reason: result.reason },
          'webhook delivery failed; retries exhausted, event dropped',
        )
        this.observe(this.abort.signal.aborted ? 'dropped_shutdown' : 'failed_exhausted')
        return
      }
      const delayMs = computeWebhookBackoffMs(attempt, this.jitter(), result.retryAfterSeconds)
      this.observe('retried')
      try {
        await this.sleep(delayMs, this.abort.signal)
      } catch {
        // Aborted by the drain deadline: the loop's next check drops the event.
      }
      if (this.abort.signal.aborted) {
        this.observe('dropped_shutdown')
        return
      }
    }
  }

  private async attempt(delivery: PendingDelivery): Promise<AttemptResult> {
    const nowSeconds = Math.floor(this.deps.clock().getTime() / 1000)
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [WEBHOOK_HEADERS.signature]: signWebhookBody(this.config.secret, delivery.body),
      [WEBHOOK_HEADERS.event]: delivery.eventHeader,
      [WEBHOOK_HEADERS.eventId]: delivery.eventId,
      [WEBHOOK_HEADERS.timestamp]: String(nowSeconds),
      [WEBHOOK_HEADERS.signatureTimestamped]: signTimestampedWebhook(this.config.secret, nowSeconds, delivery.body),
      // Binds X-Tenant-Id and X-ACDP-Event-Id into the MAC, so a captured delivery cannot be replayed into another
      // tenant or under a fresh id (docs/registry/webhooks.md "Request headers"). No X-Run-Id is sent: run_id is
      // in the body.
      [WEBHOOK_HEADERS.signatureV2]: signWebhookV2(
        this.config.secret,
        nowSeconds,
        { tenantId: delivery.tenantId, runId: undefined, eventId: delivery.eventId },
        delivery.body,
      ),
    }
    if (delivery.tenantId !== undefined) headers['x-tenant-id'] = delivery.tenantId
    try {
      const response = await this.deps.client.request(this.config.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        maxBodyBytes: RESPONSE_BODY_CAP_BYTES,
        totalTimeoutMs: Math.ceil(this.config.timeout_seconds * 1000),
      })
      return classifyStatus(response.status, response.headers['retry-after'])
    } catch (error) {
      if (isProtocolError(error) && error.code === 'outbound_refused') {
        return { kind: 'permanent', reason: 'outbound_refused' }
      }
      return { kind: 'transient', reason: isProtocolError(error) ? error.code : 'transport_error' }
    }
  }

  private observe(outcome: WebhookOutcome): void {
    try {
      this.deps.onOutcome?.(outcome)
    } catch {
      // A metrics observer fault must not disturb delivery.
    }
  }
}

/** 2xx delivered; 429 and 5xx retried; any other status (1xx, 3xx left over, non-429 4xx) is permanent. */
function classifyStatus(status: number, retryAfter: string | undefined): AttemptResult {
  if (status >= 200 && status < 300) return { kind: 'delivered', status }
  if (status === 429 || (status >= 500 && status < 600)) {
    const retryAfterSeconds = parseRetryAfterSeconds(retryAfter)
    return {
      kind: 'transient',
      status,
      reason: `status_${status}`,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    }
  }
  return { kind: 'permanent', status, reason: `status_${status}` }
}

/** attacker-controlled: the receiver's Retry-After; only the delta-seconds form is honoured. */
function parseRetryAfterSeconds(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,6}\s*$/.test(text)) return undefined
  return Number(text.trim())
}

/** RFC 9562 §5.4 layout over 16 CSPRNG bytes: version nibble 4, variant bits 10. */
function formatUuidV4(bytes: Uint8Array): string {
  if (bytes.length < 16) throw new TypeError('random must return the requested number of bytes')
  const b = Uint8Array.from(bytes.subarray(0, 16))
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const hex = Buffer.from(b).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
