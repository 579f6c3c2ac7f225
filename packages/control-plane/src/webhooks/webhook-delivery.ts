/**
 * Outbound webhook delivery (product spec "Outbound webhooks"): the outbox hook that
 * writes one delivery row per matching subscription INSIDE the ingest transaction, and the dispatcher that sends
 * them.
 *
 * Request: `POST <url>`, body `{"id","event","eventId","runId","timestamp","data"}` where `data` is the stream event
 * (the same JSON as the SSE `data:`), with headers
 *   X-ACDP-Signature: sha256=<HMAC-SHA256(secret, body)>                      (spec)
 *   X-ACDP-Event: <event type, snake_case>                                    (spec)
 *   X-ACDP-Event-Id: <delivery id, stable across retries>                     (dedupe key for receivers)
 *   X-ACDP-Timestamp: <unix seconds of this attempt>
 *   X-ACDP-Signature-Timestamped: sha256=<HMAC-SHA256(secret, "<ts>." ‖ body)> (replay-bounded; protocol webhook module)
 *   X-ACDP-Delivery-Attempt: <1-based attempt number, counted when the row is claimed>
 * through the SSRF-safe outbound client (destination re-checked at every attempt, no redirects followed).
 *
 * Retries: a failed attempt (transport error, non-2xx, 3xx) is retried after min(retryMaxMs, retryBaseMs·2^(n−1))
 * with jitter in [50 %, 100 %], or after Retry-After on a 429/503 when that is later; after `maxAttempts` the row is
 * `failed` (kept for inspection and manual redelivery). A destination the outbound policy refuses (private address,
 * plain http…) fails at once. All state (attempts, next_attempt_at, status) lives in the outbox rows, so retries
 * survive restarts; several instances share the work, one claim holder per delivery at a time (see
 * webhooks/webhook-store.ts claiming). The guarantee is at least once: an instance that dies after sending, before
 * recording the answer, leaves the row to be claimed again when its lease expires, and the receiver gets the same
 * X-ACDP-Event-Id under the next attempt number; deduping on that id makes it exactly once in effect.
 */
import { isProtocolError, type OutboundClient, signTimestampedWebhook, signWebhookBody } from '@acdp/protocol'
import { cappedExponentialMs, jitterFraction } from '@acdp/service-kit'
import type { WebhookOutbox } from '../core/deps.js'
import type { ControlPlaneMetrics } from '../core/metrics.js'
import type { StoredEvent } from '../store/schema.js'
import type { ClaimedDelivery, DeliveryOutcome, SubscriptionRecord, WebhookStore } from './webhook-store.js'
import type { EventBus } from '../events/event-bus.js'
import { openSecret, type SecretKeyring } from '../core/secret-box.js'
import { busEventFromStored } from '../events/sse-event.js'
import { formatUuidV4, type SubscriptionCache, subscriptionSecretContext } from './webhook-subscriptions.js'

/** Dispatcher tuning. Times in milliseconds. */
export interface WebhookDeliverySettings {
  /** Periodic safety-net sweep (WEBHOOK_RETRY_INTERVAL_MS); ≤ 0 disables it (scheduled retries still run). */
  sweepIntervalMs: number
  /** Attempts before a delivery is `failed`. */
  maxAttempts: number
  retryBaseMs: number
  retryMaxMs: number
  /** Whole-request deadline of one attempt. */
  requestTimeoutMs: number
  /** Deliveries sent in parallel by one instance (also the claim batch size). */
  concurrency: number
  /** Delivered rows older than this are deleted by the sweep; ≤ 0 keeps them. */
  deliveredRetentionMs: number
}

export const WEBHOOK_DELIVERY_DEFAULTS: WebhookDeliverySettings = {
  sweepIntervalMs: 300_000,
  maxAttempts: 12,
  retryBaseMs: 1000,
  retryMaxMs: 600_000,
  requestTimeoutMs: 10_000,
  concurrency: 16,
  deliveredRetentionMs: 7 * 24 * 3600_000,
}

