/**
 * Outbound webhook subscriptions (product spec "Outbound webhooks"): tenant-scoped CRUD, and the
 * per-tenant cache of active subscriptions the ingest consults inside its transaction.
 *
 * Beyond the product spec: the destination URL is checked against the outbound SSRF policy when it is
 * saved (and again at every delivery); the secret is sealed at rest and returned only once, in the creation
 * response (generated when the caller sends none); unknown ids answer 404 NOT_FOUND on every verb; and the ingest
 * does not query the subscription list per event: it reads a cache that CRUD on any instance invalidates through
 * the event bus (with a TTL as a safety net).
 */
import { isProtocolError } from '@acdp/protocol'
import type { Static } from 'typebox'
import type { WebhookSubscriptionShape } from '../response-schemas/webhooks.js'
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp } from '../core/http/wire-time.js'
import type { StoreTransaction } from '../store/store.js'
import type { SubscriptionRecord, WebhookStore } from './webhook-store.js'
import type { EventBus } from '../events/event-bus.js'
import { openSecret, type SecretKeyring, sealSecret } from '../core/secret-box.js'

/** Invalidation topic of the subscription cache on the event bus. */
export const SUBSCRIPTION_CACHE_TOPIC = 'webhook-subscriptions'

/** Shortest accepted caller-chosen secret (same floor as enrollment secrets). */
export const MIN_SECRET_LENGTH = 16
/** Subscriptions one tenant may hold. */
export const MAX_SUBSCRIPTIONS_PER_TENANT = 100

/** What the subscription service needs. */
export interface WebhookSubscriptionDeps {
  webhookStore: WebhookStore
  secrets: SecretKeyring
  random: (size: number) => Uint8Array
  clock: () => Date
  /** The outbound client's policy check (no connection is made). */
  checkUrl: (url: string) => Promise<void>
  /** Tells every instance a tenant's subscriptions changed. */
  bus: Pick<EventBus, 'publishInvalidation'>
}

/** The wire form of a subscription (secret never included): the route's response schema. */
export type SubscriptionView = Static<typeof WebhookSubscriptionShape>

/** Creation input (validated shape; values still checked here). */
export interface CreateSubscriptionInput {
  url: string
  events?: string[]
  secret?: string
  active?: boolean
}

export interface UpdateSubscriptionInput {
  url?: string
  events?: string[]
  secret?: string
  active?: boolean
}

/** Renders a stored subscription for the wire. */
export function toSubscriptionView(record: SubscriptionRecord): SubscriptionView {
  return {
    id: record.id,
    tenantId: record.tenantId,
    url: record.url,
    events: record.events,
    active: record.active,
    createdAt: formatTimestamp(record.createdAt),
    updatedAt: formatTimestamp(record.updatedAt),
  }
}

/** Sealing context: binds a sealed secret to its subscription row. */
export function subscriptionSecretContext(id: string): string {
  return `webhook-subscription:${id}`
}

/**
 * Creates a subscription. Returns the view plus the plaintext secret, which is never returned again.
 *
 * @throws ControlPlaneError VALIDATION_ERROR for a URL the outbound policy refuses or cannot resolve, a short
 *   secret, bad event types, or when the tenant already has MAX_SUBSCRIPTIONS_PER_TENANT subscriptions.
 */
export async function createSubscription(
  deps: WebhookSubscriptionDeps,
  tenantId: string,
  input: CreateSubscriptionInput,
): Promise<SubscriptionView & { secret: string }> {
  const url = await checkDestination(deps, input.url)
  const events = normaliseEvents(input.events ?? [])
  const secret = input.secret ?? generateSecret(deps.random)
  checkSecret(secret)
  const existing = await deps.webhookStore.listSubscriptions(tenantId)
  if (existing.length >= MAX_SUBSCRIPTIONS_PER_TENANT) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `a tenant may hold at most ${MAX_SUBSCRIPTIONS_PER_TENANT} subscriptions`,
    )
  }
  const id = formatUuidV4(deps.random(16))
  const now = deps.clock().getTime()
  const record: SubscriptionRecord = {
    id,
    tenantId,
    url,
    events,
    secretSealed: sealSecret(deps.secrets, secret, subscriptionSecretContext(id), deps.random),
    active: input.active ?? true,
    createdAt: now,
    updatedAt: now,
  }
  await deps.webhookStore.insertSubscription(record)
  deps.bus.publishInvalidation(SUBSCRIPTION_CACHE_TOPIC, tenantId)
  return { ...toSubscriptionView(record), secret }
}

