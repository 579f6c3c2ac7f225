/**
 * Every feature of the registry, mounted in this order by buildApp, each from the one RegistryContext
 * (registry-context.ts). The order is the order routes appear in `/openapi.json`; keep it when adding one.
 *
 * To add a route end to end: write it in its feature's `*-routes.ts` with `config: { auth: <kind> }` (the kinds:
 * core/http/route-auth.ts), then mount it from that feature's entry here, or append an entry.
 */
import { registerAdminContextsRoute } from './admin/admin-contexts-routes.js'
import { registerAdminStatusRoute } from './admin/admin-status-routes.js'
import { registerPinnedKeysReloadRoute } from './auth/admin-pinned-keys-routes.js'
import { registerAuthRoutes } from './auth/auth-routes.js'
import { EMPTY_JWKS, registerJwksRoute } from './auth/jwks-routes.js'
import { RegistryError } from './core/errors.js'
import { registerMetricsRoute } from './core/metrics-routes.js'
import { buildCapabilitiesDocument } from './discovery/capabilities.js'
import { registerWellKnownRoutes } from './discovery/well-known-routes.js'
import { registerLifecycleRoutes } from './lifecycle/lifecycle-routes.js'
import { registerLineageRoutes } from './lineage/lineages-routes.js'
import { registerAdminLogRoute } from './log/admin-log-routes.js'
import { registerLogRoutes } from './log/log-routes.js'
import { registerContextRoutes } from './publish/contexts-routes.js'
import { buildRegistryDidDocument } from './receipts/receipt-keyring.js'
import { cursorCodec, type FeaturePlugin } from './registry-context.js'
import { registerSearchRoute } from './search/search-routes.js'
import { REGISTRY_MIGRATIONS } from './store/migrations/index.js'

/** `GET /.well-known/acdp.json`, `GET /.well-known/did.json` (with a receipt key), `GET /healthz`. */
const discovery: FeaturePlugin = (app, { config, deps, agentWrites, version, keyring, authority }) => {
  registerWellKnownRoutes(app, {
    deps,
    capabilities: buildCapabilitiesDocument(config, { publishRateLimited: agentWrites.enabled }),
    version,
    ...(keyring ? { didDocument: buildRegistryDidDocument(authority, keyring) } : {}),
  })
}

/** `POST /contexts`, `GET /contexts/{ctx_id}[/body]`. */
const publishAndRetrieve: FeaturePlugin = (app, context) => {
  const { config, deps, keyring, transparencyLog, authority } = context
  registerContextRoutes(app, {
    deps,
    cache: context.cache,
    publish: {
      authority,
      registryDid: context.registryDid,
      acceptedDidMethods: config.auth.did_methods,
      idempotencyTtlMs: config.limits.idempotency_key_ttl_seconds * 1000,
      ...(keyring ? { receiptKey: keyring.signingKey, transparencyLog: transparencyLog !== undefined } : {}),
      revocationSigners: context.revocationSigners,
      limiter: context.agentWrites,
    },
    retrieval: { authority, crossRegistryResolution: config.registry.cross_registry_resolution },
    scopes: context.scopes,
    varyOnAuthorization: !config.auth.anonymous_public_reads,
  })
}

/** `/auth/*` with `auth.enabled`; `GET /.well-known/jwks.json` always (an empty set without token keys). */
const tokens: FeaturePlugin = (app, { auth }) => {
  if (auth) registerAuthRoutes(app, auth.routes)
  registerJwksRoute(app, auth ? auth.routes.keys.jwks : EMPTY_JWKS)
}

/** `GET /lineages/{lineage_id}[/current]`. */
const lineages: FeaturePlugin = (app, { config, deps, scopes, keyring, registryDid }) => {
  registerLineageRoutes(app, {
    deps,
    resolveReader: scopes.reader,
    ...(keyring && config.receipt.head_receipts ? { headReceipts: { key: keyring.signingKey, registryDid } } : {}),
  })
}

/** `GET /log/checkpoint|proof|entries` (501 without the log). */
const transparencyLogRoutes: FeaturePlugin = (app, { transparencyLog, scopes, witnesses }) => {
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
}