/** Response bodies of subscribers are read up to this size (and ignored). */
const MAX_RESPONSE_BYTES = 64 * 1024
/** Retry-After is honoured up to this delay. */
const MAX_RETRY_AFTER_MS = 24 * 3600_000
const CLEANUP_EVERY_MS = 3600_000
const PENDING_GAUGE_EVERY_MS = 5000
/** Refusals caused by the receiver's redirect rather than the destination itself: retried like a 3xx. */
const REDIRECT_REFUSALS = new Set([
  'too_many_redirects',
  'redirect_cross_origin',
  'invalid_redirect',
  'credentials_in_url',
])

/**
 * The body of one delivery. `data` is embedded verbatim from the event's single serialisation.
 */
export function formatDeliveryBody(deliveryId: string, event: StoredEvent, data: string): string {
  return (
    `{"id":${JSON.stringify(deliveryId)},"event":${JSON.stringify(event.type)},` +
    `"eventId":${JSON.stringify(event.eventId)},"runId":${JSON.stringify(event.runId)},` +
    `"timestamp":${JSON.stringify(event.ts)},"data":${data}}`
  )
}

/**
 * Creates the outbox hook (`mayEnqueue` always answered): matches the event against the tenant's active subscriptions (from the cache; on a
 * miss read inside `tx`) and writes one pending row per match, due at once.
 */
export function createWebhookOutbox(options: {
  webhookStore: WebhookStore
  cache: SubscriptionCache
  random: (size: number) => Uint8Array
  clock: () => Date
}): Required<WebhookOutbox> {
  const matches = (subscription: { events: readonly string[] }, eventType: string) =>
    subscription.events.length === 0 || subscription.events.includes(eventType)
  return {
    mayEnqueue(tenantId, eventType) {
      const cached = options.cache.peek(tenantId)
      return cached === undefined || cached.some((subscription) => matches(subscription, eventType))
    },
    async enqueue(tx, event) {
      const subscriptions = await options.cache.get(event.tenantId, tx)
      if (subscriptions.length === 0) return
      const matching = subscriptions.filter((s) => matches(s, event.type))
      if (matching.length === 0) return
      const data = busEventFromStored(event).data
      const now = options.clock().getTime()
      await options.webhookStore.insertDeliveries(
        tx,
        matching.map((subscription) => {
          const id = formatUuidV4(options.random(16))
          return {
            id,
            webhookId: subscription.id,
            tenantId: event.tenantId,
            eventSeq: event.id,
            eventType: event.type,
            runId: event.runId,
            body: formatDeliveryBody(id, event, data),
            nextAttemptAt: now,
            createdAt: now,
          }
        }),
      )
    },
  }
}

export interface WebhookDispatcherOptions {
  webhookStore: WebhookStore
  outbound: Pick<OutboundClient, 'request'>
  secrets: SecretKeyring
  clock: () => Date
  random: (size: number) => Uint8Array
  metrics: ControlPlaneMetrics
  /** Kicks a sweep when a committed event of a tenant with subscriptions is published. */
  bus?: Pick<EventBus, 'subscribe'>
  cache?: Pick<SubscriptionCache, 'hasCachedSubscriptions'>
  settings?: Partial<WebhookDeliverySettings>
  log?: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
}

/** The background sender of one instance. */
export interface OutboxWebhookSender {
  /** Starts the timers and the bus-driven kicks. */
  start(): void
  /** Requests a sweep soon (coalesced with any running one). */
  kick(): void
  /** Runs sweeps until nothing is due; resolves with the number of attempts made. */
  sweep(): Promise<number>
  /** Stops timers and waits for in-flight attempts. Idempotent. */
  close(): Promise<void>
}

