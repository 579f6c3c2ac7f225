/**
 * What buildApp builds once and every feature plugin (features.ts) receives: the configuration, the deps as the
 * routes see them, and the pieces features share (budgets, request scopes, the context cache, the trust layer).
 *
 * Built in two steps: `prepareRegistry` before the Fastify instance exists (bearer auth must exist first, its
 * route-auth hooks are installed from it), `createRegistryContext` once it does (the witnesses log through it).
 * The steps build everything in the order the registry always has: some pieces draw from `deps.random`.
 */
import { hasSoleWriter } from '@acdp/storage'
import { formatLogId } from '@acdp/protocol'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { type Authentication, identifyWith, setUpAuthentication } from './auth/authentication.js'
import { createPinnedKeyResolver, PinnedKeys } from './auth/pinned-keys.js'
import { createRequestScopes, type RequestScopes } from './auth/read-access.js'
import { RevocationSigners } from './auth/revoked-keys.js'
import type { RegistryConfig } from './core/config.js'
import type { RegistryDeps } from './core/deps.js'
import { registryDidOf } from './core/registry-did.js'
import { TransparencyLog } from './log/transparency-log.js'
import { WitnessAggregator } from './log/witness-cosignatures.js'
import type { RateBudget } from './rate-limit/rate-budget.js'
import { RateLimits } from './rate-limit/rate-limits.js'
import { loadReceiptKeyring, type ReceiptKeyring } from './receipts/receipt-keyring.js'
import { ContextCache } from './retrieval/context-cache.js'
import { createSearchCursorCodec, type SearchCursorCodec } from './search/search-cursor.js'
import { createTenancyPolicy, type TenancyPolicy } from './tenancy/tenancy.js'

/**
 * Hot-context cache bounds (docs/registry/memory.md): entries, and the memory they hold (context-cache.ts
 * `costOf`). 32 MiB keeps a registry publishing for minutes under the 200 MiB RSS target once the cache is full;
 * it holds about 13,000 contexts of 1.5 KB, and every context published since is still one indexed read away.
 */
const CACHE_MAX_ENTRIES = 20_000
const CACHE_MAX_BYTES = 32 * 1024 * 1024
/** On a shared PostgreSQL another instance may supersede a cached head; its status input is re-read after 1 s. */
const SHARED_STORE_STATUS_MAX_AGE_MS = 1000

/** What exists before the Fastify instance. */
export interface RegistryBase {
  config: RegistryConfig
  /** The deps as routes see them: the pinned-key resolver in playground builds, the bearer authenticator. */
  deps: RegistryDeps
  /** Playground builds' pinned agent keys. */
  pins: PinnedKeys | undefined
  rateLimits: RateLimits
  /** One per-agent write budget for publish and lifecycle events (product spec "Limits", behaviour 6). */
  agentWrites: RateBudget
  tenancy: TenancyPolicy
  /** Bearer authentication, with `auth.enabled`. */
  auth: Authentication | undefined
  /** `acdp-registry-discovery` is advertised (search is served). */
  discovery: boolean
  /** Gives the budgets' warnings the app's log once it exists. */
  attachLog(log: FastifyBaseLogger): void
}

/** What every feature plugin receives. */
export interface RegistryContext extends RegistryBase {
  /** The package version (`GET /healthz`, admin status). */
  version: string
  authority: string
  registryDid: string
  cache: ContextCache
  scopes: RequestScopes
  /** The receipt key (receipts, head receipts, checkpoints), when configured. */
  keyring: ReceiptKeyring | undefined
  /** With a receipt key and `log.enabled`. */
  transparencyLog: TransparencyLog | undefined
  /** Cosignature polling of `[[witnesses]]`, with the log and an outbound client. */
  witnesses: WitnessAggregator | undefined
  revocationSigners: RevocationSigners
}

/**
 * A feature's routes: registers them (and only route-scoped hooks) on the root instance, from the context. Called
 * in the order of features.ts, directly rather than through `app.register`, so every root hook (route auth,
 * the publish-outcome hook added after the routes) applies to every route exactly as before.
 */
export type FeaturePlugin = (app: FastifyInstance, context: RegistryContext) => void

