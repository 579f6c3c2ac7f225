/**
 * What the registry needs from the outside world, injected so tests control time, randomness, DNS and the
 * network (STYLE rule 10). `createDefaultDeps` builds the production set from the configuration.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import {
  createOutboundClient,
  type DidMethod,
  DidResolver,
  type KeyResolver,
  MAX_DID_DOCUMENT_BYTES,
  type OutboundClient,
  type SigningKey,
} from '@acdp/protocol'
import type { FastifyBaseLogger } from 'fastify'
import type { RegistryConfig } from './config.js'
import type { RequestHead } from './http/request-head.js'
import { createRegistryMetrics, type RegistryMetrics } from './metrics.js'
import { createFederatedResolver } from '../federation/federated-resolver.js'
import { RegistryEvents } from './registry-events.js'
import { createWebhookDispatcher, type WebhookDispatcher, type WebhookLog } from '../webhooks/webhooks.js'
import type { AuthStore } from '../auth/auth-store.js'
import type { SharedRateLimitStore } from '../rate-limit/rate-limit-store.js'
import type { RevocationFeedStore } from '../auth/revocation-feed-store.js'
import type { ContextSearchStore } from '../search/search-store.js'
import type { RegistryStore } from '../store/store.js'
import type { PinnedKeyEntry } from '../auth/pinned-keys.js'

// Resolves `signature.key_id` to key material (RFC-ACDP-0001 §5.11): the SDK's resolver interface, which
// `DidResolver` implements.
export type { KeyResolver }

/**
 * Establishes who is reading (RFC-ACDP-0008 §6.2). Resolves with the requester's DID, or null for an anonymous
 * request; throws `RegistryError('not_authorized')` for a credential that is present but invalid. `request` is
 * the route's Fastify request itself, typed as the part a service may read.
 */
export type ReaderAuthenticator = (request: RequestHead) => Promise<string | null>

/** A foreign context as served by its origin registry (RFC-ACDP-0006), fetched anonymously. */
export interface ForeignContext {
  /** The origin's body JSON text, byte for byte. */
  bodyText: string
  /** The origin's `registry_state` object. */
  registryState: Record<string, unknown>
  /** The body's `content_hash` (ETag). */
  contentHash: string
  /** Verified evidence members of the origin's envelope, as JSON text to append (`,"registry_receipt":…`), or ''. */
  evidenceJson: string
}

/**
 * Resolves ctx_ids of other authorities when `registry.cross_registry_resolution = true`.
 * Throws `RegistryError` (`not_found`, `cross_registry_resolution_failed`) on failure.
 */
export interface CrossRegistryResolver {
  resolve(ctxId: string): Promise<ForeignContext>
}

export interface RegistryDeps {
  store: RegistryStore
  /** Current time; registry-minted timestamps are floored to the millisecond. */
  clock: () => Date
  /** CSPRNG bytes (ctx_id UUIDs, request ids). */
  random: (size: number) => Uint8Array
  resolver: KeyResolver
  /** Resolves witness keys when the producer policy (`auth.did_methods`) would refuse a witness's DID method. */
  witnessResolver?: KeyResolver
  /** The SSRF-policy outbound client (DID documents, federation, webhooks); closed by the owner. */
  outbound?: OutboundClient
  /** Pino-compatible logger; `false` silences logging (tests). Default: pino at `registry.log_level`. */
  logger?: FastifyBaseLogger | false
  /** The publish / retrieval hook other components subscribe to. */
  events: RegistryEvents
  /**
   * Read authentication when `auth.enabled` is false (embedders, tests); default: every caller is anonymous.
   * With `auth.enabled` the registry's bearer JWTs authenticate instead.
   */
  authenticateReader?: ReaderAuthenticator
  /** Challenges and token revocations; required when `auth.enabled`. */
  authStore?: AuthStore
  /** Our revocation feed and peers' feed cursors; without it GET /auth/revocations is 501 and no feed is polled. */
  revocationFeedStore?: RevocationFeedStore
  /** The buckets every instance shares; required when `rate_limit.backend = "postgres"`. Closed by its owner. */
  sharedRateLimits?: SharedRateLimitStore
  /** Foreign ctx_id resolution; without it foreign ids answer 404. */
  crossRegistry?: CrossRegistryResolver
  /** Search reads; required when `acdp-registry-discovery` is advertised. */
  searchStore?: ContextSearchStore
  /** Webhook sender; subscribed to the publish/retrieval events. Closed by whoever created it. */
  webhooks?: WebhookDispatcher
  /** Prometheus metrics; `GET /metrics` is mounted when `metrics.enabled`. */
  metrics?: RegistryMetrics
  /**
   * The registry's own signing key (the receipt key where receipts run): signs registry-initiated lifecycle events
   * (RFC-ACDP-0013 §5). Without it those events are recorded unsigned.
   */
  registrySigningKey?: SigningKey
  /**
   * Re-reads `[[playground.pinned_keys]]` from the configuration source with every startup rule applied (throws
   * `ConfigError` when startup would refuse it). `POST /admin/pinned-keys/reload` answers 501 without it.
   */
  reloadPinnedKeys?: () => readonly PinnedKeyEntry[]
}

/** The accepted DID methods of the config, in the resolver's vocabulary. */
export function allowedDidMethods(config: RegistryConfig): DidMethod[] {
  return config.auth.did_methods.map((m) => (m === 'did:key' ? 'key' : 'web'))
}