/** Creates the dispatcher (not started). */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): OutboxWebhookSender {
  const settings: WebhookDeliverySettings = { ...WEBHOOK_DELIVERY_DEFAULTS, ...options.settings }
  const { webhookStore, metrics, log } = options
  const now = (): number => options.clock().getTime()
  const leaseMs = settings.requestTimeoutMs * 3 + 30_000

  let isClosed = false
  let isStarted = false
  let running: Promise<number> | undefined
  let isRerunRequested = false
  let timer: NodeJS.Timeout | undefined
  let kickScheduled = false
  let lastCleanupAt = 0
  let lastGaugeAt = 0
  let unsubscribe: (() => void) | undefined

  const claimToken = (): string => Buffer.from(options.random(12)).toString('base64url')

  const backoffMs = (attempt: number): number => {
    const full = cappedExponentialMs(settings.retryBaseMs, attempt - 1, settings.retryMaxMs)
    return Math.round(full * (0.5 + jitterFraction(options.random) / 2))
  }

  const scheduleRetry = (
    attempt: number,
    responseStatus: number | null,
    errorMessage: string,
    retryAfterMs?: number,
  ): DeliveryOutcome => {
    if (attempt >= settings.maxAttempts) return { status: 'failed', responseStatus, errorMessage }
    const delay = Math.max(backoffMs(attempt), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS))
    return { status: 'pending', nextAttemptAt: now() + delay, responseStatus, errorMessage }
  }

  const attempt = async (
    claim: ClaimedDelivery,
    subscription: SubscriptionRecord | undefined,
  ): Promise<DeliveryOutcome> => {
    const attemptNumber = claim.attempt
    if (subscription === undefined)
      return { status: 'failed', responseStatus: null, errorMessage: 'subscription deleted' }
    if (!subscription.active) return { status: 'failed', responseStatus: null, errorMessage: 'subscription inactive' }
    let secret: string
    try {
      secret = openSecret(options.secrets, subscription.secretSealed, subscriptionSecretContext(subscription.id))
    } catch (error) {
      log?.error({ err: error, webhookId: subscription.id }, 'webhook: cannot open the subscription secret')
      return scheduleRetry(attemptNumber, null, 'subscription secret cannot be opened')
    }
    const timestamp = Math.floor(now() / 1000)
    const headers = {
      'content-type': 'application/json',
      'x-acdp-signature': signWebhookBody(secret, claim.body),
      'x-acdp-event': claim.eventType,
      'x-acdp-event-id': claim.id,
      'x-acdp-timestamp': String(timestamp),
      'x-acdp-signature-timestamped': signTimestampedWebhook(secret, timestamp, claim.body),
      'x-acdp-delivery-attempt': String(attemptNumber),
    }
    try {
      const response = await options.outbound.request(subscription.url, {
        method: 'POST',
        headers,
        body: claim.body,
        maxRedirects: 0,
        maxBodyBytes: MAX_RESPONSE_BYTES,
        totalTimeoutMs: settings.requestTimeoutMs,
      })
      if (response.status >= 200 && response.status < 300)
        return { status: 'delivered', responseStatus: response.status }
      const retryAfterMs =
        response.status === 429 || response.status === 503
          ? parseRetryAfterMs(response.headers['retry-after'], now())
          : undefined
      return scheduleRetry(attemptNumber, response.status, `HTTP ${response.status}`, retryAfterMs)
    } catch (error) {
      if (isProtocolError(error)) {
        const reason = typeof error.details?.reason === 'string' ? error.details.reason : error.code
        if (error.code === 'outbound_refused' && !REDIRECT_REFUSALS.has(reason)) {
          return {
            status: 'failed',
            responseStatus: null,
            errorMessage: `destination refused by the outbound policy (${reason})`,
          }
        }
        const status = typeof error.details?.status === 'number' ? error.details.status : null
        return scheduleRetry(attemptNumber, status, `${error.code} (${reason})`)
      }
      log?.warn({ err: error, deliveryId: claim.id }, 'webhook: delivery attempt failed unexpectedly')
      return scheduleRetry(attemptNumber, null, 'delivery attempt failed')
    }
  }

  const deliver = async (claim: ClaimedDelivery, subscription: SubscriptionRecord | undefined): Promise<void> => {
    const started = performance.now()
    const outcome = await attempt(claim, subscription)
    const label = outcome.status === 'pending' ? 'retry' : outcome.status
    metrics.webhookDeliveryDuration.observe({ outcome: label }, (performance.now() - started) / 1000)
    const isSettled = await webhookStore.settleDelivery({
      id: claim.id,
      leaseOwner: claim.leaseOwner,
      now: now(),
      outcome,
    })
    // Counted once the outcome is stored, so the counter never runs ahead of what GET …/deliveries shows.
    metrics.webhookDeliveries.inc({ status: label })
    if (!isSettled) log?.warn({ deliveryId: claim.id }, 'webhook: claim lost before the outcome was recorded')
  }

  /** One claim-and-send round; returns how many rows it handled. */
  const round = async (): Promise<number> => {
    const at = now()
    const claims = await webhookStore.claimDueDeliveries({
      now: at,
      limit: settings.concurrency,
      leaseOwner: claimToken(),
      leaseUntil: at + leaseMs,
    })
    if (claims.length === 0) return 0
    const subscriptions = new Map(
      (await webhookStore.getSubscriptionsByIds([...new Set(claims.map((c) => c.webhookId))])).map((s) => [s.id, s]),
    )
    await Promise.all(claims.map((claim) => deliver(claim, subscriptions.get(claim.webhookId))))
    return claims.length
  }

  const housekeeping = async (): Promise<void> => {
    const at = now()
    if (settings.deliveredRetentionMs > 0 && at - lastCleanupAt >= CLEANUP_EVERY_MS) {
      lastCleanupAt = at
      await webhookStore.deleteDeliveredBefore(at - settings.deliveredRetentionMs, 10_000)
    }
    if (at - lastGaugeAt >= PENDING_GAUGE_EVERY_MS) {
      lastGaugeAt = at
      metrics.webhookOutboxPending.set(await webhookStore.countPending())
    }
  }

  const scheduleNext = async (): Promise<void> => {
    if (isClosed || !isStarted) return
    const due = await webhookStore.nextDueAt()
    if (isClosed) return
    let delay = settings.sweepIntervalMs > 0 ? settings.sweepIntervalMs : Number.POSITIVE_INFINITY
    if (due !== undefined) delay = Math.min(delay, Math.max(0, due - now()))
    if (timer) clearTimeout(timer)
    timer = undefined
    if (!Number.isFinite(delay)) return
    timer = setTimeout(
      () => {
        timer = undefined
        void sweep()
      },
      Math.min(delay, 2_147_483_647),
    )
    timer.unref()
  }

  const runSweeps = async (): Promise<number> => {
    let total = 0
    try {
      do {
        isRerunRequested = false
        for (;;) {
          const handled = await round()
          total += handled
          if (handled < settings.concurrency || isClosed) break
        }
      } while (isRerunRequested && !isClosed)
      await housekeeping()
    } catch (error) {
      log?.error({ err: error }, 'webhook: delivery sweep failed')
    }
    try {
      await scheduleNext()
    } catch (error) {
      log?.error({ err: error }, 'webhook: cannot schedule the next sweep')
      if (!isClosed && isStarted && timer === undefined) {
        timer = setTimeout(() => void sweep(), 1000)
        timer.unref()
      }
    }
    return total
  }

  const sweep = (): Promise<number> => {
    if (isClosed) return Promise.resolve(0)
    if (running) {
      isRerunRequested = true
      return running
    }
    running = runSweeps().finally(() => {
      running = undefined
    })
    return running
  }

  const kick = (): void => {
    if (isClosed || kickScheduled) return
    if (running) {
      isRerunRequested = true
      return
    }
    kickScheduled = true
    setImmediate(() => {
      kickScheduled = false
      void sweep()
    })
  }

  return {
    start() {
      if (isStarted || isClosed) return
      isStarted = true
      if (options.bus) {
        const cache = options.cache
        unsubscribe = options.bus.subscribe({
          onEvent: (event) => {
            if (!cache || cache.hasCachedSubscriptions(event.tenantId)) kick()
          },
        })
      }
      // Rows left pending by a previous run (crash, restart) are picked up at once.
      kick()
    },
    kick,
    sweep,
    async close() {
      if (isClosed) return
      isClosed = true
      unsubscribe?.()
      if (timer) clearTimeout(timer)
      timer = undefined
      if (running) await running.catch(() => undefined)
    },
  }
}

/**
 * Parses Retry-After (delta seconds or an IMF-fixdate HTTP-date) into a delay from `nowMs`.
 * @param value attacker-controlled (the subscriber's response header).
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000
  // IMF-fixdate (RFC 9110 §5.6.7), the form servers must send: `Sun, 06 Nov 1994 08:49:37 GMT`.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined
}
