/**
 * `buildApp(config, deps)`: the registry as a ready Fastify instance, not listening. Wiring only — routes hold
 * the HTTP shape, services the behaviour, the store the persistence (STYLE rules 3–4).
 */
import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import Fastify, {
  type FastifyInstance,
  LogController,
  type FastifyRequest,
  type FastifySchemaCompiler,
  type FastifyServerOptions,
} from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { RegistryConfig } from './core/config.js'
import type { RegistryDeps } from './core/deps.js'
import {
  ACDP_MEDIA_TYPE,
  installErrorHandling,
  RegistryError,
  sendRegistryError,
  toRegistryError,
} from './core/errors.js'
import { installRouteAuthentication } from './core/http/route-auth.js'
import { answerClientError } from './core/http/client-error.js'
import { clientIpOf, createProxyMatcher } from './core/http/client-ip.js'
import { installCors } from './core/http/cors.js'
import { installJsonBodyParser } from './core/http/json-body.js'
import { createRequestIdGenerator } from './core/http/request-id.js'
import { installAccessLog } from './core/access-log.js'
import { registerHttpMetrics } from './core/metrics-http.js'
import { registerAdminLogRoute } from './log/admin-log-routes.js'
import { registerPinnedKeysReloadRoute } from './auth/admin-pinned-keys-routes.js'
import { registerAdminStatusRoute } from './admin/admin-status-routes.js'
import { type AuthRoutesOptions, registerAuthRoutes } from './auth/auth-routes.js'
import { EMPTY_JWKS, registerJwksRoute } from './auth/jwks-routes.js'
import { registerContextRoutes } from './publish/contexts-routes.js'
import { registerLifecycleRoutes } from './lifecycle/lifecycle-routes.js'
import { registerLineageRoutes } from './lineage/lineages-routes.js'
import { registerLogRoutes } from './log/log-routes.js'
import { registerMetricsRoute } from './core/metrics-routes.js'
import { registerAdminContextsRoute } from './admin/admin-contexts-routes.js'
import { type CallerIdentifier, type CallerIdentity, createRequestScopes } from './auth/read-access.js'
import { registerSearchRoute } from './search/search-routes.js'
import { registerWellKnownRoutes } from './discovery/well-known-routes.js'
import { formatLogId } from '@acdp/protocol'
import { AuthRequestLimits } from './rate-limit/auth-request-limits.js'
import { authenticateBearer } from './auth/bearer-auth.js'
import { BearerTokens, loadTokenSigningKeys } from './auth/bearer-tokens.js'
import { ACDP_VERSION, buildCapabilitiesDocument, registryDidOf } from './discovery/capabilities.js'
import { ContextCache } from './retrieval/context-cache.js'
import { buildRegistryDidDocument, loadReceiptKeyring } from './receipts/receipt-keyring.js'
import { RateLimits } from './rate-limit/rate-limits.js'
import { RevocationFeedPoller } from './auth/revocation-feed-poller.js'
import { TransparencyLog } from './log/transparency-log.js'
import { WitnessAggregator } from './log/witness-cosignatures.js'
import { RevocationSigners } from './auth/revoked-keys.js'
import { createPinnedKeyResolver, PinnedKeys } from './auth/pinned-keys.js'
import { createSearchCursorCodec, type SearchCursorCodec } from './search/search-cursor.js'
import { createTenancyPolicy, DEFAULT_TENANT, type TenancyPolicy } from './tenancy/tenancy.js'
import { REGISTRY_MIGRATIONS } from './store/migrations/index.js'
import { contextLifecycleBody, contextPublishedBody, contextRetrievedBody } from './webhooks/webhook-event-bodies.js'
import { applyRequestTimeouts, buildLazySerializer, compileOnFirstUse } from '@acdp/service-kit'

/** The package version (`GET /healthz`, OpenAPI `info.version`). */
export const REGISTRY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** How often expired Idempotency-Key records are deleted (they are ignored as soon as they expire). */
export const IDEMPOTENCY_SWEEP_INTERVAL_MS = 10 * 60_000

