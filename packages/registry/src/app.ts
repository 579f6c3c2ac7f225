/**
 * `buildApp(config, deps)`: the registry as a ready Fastify instance, not listening. Wiring only — routes hold
 * the HTTP shape, services the behaviour, the store the persistence (STYLE rules 3–4). The features it mounts
 * are listed in features.ts; what they share is the RegistryContext (registry-context.ts).
 */
import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import { installBackgroundWork } from './background-work-hooks.js'
import type { RegistryConfig } from './core/config.js'
import type { RegistryDeps } from './core/deps.js'
import { installCors } from './core/http/cors.js'
import { installRouteAuthentication } from './core/http/route-auth.js'
import { createServer } from './core/http/server.js'
import { installAccessLog } from './core/access-log.js'
import { registerHttpMetrics } from './core/metrics-http.js'
import { ACDP_VERSION } from './discovery/capabilities.js'
import { FEATURES } from './features.js'
import { createRegistryContext, prepareRegistry } from './registry-context.js'
import { DEFAULT_TENANT } from './tenancy/tenancy.js'
import { contextLifecycleBody, contextPublishedBody, contextRetrievedBody } from './webhooks/webhook-event-bodies.js'

export { IDEMPOTENCY_SWEEP_INTERVAL_MS } from './background-work-hooks.js'

/** The package version (`GET /healthz`, OpenAPI `info.version`). */
export const REGISTRY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version

declare module 'fastify' {
  interface FastifyRequest {
    /** Wire code of the error answered for this request (publish outcome metrics), or null. */
    acdpErrorCode: string | null
  }
}

/**
 * Builds the registry app: the shared HTTP behaviour, route authentication, then every feature of features.ts
 * from one RegistryContext, then the background work. Throws TypeError on a misuse of `deps`; configuration
 * problems are refused earlier, by `loadConfig` / `resolveConfig`.
 */
export async function buildApp(config: RegistryConfig, givenDeps: RegistryDeps): Promise<FastifyInstance> {
  const base = await prepareRegistry(config, givenDeps)
  const { deps } = base
  const app = createServer(config, deps)
  base.attachLog(app.log)
  deps.events.setErrorLog(app.log)
  if (
    config.auth.tenant_header_trust === 'any_peer' &&
    !['127.0.0.1', '::1', 'localhost'].includes(config.registry.bind)
  ) {
    // Allowed, but every client that reaches this port may then choose its tenant.
    app.log.warn('auth.tenant_header_trust = "any_peer" on a non-loopback bind: any client may choose its tenant')
  }
  // After the request-id hook (refusals carry X-Request-Id) and before any route: every route declares its kind.
  installRouteAuthentication(app, {
    adminTokens: config.auth.admin_tokens,
    metricsBearerToken: config.metrics.bearer_token,
    ...(base.auth ? { tokens: base.auth.routeAuth } : {}),
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

  const context = await createRegistryContext(base, app, REGISTRY_VERSION)
  for (const feature of FEATURES) feature(app, context)
  installBackgroundWork(app, context)
  return app
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