/** Lists the tenant's subscriptions, oldest first. */
export async function listSubscriptions(deps: WebhookSubscriptionDeps, tenantId: string): Promise<SubscriptionView[]> {
  return (await deps.webhookStore.listSubscriptions(tenantId)).map(toSubscriptionView)
}

/** @throws ControlPlaneError NOT_FOUND when the id is unknown in the tenant (or not a UUID). */
export async function getSubscription(
  deps: WebhookSubscriptionDeps,
  tenantId: string,
  id: string,
): Promise<SubscriptionView> {
  const record = isUuid(id) ? await deps.webhookStore.getSubscription(tenantId, id) : undefined
  if (!record) throw notFound()
  return toSubscriptionView(record)
}

/**
 * Applies a partial update. A new secret is sealed; it is not echoed.
 * @throws ControlPlaneError NOT_FOUND for an unknown id; VALIDATION_ERROR as for creation.
 */
export async function updateSubscription(
  deps: WebhookSubscriptionDeps,
  tenantId: string,
  id: string,
  input: UpdateSubscriptionInput,
): Promise<SubscriptionView> {
  if (!isUuid(id)) throw notFound()
  const patch: Parameters<WebhookStore['updateSubscription']>[2] = { updatedAt: deps.clock().getTime() }
  if (input.url !== undefined) patch.url = await checkDestination(deps, input.url)
  if (input.events !== undefined) patch.events = normaliseEvents(input.events)
  if (input.secret !== undefined) {
    checkSecret(input.secret)
    patch.secretSealed = sealSecret(deps.secrets, input.secret, subscriptionSecretContext(id), deps.random)
  }
  if (input.active !== undefined) patch.active = input.active
  const record = await deps.webhookStore.updateSubscription(tenantId, id, patch)
  if (!record) throw notFound()
  deps.bus.publishInvalidation(SUBSCRIPTION_CACHE_TOPIC, tenantId)
  return toSubscriptionView(record)
}

/** Deletes a subscription and its pending deliveries. @throws ControlPlaneError NOT_FOUND for an unknown id. */
export async function deleteSubscription(deps: WebhookSubscriptionDeps, tenantId: string, id: string): Promise<void> {
  const isDeleted = isUuid(id) && (await deps.webhookStore.deleteSubscription(tenantId, id))
  if (!isDeleted) throw notFound()
  deps.bus.publishInvalidation(SUBSCRIPTION_CACHE_TOPIC, tenantId)
}

/**
 * Re-seals every subscription secret that is not sealed with the current key (after SECRETS_ENCRYPTION_KEY
 * rotation). Compare-and-swap per row, so a concurrent PATCH is never undone. Returns how many were re-sealed.
 */
export async function resealSubscriptionSecrets(
  deps: Pick<WebhookSubscriptionDeps, 'webhookStore' | 'secrets' | 'random'>,
  isCurrent: (sealed: string) => boolean,
): Promise<number> {
  let count = 0
  for (const record of await deps.webhookStore.listAllSubscriptions()) {
    if (isCurrent(record.secretSealed)) continue
    const context = subscriptionSecretContext(record.id)
    const plaintext = openSecret(deps.secrets, record.secretSealed, context)
    const sealed = sealSecret(deps.secrets, plaintext, context, deps.random)
    if (await deps.webhookStore.replaceSealedSecret(record.id, record.secretSealed, sealed)) count += 1
  }
  return count
}

/** The cache of active subscriptions per tenant that the ingest transaction reads. */
export interface SubscriptionCache {
  /** Active subscriptions of `tenantId`; on a miss they are read through `tx` (inside the ingest transaction). */
  get(tenantId: string, tx?: StoreTransaction): Promise<readonly SubscriptionRecord[]>
  /** True when the tenant is known (cached) to have at least one active subscription. */
  hasCachedSubscriptions(tenantId: string): boolean
  /** The tenant's active subscriptions when cached and fresh (what `get` would answer without a read), else undefined. */
  peek(tenantId: string): readonly SubscriptionRecord[] | undefined
  /** Forgets a tenant (`'*'`: every tenant). */
  invalidate(tenantId: string): void
  /** Stops listening to the bus. */
  close(): void
}