/**
 * Hot-context cache bounds (docs/registry/memory.md): entries, and the memory they hold (context-cache.ts
 * `costOf`). 32 MiB keeps a registry publishing for minutes under the 200 MiB RSS target once the cache is full;
 * it holds about 13,000 contexts of 1.5 KB, and every context published since is still one indexed read away.
 */
const CACHE_MAX_ENTRIES = 20_000
const CACHE_MAX_BYTES = 32 * 1024 * 1024
/** On a shared PostgreSQL another instance may supersede a cached head; its status input is re-read after 1 s. */
const SHARED_STORE_STATUS_MAX_AGE_MS = 1000

declare module 'fastify' {
  interface FastifyRequest {
    /** Wire code of the error answered for this request (publish outcome metrics), or null. */
    acdpErrorCode: string | null
  }
}

/**
 * Builds the registry app. Throws TypeError on a misuse of `deps`; configuration problems are refused earlier,
 * by `loadConfig` / `resolveConfig`.
 */
export async function buildApp(config: RegistryConfig, givenDeps: RegistryDeps): Promise<FastifyInstance> {
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
  const warnings: { log?: FastifyInstance['log'] } = {}
  const rateLimits = new RateLimits(config.rate_limit, {
    shared: suppliedDeps.sharedRateLimits,
    clock: suppliedDeps.clock,
    log: { warn: (object, message) => warnings.log?.warn(object, message) },
    ...(suppliedDeps.metrics ? { metrics: suppliedDeps.metrics } : {}),
  })
  // One per-agent write budget for publish and lifecycle events (product spec "Limits", behaviour 6).
  const agentWrites = rateLimits.budget('agent_write', config.limits.publish_rate_per_minute)
  const tenancy = createTenancyPolicy(config)
  const auth = config.auth.enabled ? await setUpAuthentication(config, suppliedDeps, rateLimits, tenancy) : undefined
  // With auth on, the registry's bearer tokens say who is calling, on every route that asks.
  const deps: RegistryDeps = auth ? { ...suppliedDeps, authenticateReader: auth.authenticateReader } : suppliedDeps
  const discovery = config.registry.profiles.includes('acdp-registry-discovery')
  if (discovery && !deps.searchStore) {
    throw new TypeError('acdp-registry-discovery is advertised but deps.searchStore is missing')
  }
  const validator = compileOnFirstUse(({ schema }: Parameters<FastifySchemaCompiler<unknown>>[0]) => {
    const compiled = Compile(schema as TSchema)
    return (value: unknown) => (compiled.Check(value) ? { value } : { error: [...compiled.Errors(value)] as never })
  })
  const app = Fastify({
    ...loggerOptions(config, deps),
    ...(config.registry.tls.enabled
      ? {
          // Inbound TLS is optional (product spec "Authentication" 8); a TLS-terminating proxy is the usual shape.
          https: { cert: readFileSync(config.registry.tls.cert_path), key: readFileSync(config.registry.tls.key_path) },
        }
      : {}),
    // Fastify's two lines per request are replaced by one of ours (access-log.ts, `registry.access_log`).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: createRequestIdGenerator(deps.random),
    requestIdHeader: false,
    bodyLimit: config.limits.max_payload_bytes,
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: true,
    // Requests the HTTP parser refuses (never routed) still get the ACDP envelope.
    clientErrorHandler: answerClientError,
    // Malformed URLs are refused by the router before any route runs; they still get the ACDP envelope.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id)
      sendRegistryError(reply as never, toRegistryError(error))
    },
    // Response serializers and request validators are compiled on each route's first request, not at startup;
    // giving Fastify the validator compiler here also keeps it from loading its default one (ajv) at startup.
    // (Fastify types this factory's result as an ajv compile function; at run time it is a route compiler, the
    // same kind setValidatorCompiler takes.)
    schemaController: {
      compilersFactory: { buildSerializer: buildLazySerializer, buildValidator: (() => validator) as never },
    },
  }) as unknown as FastifyInstance
  warnings.log = app.log
  applyRequestTimeouts(app.server, {
    headersTimeoutMs: config.limits.headers_timeout_seconds * 1000,
    requestTimeoutMs: config.limits.request_timeout_seconds * 1000,
  })
  deps.events.setErrorLog(app.log)
  if (
    config.auth.tenant_header_trust === 'any_peer' &&
    !['127.0.0.1', '::1', 'localhost'].includes(config.registry.bind)
  ) {
    // Allowed, but every client that reaches this port may then choose its tenant.
    app.log.warn('auth.tenant_header_trust = "any_peer" on a non-loopback bind: any client may choose its tenant')
  }

  app.setValidatorCompiler(validator)
  installJsonBodyParser(app, config.limits.max_payload_bytes)
  installErrorHandling(app)

  // Hooks on every request are callback-style: an async hook costs a promise round per request for nothing here.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
  // Fastify appends `; charset=utf-8` to JSON types; the ACDP media type is sent bare (RFC-ACDP-0001 §11.2).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type')
    if (typeof type === 'string' && type.startsWith(ACDP_MEDIA_TYPE)) reply.header('content-type', ACDP_MEDIA_TYPE)
    done(null, payload)
  })
  // After the request-id hook (refusals carry X-Request-Id) and before any route: every route declares its kind.
  installRouteAuthentication(app, {
    adminTokens: config.auth.admin_tokens,
    metricsBearerToken: config.metrics.bearer_token,
    ...(auth ? { tokens: auth.routeAuth } : {}),
  })

  installCors(app, config.registry.cors.allowed_origins)
  installAccessLog(app, config.registry.access_log)
  if (deps.metrics) registerHttpMetrics(app, deps.metrics)
  subscribeFeatures(config, deps)

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ACDP registry',
        description: `Agent Context Distribution Protocol registry (acdp ${ACDP_VERSION}). See docs/registry/api.md.`,
        version: REGISTRY_VERSION,
      },
      // Every `security` requirement a route names must be declared here, or rendering the document throws.
      components: {
        securitySchemes: {
          adminBearer: { type: 'http', scheme: 'bearer', description: 'One of `auth.admin_tokens`.' },
        },
      },
    },
  })

  const cache = new ContextCache({
    maxEntries: CACHE_MAX_ENTRIES,
    maxBytes: CACHE_MAX_BYTES,
    statusMaxAgeMs: deps.store.kind === 'sqlite' ? Number.POSITIVE_INFINITY : SHARED_STORE_STATUS_MAX_AGE_MS,
  })
  const scopes = createRequestScopes({
    identify: auth ? auth.identify : identifyWith(deps.authenticateReader),
    tenancy,
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
  registerWellKnownRoutes(app, {
    deps,
    capabilities: buildCapabilitiesDocument(config, { publishRateLimited: agentWrites.enabled }),
    version: REGISTRY_VERSION,
    ...(keyring ? { didDocument: buildRegistryDidDocument(authority, keyring) } : {}),
  })
  registerContextRoutes(app, {
    deps,
    cache,
    publish: {
      authority,
      registryDid,
      acceptedDidMethods: config.auth.did_methods,
      idempotencyTtlMs: config.limits.idempotency_key_ttl_seconds * 1000,
      ...(keyring ? { receiptKey: keyring.signingKey, transparencyLog: transparencyLog !== undefined } : {}),
      revocationSigners,
      limiter: agentWrites,
    },
    retrieval: { authority, crossRegistryResolution: config.registry.cross_registry_resolution },
    scopes,
    varyOnAuthorization: !config.auth.anonymous_public_reads,
  })
  if (auth) registerAuthRoutes(app, auth.routes)
  registerJwksRoute(app, auth ? auth.routes.keys.jwks : EMPTY_JWKS)
  registerLineageRoutes(app, {
    deps,
    resolveReader: scopes.reader,
    ...(keyring && config.receipt.head_receipts ? { headReceipts: { key: keyring.signingKey, registryDid } } : {}),
  })
  registerLogRoutes(app, {
    log: transparencyLog,
    resolveReader: scopes.reader,
    identifyReader: scopes.auditor,
    ...(witnesses
      ? {
          renderCheckpoint: (checkpoint, json) => {
            const cosignatures = witnesses.cosignaturesFor(checkpoint.tree_size, checkpoint.root_hash)
            // Never an empty array (RFC-ACDP-0015 §6.1): without a verified cosignature the checkpoint is bare.
            return cosignatures.length === 0
              ? json
              : `{"log_checkpoint":${json},"witness_signatures":${JSON.stringify(cosignatures)}}`
          },
        }
      : {}),
  })
  registerAdminStatusRoute(app, {
    adminTokens: config.auth.admin_tokens,
    config,
    store: deps.store,
    ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
    version: REGISTRY_VERSION,
    knownMigrations: REGISTRY_MIGRATIONS.map((m) => m.name),
    clock: deps.clock,
  })
  if (pins) {
    registerPinnedKeysReloadRoute(app, {
      adminTokens: config.auth.admin_tokens,
      pins,
      reload: deps.reloadPinnedKeys,
      clock: deps.clock,
    })
  }
  if (transparencyLog && config.auth.admin_tokens.length > 0) {
    registerAdminLogRoute(app, { log: transparencyLog })
  }
  registerLifecycleRoutes(app, {
    scopes,
    lifecycle: {
      deps,
      cache,
      // The per-agent write budget of `limits.publish_rate_per_minute` (product spec behaviour 6).
      limiter: agentWrites,
      settings: { authority, registryDid, revocationSigners },
    },
    enabled: config.lifecycle.enabled,
    adminTokens: config.auth.admin_tokens,
    // Registry-initiated (admin) events are signed with the receipt key where receipts run (RFC-ACDP-0013 §5).
    registrySigningKey: deps.registrySigningKey ?? keyring?.signingKey,
  })

  if (discovery && deps.searchStore) {
    registerSearchRoute(app, {
      isDiscoveryAdvertised: true,
      scopes,
      search: {
        store: deps.searchStore,
        cursors: cursorCodec(config, deps),
        clock: deps.clock,
        anonymousPublicReads: config.auth.anonymous_public_reads,
        registryAuthority: authority,
        ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
      },
    })
  } else {
    // RFC-ACDP-0005: without the discovery profile search is not an ACDP surface here.
    app.get('/contexts/search', { config: { auth: 'public' }, schema: { hide: true } as never }, async () => {
      throw new RegistryError(
        'not_implemented',
        'Search is not offered by this registry (acdp-registry-discovery is not advertised).',
      )
    })
  }
  // Playground builds only (product spec "Endpoints"), and like every admin route only with admin tokens.
  if (config.playground.enabled && config.auth.admin_tokens.length > 0) {
    registerAdminContextsRoute(app, {
      listing: { store: deps.store, cursors: cursorCodec(config, deps), clock: deps.clock },
      scopes,
    })
  }
  if (config.metrics.enabled && deps.metrics) {
    registerMetricsRoute(app, { metrics: deps.metrics })
  }

  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } as never }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(app.swagger()),
  )

  app.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    if (request.method === 'POST' && request.routeOptions.url === '/contexts' && deps.events.has('publish_outcome')) {
      const outcome =
        reply.statusCode === 201
          ? 'inserted'
          : reply.statusCode === 200
            ? 'idempotent_replay'
            : (request.acdpErrorCode ?? 'internal_error')
      deps.events.emit({ type: 'publish_outcome', outcome })
    }
    done()
  })

  // Peers' revocations are enforced by bearer auth: polled only when it is on.
  const feedPoller =
    auth && config.auth.revocation_feeds.length > 0 && deps.revocationFeedStore && deps.outbound
      ? new RevocationFeedPoller(
          { store: deps.revocationFeedStore, outbound: deps.outbound, clock: deps.clock, log: app.log },
          config.auth.revocation_feeds,
        )
      : undefined

  let sweepTimer: NodeJS.Timeout | undefined
  const warmAbort = new AbortController()
  app.addHook('onReady', async () => {
    rateLimits.startPruning()
    feedPoller?.start()
    if (pins && pins.validCount(deps.clock().getTime()) === 0) {
      app.log.warn({ pinned_keys: pins.count }, 'playground: no pinned key is valid now')
    }
    if (transparencyLog) {
      // A log whose stored history no longer matches what was signed is not served (the reason is logged). The
      // start-up check anchors on the last signed checkpoint; signing one over the checked tree right after it
      // passes makes the next start's check cover only what is appended from now on (log-self-check.ts).
      const check = await transparencyLog.selfCheck('since-checkpoint')
      if (check.ok) {
        await transparencyLog.currentCheckpoint()
        app.log.info(
          { tree_size: check.treeSize, anchor_tree_size: check.checkpointTreeSize },
          'transparency log self-check passed',
        )
        // Not awaited: readiness never waits for the node cache (proofs served meanwhile fill it too).
        transparencyLog.warmNodeCache(warmAbort.signal).then(
          (nodes) => app.log.debug({ nodes }, 'transparency log node cache warmed'),
          (error: unknown) => app.log.warn({ err: error }, 'transparency log node cache warm-up failed'),
        )
      } else app.log.error({ tree_size: check.treeSize, reason: check.reason }, 'transparency log self-check FAILED')
    }
    witnesses?.start()
    sweepTimer = setInterval(() => {
      deps.store.sweepIdempotencyRecords(deps.clock().getTime()).catch((error: unknown) => {
        app.log.warn({ err: error }, 'idempotency sweep failed')
      })
      deps.authStore?.sweepExpired(deps.clock().getTime()).catch((error: unknown) => {
        app.log.warn({ err: error }, 'auth state sweep failed')
      })
    }, IDEMPOTENCY_SWEEP_INTERVAL_MS)
    sweepTimer.unref()
  })
  app.addHook('onClose', async () => {
    warmAbort.abort()
    rateLimits.stopPruning()
    await feedPoller?.stop()
    witnesses?.stop()
    if (sweepTimer) clearInterval(sweepTimer)
  })

  return app
}