/** Throws TypeError on a misuse of `deps` (no auth store with auth on, discovery without a search store). */
export async function prepareRegistry(config: RegistryConfig, givenDeps: RegistryDeps): Promise<RegistryBase> {
  // Playground builds verify producers against pinned keys first (auth/pinned-keys.ts); witnesses keep the
  // plain resolver.
  const pins = config.playground.enabled ? new PinnedKeys(config.playground.pinned_keys) : undefined
  const suppliedDeps: RegistryDeps = pins
    ? {
        ...givenDeps,
        resolver: createPinnedKeyResolver({
          pins,
          pinnedOnly: config.playground.pinned_only,
          fallback: givenDeps.resolver,
          clock: givenDeps.clock,
        }),
        witnessResolver: givenDeps.witnessResolver ?? givenDeps.resolver,
      }
    : givenDeps
  // Built before the app (auth needs its budgets); its warnings reach the app's log once that exists.
  const warnings: { log?: FastifyBaseLogger } = {}
  const rateLimits = new RateLimits(config.rate_limit, {
    shared: suppliedDeps.sharedRateLimits,
    clock: suppliedDeps.clock,
    log: { warn: (object, message) => warnings.log?.warn(object, message) },
    ...(suppliedDeps.metrics ? { metrics: suppliedDeps.metrics } : {}),
  })
  const agentWrites = rateLimits.budget('agent_write', config.limits.publish_rate_per_minute)
  const tenancy = createTenancyPolicy(config)
  const auth = config.auth.enabled ? await setUpAuthentication(config, suppliedDeps, rateLimits, tenancy) : undefined
  // With auth on, the registry's bearer tokens say who is calling, on every route that asks.
  const deps: RegistryDeps = auth ? { ...suppliedDeps, authenticateReader: auth.authenticateReader } : suppliedDeps
  const discovery = config.registry.profiles.includes('acdp-registry-discovery')
  if (discovery && !deps.searchStore) {
    throw new TypeError('acdp-registry-discovery is advertised but deps.searchStore is missing')
  }
  return {
    config,
    deps,
    pins,
    rateLimits,
    agentWrites,
    tenancy,
    auth,
    discovery,
    attachLog: (log) => {
      warnings.log = log
    },
  }
}

export async function createRegistryContext(
  base: RegistryBase,
  app: FastifyInstance,
  version: string,
): Promise<RegistryContext> {
  const { config, deps, auth } = base
  const cache = new ContextCache({
    maxEntries: CACHE_MAX_ENTRIES,
    maxBytes: CACHE_MAX_BYTES,
    statusMaxAgeMs: hasSoleWriter(deps.store.kind) ? Number.POSITIVE_INFINITY : SHARED_STORE_STATUS_MAX_AGE_MS,
  })
  const scopes = createRequestScopes({
    identify: auth ? auth.identify : identifyWith(deps.authenticateReader),
    tenancy: base.tenancy,
    anonymousPublicReads: config.auth.anonymous_public_reads,
    requireBearer: auth !== undefined,
  })
  const authority = config.registry.authority
  const registryDid = registryDidOf(authority)

  // Trust layer (RFC-ACDP-0010/0011/0012): one receipt key signs receipts, head receipts and checkpoints.
  const keyring = loadReceiptKeyring(config)
  const transparencyLog =
    keyring && config.log.enabled
      ? new TransparencyLog(deps, {
          logId: formatLogId(registryDid, config.log.instance),
          key: keyring.signingKey,
          checkpointKeys: new Map([
            [keyring.signingKey.keyId, keyring.publicKey],
            ...keyring.retired.map((k) => [k.keyId, k.publicKey] as const),
          ]),
        })
      : undefined

  // RFC-ACDP-0015 §6.1: cosignatures polled from [[witnesses]], verified, served beside matching checkpoints.
  const witnesses =
    transparencyLog && config.witnesses.length > 0 && deps.outbound
      ? new WitnessAggregator({
          logId: transparencyLog.logId,
          witnesses: config.witnesses,
          outbound: deps.outbound,
          resolver: deps.witnessResolver ?? deps.resolver,
          clock: deps.clock,
          rootAt: (size) => transparencyLog.rootHashAt(size),
          log: app.log,
          ...(deps.metrics ? { metrics: deps.metrics } : {}),
        })
      : undefined
  const revocationSigners = await RevocationSigners.load(deps.store)
  return {
    ...base,
    version,
    authority,
    registryDid,
    cache,
    scopes,
    keyring,
    transparencyLog,
    witnesses,
    revocationSigners,
  }
}

/**
 * Sealed keyset cursors (search, admin listing): `search.cursor_secret_b64`, else a per-process key. Each caller
 * gets its own codec (and, without a configured secret, its own key).
 */
export function cursorCodec(context: Pick<RegistryContext, 'config' | 'deps'>): SearchCursorCodec {
  const { config, deps } = context
  return createSearchCursorCodec({
    secret:
      config.search.cursor_secret_b64 === ''
        ? undefined
        : new Uint8Array(Buffer.from(config.search.cursor_secret_b64, 'base64')),
    ttlSeconds: config.search.cursor_ttl_seconds,
    clock: deps.clock,
    random: deps.random,
  })
}
