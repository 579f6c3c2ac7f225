/**
 * The registry's Fastify instance with the HTTP behaviour every route shares: logger, TLS, body limit, request
 * ids, timeouts, lazily compiled validators and serializers, the strict JSON parser, the ACDP error envelope
 * (also for requests the parser or router refuses) and the bare ACDP media type.
 */
import { readFileSync } from 'node:fs'
import Fastify, {
  type FastifyInstance,
  type FastifySchemaCompiler,
  type FastifyServerOptions,
  LogController,
} from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { applyRequestTimeouts, buildLazySerializer, compileOnFirstUse } from '@acdp/service-kit'
import type { RegistryConfig } from '../config.js'
import type { RegistryDeps } from '../deps.js'
import { ACDP_MEDIA_TYPE, installErrorHandling, sendRegistryError, toRegistryError } from '../errors.js'
import { answerClientError } from './client-error.js'
import { installJsonBodyParser } from './json-body.js'
import { createRequestIdGenerator } from './request-id.js'

export function createServer(config: RegistryConfig, deps: RegistryDeps): FastifyInstance {
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
  applyRequestTimeouts(app.server, {
    headersTimeoutMs: config.limits.headers_timeout_seconds * 1000,
    requestTimeoutMs: config.limits.request_timeout_seconds * 1000,
  })
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
