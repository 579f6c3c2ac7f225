/**
 * Assembles the outbound webhook feature of one app instance from the configuration and the injected deps: the
 * webhook store, the subscription cache (invalidated through the bus), the outbox hook the ingest calls inside its
 * transaction, the dispatcher, and the route dependencies. buildApp wires it in three steps: pass `outbox` to the
 * ingest (deps.webhookOutbox), register the routes with `routeDeps`, and tie `start`/`close` to the app lifecycle.
 */
import { createOutboundClient, type OutboundClient } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneDeps, WebhookOutbox } from '../core/deps.js'
import { createWebhookStore, type WebhookStore } from './webhook-store.js'
import { isSealedWithCurrentKey } from '../core/secret-box.js'
import {
  createWebhookDispatcher,
  createWebhookOutbox,
  type WebhookDeliverySettings,
  type OutboxWebhookSender,
} from './webhook-delivery.js'
import {
  createSubscriptionCache,
  resealSubscriptionSecrets,
  type WebhookSubscriptionDeps,
} from './webhook-subscriptions.js'

/** What the webhook routes (webhooks/webhooks-routes.ts) call. */
export interface WebhookRouteDeps extends WebhookSubscriptionDeps {
  webhookStore: WebhookStore
  /** Asks the dispatcher to look for due deliveries now. */
  kickDelivery(): void
}

/** The webhook feature of one instance. */
export interface WebhookFeature {
  /** The ingest's in-transaction hook. */
  outbox: Required<WebhookOutbox>
  /** Dependencies of webhooks/webhooks-routes.ts. */
  routeDeps: WebhookRouteDeps
  dispatcher: OutboxWebhookSender
  /** Starts delivering (and re-seals subscription secrets after a key rotation, in the background). */
  start(): void
  /** Stops the dispatcher, waits for in-flight attempts, releases the outbound client. Idempotent. */
  close(): Promise<void>
}

export interface WebhookFeatureInput {
  config: ControlPlaneConfig
  deps: Pick<ControlPlaneDeps, 'database' | 'bus' | 'metrics' | 'secrets' | 'random' | 'clock'>
  /** The SSRF-safe client; default one built from config.outbound (owned and closed by the feature). */
  outbound?: OutboundClient
  /** Dispatcher tuning beyond the configuration (tests). */
  settings?: Partial<WebhookDeliverySettings>
  log?: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
}

/** Builds the feature; nothing runs until `start()`. */
export function createWebhookFeature(input: WebhookFeatureInput): WebhookFeature {
  const { config, deps, log } = input
  const ownsOutbound = input.outbound === undefined
  const outbound =
    input.outbound ??
    createOutboundClient({
      allowCidrs: [...config.outbound.allowCidrs],
      allowHttpForAllowlisted: config.outbound.allowHttpForAllowlisted,
      userAgent: 'acdp-control-plane-webhooks',
    })
  const webhookStore = createWebhookStore(deps.database as Parameters<typeof createWebhookStore>[0])
  const now = (): number => deps.clock().getTime()
  const cache = createSubscriptionCache({ webhookStore, bus: deps.bus, now })
  const outbox = createWebhookOutbox({ webhookStore, cache, random: deps.random, clock: deps.clock })
  const dispatcher = createWebhookDispatcher({
    webhookStore,
    outbound,
    secrets: deps.secrets,
    clock: deps.clock,
    random: deps.random,
    metrics: deps.metrics,
    bus: deps.bus,
    cache,
    settings: { ...readSettings(config), ...input.settings },
    ...(log ? { log } : {}),
  })
  let isClosed = false
  return {
    outbox,
    dispatcher,
    routeDeps: {
      webhookStore,
      secrets: deps.secrets,
      random: deps.random,
      clock: deps.clock,
      checkUrl: (url) => outbound.checkUrl(url),
      bus: deps.bus,
      kickDelivery: () => dispatcher.kick(),
    },
    start() {
      dispatcher.start()
      resealSubscriptionSecrets({ webhookStore, secrets: deps.secrets, random: deps.random }, (sealed) =>
        isSealedWithCurrentKey(deps.secrets, sealed),
      ).then(
        (count) => {
          if (count > 0) log?.warn({ count }, 'webhook: re-sealed subscription secrets with the current key')
        },
        (error: unknown) => log?.error({ err: error }, 'webhook: re-sealing subscription secrets failed'),
      )
    },
    async close() {
      if (isClosed) return
      isClosed = true
      await dispatcher.close()
      cache.close()
      if (ownsOutbound) await outbound.close()
    },
  }
}

/** Dispatcher settings from the configuration (WEBHOOK_* variables). */
function readSettings(config: ControlPlaneConfig): WebhookDeliverySettings {
  const webhooks = config.webhooks
  return {
    sweepIntervalMs: webhooks.retryIntervalMs,
    maxAttempts: webhooks.maxAttempts,
    retryBaseMs: webhooks.retryBaseMs,
    retryMaxMs: Math.max(webhooks.retryMaxMs, webhooks.retryBaseMs),
    requestTimeoutMs: webhooks.requestTimeoutMs,
    concurrency: webhooks.concurrency,
    deliveredRetentionMs: webhooks.deliveredRetentionHours * 3600_000,
  }
}