/**
 * Creates the cache. Entries live `ttlMs` at most and are dropped at once when the bus reports a change (from
 * any instance) or a relay gap. At most `maxTenants` entries are kept (least recently used evicted first).
 */
export function createSubscriptionCache(options: {
  webhookStore: WebhookStore
  bus: Pick<EventBus, 'onInvalidation'>
  now: () => number
  ttlMs?: number
  maxTenants?: number
}): SubscriptionCache {
  const ttlMs = options.ttlMs ?? 30_000
  const maxTenants = options.maxTenants ?? 10_000
  const entries = new Map<string, { records: readonly SubscriptionRecord[]; loadedAt: number }>()
  // Bumped by every invalidation; a load that started before one must not repopulate a stale list.
  let generation = 0
  const invalidate = (tenantId: string): void => {
    generation += 1
    if (tenantId === '*') entries.clear()
    else entries.delete(tenantId)
  }
  const stopListening = options.bus.onInvalidation((topic, key) => {
    if (topic === SUBSCRIPTION_CACHE_TOPIC || topic === '*') invalidate(key)
  })
  return {
    async get(tenantId, tx) {
      const entry = entries.get(tenantId)
      if (entry && options.now() - entry.loadedAt < ttlMs) {
        entries.delete(tenantId)
        entries.set(tenantId, entry)
        return entry.records
      }
      const startedAt = generation
      const records = Object.freeze(await options.webhookStore.listActiveSubscriptions(tenantId, tx))
      if (startedAt === generation) {
        entries.delete(tenantId)
        entries.set(tenantId, { records, loadedAt: options.now() })
        if (entries.size > maxTenants) {
          const oldest = entries.keys().next().value
          if (oldest !== undefined) entries.delete(oldest)
        }
      }
      return records
    },
    hasCachedSubscriptions(tenantId) {
      return (entries.get(tenantId)?.records.length ?? 0) > 0
    },
    peek(tenantId) {
      const entry = entries.get(tenantId)
      return entry && options.now() - entry.loadedAt < ttlMs ? entry.records : undefined
    },
    invalidate,
    close: stopListening,
  }
}

async function checkDestination(deps: WebhookSubscriptionDeps, raw: string): Promise<string> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ControlPlaneError('VALIDATION_ERROR', 'url must be an absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ControlPlaneError('VALIDATION_ERROR', 'url must use https')
  }
  try {
    await deps.checkUrl(url.href)
  } catch (error) {
    if (isProtocolError(error) && (error.code === 'outbound_refused' || error.code === 'outbound_failed')) {
      const reason = typeof error.details?.reason === 'string' ? error.details.reason : error.code
      throw new ControlPlaneError('VALIDATION_ERROR', `url is refused by the outbound policy (${reason})`, {
        cause: error,
      })
    }
    throw error
  }
  return url.href
}

const EVENT_TYPE = /^[A-Za-z0-9_.:-]{1,128}$/

function normaliseEvents(events: readonly string[]): string[] {
  if (events.length > 64) throw new ControlPlaneError('VALIDATION_ERROR', 'events lists at most 64 event types')
  for (const type of events) {
    if (!EVENT_TYPE.test(type))
      throw new ControlPlaneError('VALIDATION_ERROR', `events: "${type.slice(0, 40)}" is not an event type`)
  }
  return [...new Set(events)]
}

function checkSecret(secret: string): void {
  if (secret.length < MIN_SECRET_LENGTH || secret.length > 512) {
    throw new ControlPlaneError('VALIDATION_ERROR', `secret must be ${MIN_SECRET_LENGTH} to 512 characters`)
  }
}

function generateSecret(random: (size: number) => Uint8Array): string {
  return `whsec_${Buffer.from(random(32)).toString('base64url')}`
}

function notFound(): ControlPlaneError {
  return new ControlPlaneError('NOT_FOUND', 'webhook subscription not found')
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** True for a lowercase UUID. @param value attacker-controlled (path parameter). */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}

/** Formats 16 random bytes as a UUID v4 (version and variant bits set). */
export function formatUuidV4(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new TypeError('a UUID needs 16 bytes')
  const b = Uint8Array.from(bytes)
  b[6] = ((b[6] as number) & 0x0f) | 0x40
  b[8] = ((b[8] as number) & 0x3f) | 0x80
  const hex = Buffer.from(b).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