/**
 * Bearer authentication (`auth.enabled`): token keys, the token service, the authenticator every route uses and
 * the /auth/* route dependencies. Throws TypeError when the embedding gave no auth store.
 */
async function setUpAuthentication(
  config: RegistryConfig,
  deps: RegistryDeps,
  rateLimits: RateLimits,
  tenancy: TenancyPolicy,
) {
  const store = deps.authStore
  if (!store) throw new TypeError('auth.enabled = true needs deps.authStore (challenges and revocations)')
  const keys = await loadTokenSigningKeys(config.auth, deps.random)
  const issuer = registryDidOf(config.registry.authority)
  const tokens = new BearerTokens({
    keys,
    issuer,
    audience: config.registry.authority,
    ttlSeconds: config.auth.token_ttl_seconds,
    leewaySeconds: config.auth.token_leeway_seconds,
    clock: deps.clock,
    random: deps.random,
  })
  const limits = new AuthRequestLimits(
    { enabled: config.rate_limit.enabled, budgets: rateLimits.authRequestBudgets() },
    deps.metrics,
  )
  const isTrustedProxy = createProxyMatcher(config.rate_limit.trusted_proxies)
  // One verification per request, however many scopes of the request ask who is calling.
  const bearer = { tokens, store, issuer }
  const verified = new WeakMap<FastifyRequest, Promise<CallerIdentity>>()
  const identify: CallerIdentifier = (request) => {
    let caller = verified.get(request)
    if (caller === undefined) {
      caller = authenticateBearer(bearer, request).then((token) => ({
        did: token?.subject ?? null,
        tenantClaim: token?.tenant,
      }))
      verified.set(request, caller)
    }
    return caller
  }
  const authenticateReader = async (request: FastifyRequest) => (await identify(request)).did
  const routes: AuthRoutesOptions = {
    challenge: {
      store,
      resolver: deps.resolver,
      tokens,
      limiter: rateLimits.budget('challenge_per_agent', config.limits.challenge_rate_per_minute),
      clock: deps.clock,
      random: deps.random,
      authority: config.registry.authority,
      didMethods: config.auth.did_methods,
      challengeTtlSeconds: config.auth.challenge_ttl_seconds,
      tenantOf: tenancy.bindingOf,
    },
    revocation: {
      store,
      tokens,
      clock: deps.clock,
      maxTokenLifetimeSeconds: config.auth.token_ttl_seconds + config.auth.token_leeway_seconds,
    },
    feed: deps.revocationFeedStore ? { store: deps.revocationFeedStore, issuer, clock: deps.clock } : undefined,
    keys,
  }
  // What the route-auth kinds of /auth/* check: the request budgets, and the bearer of a revoke.
  const routeAuth = {
    admit: (request: FastifyRequest) => limits.admit(clientIpOf(request, isTrustedProxy), deps.clock().getTime()),
    authenticate: (request: FastifyRequest) => authenticateBearer(bearer, request),
  }
  return { authenticateReader, identify, routes, routeAuth }
}