/**
 * Builds production dependencies around an open store: system clock, CSPRNG, the outbound client from
 * `[outbound]`, a caching DID resolver fetching did:web documents through it, metrics (when enabled), the
 * webhook dispatcher (disabled unless `webhook.enabled`) and the cross-registry resolver (when
 * `registry.cross_registry_resolution`). Entries in `overrides` win. The caller owns `outbound` and `webhooks`
 * and closes them (see start.ts).
 */
export function createDefaultDeps(
  config: RegistryConfig,
  storage: {
    store: RegistryStore
    searchStore?: ContextSearchStore
    authStore?: AuthStore
    revocationFeedStore?: RevocationFeedStore
    sharedRateLimits?: SharedRateLimitStore
  },
  overrides: Partial<RegistryDeps> = {},
  log: WebhookLog = silentLog,
): RegistryDeps {
  const clock = overrides.clock ?? (() => new Date())
  const random = overrides.random ?? createRandomPool()
  const outbound =
    overrides.outbound ??
    createOutboundClient({
      allowCidrs: [...config.outbound.allow_cidrs],
      allowHttpForAllowlisted: config.outbound.allow_http_for_allowlisted,
      trustedCaCertificates: config.outbound.trusted_ca_paths.map((path) => readFileSync(path, 'utf8')),
      connectTimeoutMs: config.outbound.connect_timeout_ms,
      totalTimeoutMs: config.outbound.total_timeout_ms,
      maxRedirects: config.outbound.max_redirects,
      userAgent: 'acdp-registry',
    })
  const didResolver = (allowedMethods: DidMethod[]) =>
    new DidResolver({
      fetchDidDocument: async (url) => {
        const response = await outbound.request(url, {
          headers: { accept: 'application/did+json, application/json' },
          maxBodyBytes: MAX_DID_DOCUMENT_BYTES,
        })
        return { status: response.status, body: response.body }
      },
      clock: () => clock().getTime(),
      cacheTtlMs: config.did_resolution.cache_ttl_seconds * 1000,
      minRefetchIntervalMs: config.did_resolution.min_refetch_interval_seconds * 1000,
      maxEntries: config.did_resolution.max_entries,
      allowedMethods,
    })
  const resolver = overrides.resolver ?? didResolver(allowedDidMethods(config))
  // auth.did_methods is the PRODUCER policy; a did:key witness (RFC-ACDP-0015 §4) must still resolve when
  // producers are limited to did:web, or every cosignature it sends would be dropped as unresolvable.
  const witnessResolver =
    overrides.witnessResolver ??
    (config.witnesses.some((w) => w.did.startsWith('did:key:')) && !config.auth.did_methods.includes('did:key')
      ? didResolver(['web', 'key'])
      : undefined)
  const metrics =
    overrides.metrics ??
    (config.metrics.enabled
      ? createRegistryMetrics({ durationBuckets: [...config.metrics.duration_buckets], collectProcessMetrics: true })
      : undefined)
  const webhooks =
    overrides.webhooks ??
    createWebhookDispatcher(
      { ...config.webhook },
      {
        client: outbound,
        log,
        clock,
        random,
        ...(metrics ? { onOutcome: (outcome) => metrics.recordWebhookOutcome(outcome) } : {}),
      },
    )
  metrics?.setWebhookQueueSource(() => webhooks.stats())
  const crossRegistry =
    overrides.crossRegistry ??
    (config.registry.cross_registry_resolution
      ? createFederatedResolver({
          client: outbound,
          resolver,
          clock,
          trustedOrigins: config.registry.trusted_origins,
          onUnknownStatus: (authority, status) =>
            log.warn(
              { authority, status },
              'origin registry served a registry_state.status this version does not define; relayed (RFC-ACDP-0004 §4.1)',
            ),
          ...(metrics ? { onOutcome: (outcome: string) => metrics.recordCrossRegistryResolution(outcome) } : {}),
        })
      : undefined)
  return {
    store: storage.store,
    ...(storage.searchStore ? { searchStore: storage.searchStore } : {}),
    ...(storage.authStore ? { authStore: storage.authStore } : {}),
    ...(storage.revocationFeedStore ? { revocationFeedStore: storage.revocationFeedStore } : {}),
    ...(storage.sharedRateLimits ? { sharedRateLimits: storage.sharedRateLimits } : {}),
    clock,
    random,
    resolver,
    ...(witnessResolver ? { witnessResolver } : {}),
    outbound,
    events: new RegistryEvents(),
    webhooks,
    ...(metrics ? { metrics } : {}),
    ...(crossRegistry ? { crossRegistry } : {}),
    ...overrides,
  }
}

const silentLog: WebhookLog = { info() {}, warn() {}, error() {} }

/**
 * CSPRNG bytes drawn from a pre-filled pool: one `randomBytes` call per 4 KiB instead of one per request (every
 * request needs 16 bytes for its id, every publish 16 more for its ctx_id). Bytes are handed out once, never
 * reused; large requests bypass the pool. Node's `randomUUID` pools the same way.
 */
export function createRandomPool(poolBytes = 4096): (size: number) => Uint8Array {
  let pool = new Uint8Array(0)
  let offset = 0
  return (size) => {
    if (size > poolBytes / 4) return new Uint8Array(randomBytes(size))
    if (offset + size > pool.length) {
      pool = new Uint8Array(randomBytes(poolBytes))
      offset = 0
    }
    const out = pool.slice(offset, offset + size)
    offset += size
    return out
  }
}