/** `GET /admin/status`, with admin tokens. */
const adminStatus: FeaturePlugin = (app, { config, deps, version }) => {
  registerAdminStatusRoute(app, {
    adminTokens: config.auth.admin_tokens,
    config,
    store: deps.store,
    ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
    version,
    knownMigrations: REGISTRY_MIGRATIONS.map((m) => m.name),
    clock: deps.clock,
  })
}

/** `POST /admin/pinned-keys/reload`: playground builds, with admin tokens. */
const pinnedKeys: FeaturePlugin = (app, { config, deps, pins }) => {
  if (!pins) return
  registerPinnedKeysReloadRoute(app, {
    adminTokens: config.auth.admin_tokens,
    pins,
    reload: deps.reloadPinnedKeys,
    clock: deps.clock,
  })
}

/** `POST /admin/log/verify`: with the log and admin tokens. */
const logVerification: FeaturePlugin = (app, { config, transparencyLog }) => {
  if (transparencyLog && config.auth.admin_tokens.length > 0) registerAdminLogRoute(app, { log: transparencyLog })
}

/** `POST /contexts/{ctx_id}/retract|republish`, and the admin forms with admin tokens. */
const lifecycle: FeaturePlugin = (app, context) => {
  const { config, deps, keyring } = context
  registerLifecycleRoutes(app, {
    scopes: context.scopes,
    lifecycle: {
      deps,
      cache: context.cache,
      // The per-agent write budget of `limits.publish_rate_per_minute` (product spec behaviour 6).
      limiter: context.agentWrites,
      settings: {
        authority: context.authority,
        registryDid: context.registryDid,
        revocationSigners: context.revocationSigners,
      },
    },
    enabled: config.lifecycle.enabled,
    adminTokens: config.auth.admin_tokens,
    // Registry-initiated (admin) events are signed with the receipt key where receipts run (RFC-ACDP-0013 §5).
    registrySigningKey: deps.registrySigningKey ?? keyring?.signingKey,
  })
}

/** `GET /contexts/search`: the search with the discovery profile, else 501. */
const search: FeaturePlugin = (app, context) => {
  const { config, deps, discovery } = context
  if (discovery && deps.searchStore) {
    registerSearchRoute(app, {
      isDiscoveryAdvertised: true,
      scopes: context.scopes,
      search: {
        store: deps.searchStore,
        cursors: cursorCodec(context),
        clock: deps.clock,
        anonymousPublicReads: config.auth.anonymous_public_reads,
        registryAuthority: context.authority,
        ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
      },
    })
    return
  }
  // RFC-ACDP-0005: without the discovery profile search is not an ACDP surface here.
  app.get('/contexts/search', { config: { auth: 'public' }, schema: { hide: true } as never }, async () => {
    throw new RegistryError(
      'not_implemented',
      'Search is not offered by this registry (acdp-registry-discovery is not advertised).',
    )
  })
}

/** `GET /admin/contexts`: playground builds only (product spec "Endpoints"), with admin tokens. */
const adminListing: FeaturePlugin = (app, context) => {
  const { config, deps } = context
  if (!config.playground.enabled || config.auth.admin_tokens.length === 0) return
  registerAdminContextsRoute(app, {
    listing: { store: deps.store, cursors: cursorCodec(context), clock: deps.clock },
    scopes: context.scopes,
  })
}

/** `GET /metrics`, with `metrics.enabled` and a metrics registry. */
const metrics: FeaturePlugin = (app, { config, deps }) => {
  if (config.metrics.enabled && deps.metrics) registerMetricsRoute(app, { metrics: deps.metrics })
}

/** `GET /openapi.json`: the document of every route above. */
const openApi: FeaturePlugin = (app) => {
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } as never }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(app.swagger()),
  )
}

export const FEATURES: readonly FeaturePlugin[] = [
  discovery,
  publishAndRetrieve,
  tokens,
  lineages,
  transparencyLogRoutes,
  adminStatus,
  pinnedKeys,
  logVerification,
  lifecycle,
  search,
  adminListing,
  metrics,
  openApi,
]
