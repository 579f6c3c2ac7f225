/**
 * `buildApp(config, deps)`: the registry as a ready Fastify instance, not listening. Wiring only — routes hold
 * the HTTP shape, services the behaviour, the store the persistence (STYLE rules 3–4).
 */
import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { RegistryConfig } from './config.js'
import type { RegistryDeps } from './deps.js'
import { ACDP_MEDIA_TYPE, installErrorHandling, RegistryError, sendRegistryError, toRegistryError } from './errors.js'
import { installJsonBodyParser } from './http/json-body.js'
import { createRequestIdGenerator } from './http/request-id.js'
import { registerContextRoutes } from './routes/contexts.js'
import { registerLineageRoutes } from './routes/lineages.js'
import { createReaderResolver } from './routes/read-access.js'
import { registerWellKnownRoutes } from './routes/well-known.js'
import { ACDP_VERSION, buildCapabilitiesDocument, registryDidOf } from './services/capabilities.js'
import { ContextCache } from './services/context-cache.js'

/** The package version (`GET /healthz`, OpenAPI `info.version`). */
export const REGISTRY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** How often expired Idempotency-Key records are deleted (they are ignored as soon as they expire). */
export const IDEMPOTENCY_SWEEP_INTERVAL_MS = 10 * 60_000

/** Hot-context cache bounds: entries and total body characters (bodies are at most `max_payload_bytes`). */
const CACHE_MAX_ENTRIES = 20_000
const CACHE_MAX_BODY_CHARS = 128 * 1024 * 1024
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
export async function buildApp(config: RegistryConfig, deps: RegistryDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggerOptions(config, deps),
    genReqId: createRequestIdGenerator(deps.random),
    requestIdHeader: false,
    bodyLimit: config.limits.max_payload_bytes,
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: true,
    // Malformed URLs are refused by the router before any route runs; they still get the ACDP envelope.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id)
      sendRegistryError(reply as never, toRegistryError(error))
    },
  }) as unknown as FastifyInstance
  deps.events.setErrorLog(app.log)

  app.setValidatorCompiler(({ schema }) => {
    const validator = Compile(schema as TSchema)
    return (value: unknown) => (validator.Check(value) ? { value } : { error: [...validator.Errors(value)] as never })
  })
  installJsonBodyParser(app, config.limits.max_payload_bytes)
  installErrorHandling(app)

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  // Fastify appends `; charset=utf-8` to JSON types; the ACDP media type is sent bare (RFC-ACDP-0001 §11.2).
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type')
    if (typeof type === 'string' && type.startsWith(ACDP_MEDIA_TYPE)) reply.header('content-type', ACDP_MEDIA_TYPE)
    return payload
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ACDP registry',
        description: `Agent Context Distribution Protocol registry (acdp ${ACDP_VERSION}). See docs/registry/api.md.`,
        version: REGISTRY_VERSION,
      },
    },
  })

  const cache = new ContextCache({
    maxEntries: CACHE_MAX_ENTRIES,
    maxBodyChars: CACHE_MAX_BODY_CHARS,
    statusMaxAgeMs: deps.store.kind === 'sqlite' ? Number.POSITIVE_INFINITY : SHARED_STORE_STATUS_MAX_AGE_MS,
  })
  const resolveReader = createReaderResolver(deps.authenticateReader, config.auth.anonymous_public_reads)
  const authority = config.registry.authority

  registerWellKnownRoutes(app, {
    deps,
    capabilities: buildCapabilitiesDocument(config),
    version: REGISTRY_VERSION,
  })
  registerContextRoutes(app, {
    deps,
    cache,
    publish: {
      authority,
      registryDid: registryDidOf(authority),
      acceptedDidMethods: config.auth.did_methods,
      idempotencyTtlMs: config.limits.idempotency_key_ttl_seconds * 1000,
    },
    retrieval: { authority, crossRegistryResolution: config.registry.cross_registry_resolution },
    resolveReader,
    varyOnAuthorization: !config.auth.anonymous_public_reads,
  })
  registerLineageRoutes(app, { deps, resolveReader })

  if (!config.registry.profiles.includes('acdp-registry-discovery')) {
    // RFC-ACDP-0005: without the discovery profile search is not an ACDP surface here.
    app.get('/contexts/search', { schema: { hide: true } as never }, async () => {
      throw new RegistryError(
        'not_implemented',
        'Search is not offered by this registry (acdp-registry-discovery is not advertised).',
      )
    })
  }

  app.get('/openapi.json', { schema: { hide: true } as never }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(app.swagger()),
  )

  app.addHook('onResponse', async (request: FastifyRequest, reply) => {
    if (request.method !== 'POST' || request.routeOptions.url !== '/contexts') return
    if (!deps.events.has('publish_outcome')) return
    const outcome =
      reply.statusCode === 201
        ? 'inserted'
        : reply.statusCode === 200
          ? 'idempotent_replay'
          : (request.acdpErrorCode ?? 'internal_error')
    deps.events.emit({ type: 'publish_outcome', outcome })
  })

  let sweepTimer: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    sweepTimer = setInterval(() => {
      deps.store.sweepIdempotencyRecords(deps.clock().getTime()).catch((error: unknown) => {
        app.log.warn({ err: error }, 'idempotency sweep failed')
      })
    }, IDEMPOTENCY_SWEEP_INTERVAL_MS)
    sweepTimer.unref()
  })
  app.addHook('onClose', async () => {
    if (sweepTimer) clearInterval(sweepTimer)
  })

  return app
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