/** The caller identity of an embedder's authenticator (no tenant claims): anonymous without one. */
function identifyWith(authenticate: RegistryDeps['authenticateReader']): CallerIdentifier {
  return async (request) => ({ did: authenticate ? await authenticate(request) : null })
}

/** Sealed keyset cursors (search, admin listing): `search.cursor_secret_b64`, else a per-process key. */
function cursorCodec(config: RegistryConfig, deps: RegistryDeps): SearchCursorCodec {
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

/**
 * Connects the optional components to the registry events: webhooks get `context_published` /
 * `context_retrieved` in their wire form (ctx_ids as `<authority>/<id>`), metrics count publish outcomes.
 */
function subscribeFeatures(config: RegistryConfig, deps: RegistryDeps): void {
  const authority = config.registry.authority
  const webhooks = deps.webhooks
  // A disabled dispatcher discards everything: do not build events for it.
  if (webhooks?.stats().enabled) {
    const origin = { authority, baseUrl: config.registry.base_url }
    deps.events.on('context_published', (e) => webhooks.emit(contextPublishedBody(origin, e), tenantScope(e.tenant_id)))
    deps.events.on('context_retrieved', (e) => webhooks.emit(contextRetrievedBody(origin, e), tenantScope(e.tenant_id)))
    deps.events.on('context_lifecycle', (e) => webhooks.emit(contextLifecycleBody(origin, e), tenantScope(e.tenant_id)))
  }
  const metrics = deps.metrics
  if (metrics) deps.events.on('publish_outcome', (e) => metrics.recordPublish(e.outcome))
}

/** Events about a context of a tenant carry X-Tenant-Id (product spec "Events" 1); `default` is no tenant. */
function tenantScope(tenantId: string): { tenantId?: string } {
  return tenantId === DEFAULT_TENANT ? {} : { tenantId }
}

function loggerOptions(
  config: RegistryConfig,
  deps: RegistryDeps,
): Partial<FastifyServerOptions> & { loggerInstance?: unknown } {
  if (deps.logger === false) return { logger: false }
  if (deps.logger) return { loggerInstance: deps.logger }
  return {
    logger: {
      level: config.registry.log_level,
      // Credentials never reach the logs; bodies are not logged at all.
      redact: ['req.headers.authorization', 'req.headers.cookie'],
    },
  }
}
