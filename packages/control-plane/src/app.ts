/**
 * buildApp(config, deps): the control plane as a Fastify instance, fully wired but not listening
 * (ARCHITECTURE "Rules of the house"). Tests call it with injected deps and use `app.inject()`; main.ts and the
 * CLI listen on it.
 */

import type { Server } from 'node:http'
import { createOutboundClient } from '@acdp/protocol'
import Fastify, { type FastifyHttpOptions, type FastifyInstance, LogController } from 'fastify'
import { createApiKeyVerifier } from './auth/api-keys.js'
import { installRouteAuthentication } from './auth/route-auth.js'
import type { ControlPlaneConfig } from './core/config.js'
import type { ControlPlaneDeps } from './core/deps.js'
import { installErrorHandlers, sendError, toControlPlaneError } from './core/errors.js'
import { refuseNulInUrl } from './core/http/nul-in-url.js'
import { answerClientError } from './core/http/client-error.js'
import { installJsonBodyParser } from './core/http/json-body.js'
import { typeBoxValidatorCompilerOnDemand } from './core/typebox-on-demand.js'
import { registerHttpMetrics } from './core/metrics-http.js'
import { ROUTE_PLUGINS } from './route-plugins.js'
import { createAccessGates } from './policy/access-gates.js'
import { createAuthMetrics } from './auth/auth-metrics.js'
import { createEnvelopeVerifier } from './federation-proxy/context-verification.js'
import { createEnrollmentDirectory } from './registries/enrollment-directory.js'
import { createEventPageReader } from './events/event-page-reader.js'
import { createReadiness, type Readiness } from './core/readiness.js'
import { resealEnrollmentSecrets } from './registries/registries.js'
import { SseHub } from './streams/sse.js'
import { createEventHistory } from './streams/sse-history.js'
import { createTokenFeature } from './auth/token-feature.js'
import { createWebhookFeature } from './webhooks/webhook-delivery-setup.js'
import { createRegistryTrust } from './registries/registry-trust.js'
import { createWitnessFeature, type WitnessFeature, witnessRequestTimeoutMs } from './witness/witness-setup.js'
import { createWitnessRegistryClient } from './witness/witness-registry-client.js'
import { createReceiptAuditFeature, type ReceiptAuditFeature } from './receipt-audit/receipt-audit-setup.js'
import { createLogReconcileFeature, type LogReconcileFeature } from './log-reconcile/log-reconcile-setup.js'
import { openRunTraceExport } from './telemetry/run-traces.js'
import { SERVICE_NAME, SERVICE_VERSION } from './core/version.js'
import { applyRequestTimeouts, buildLazySerializer, compileOnFirstUse } from '@acdp/service-kit'

declare module 'fastify' {
  interface FastifyInstance {
    /** Shared readiness state: the shutdown sequence calls `readiness.startDraining()`. */
    readiness: Readiness
    /** The transparency-log witness (tests and benches drive `witness.poller.pollDue()`). */
    witness: WitnessFeature
    /** The receipt audit (tests and benches drive `receiptAudit.auditor.sweepNow()`). */
    receiptAudit: ReceiptAuditFeature
    /** The log reconciliation (tests drive `logReconcile.reconciler.reconcileNow()`). */
    logReconcile: LogReconcileFeature
  }
}

/** Headers that carry secrets or MACs; never logged. */
const REDACTED_HEADERS = [
  'req.headers.authorization',
  'req.headers["x-acdp-signature"]',
  'req.headers["x-acdp-signature-timestamped"]',
]

/**
 * Builds the application. Registers, in order: error handlers, the strict JSON parser, authentication,
 * API docs (when enabled), then every route plugin of route-plugins.ts. Never listens, never closes `deps`.
 */
export async function buildApp(config: ControlPlaneConfig, deps: ControlPlaneDeps): Promise<FastifyInstance> {
  const validator = compileOnFirstUse(typeBoxValidatorCompilerOnDemand)
  const options: FastifyHttpOptions<Server> = {
    ...(deps.logger
      ? { loggerInstance: deps.logger }
      : { logger: { level: config.server.logLevel, redact: REDACTED_HEADERS } }),
    // One log line per request costs more than the ingest itself at thousands of events per second;
    // failures are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.maxBodyBytes,
    trustProxy: toTrustProxy(config.server.trustProxy),
    return503OnClosing: true,
    // Requests the HTTP parser refuses (never routed) still get the service's envelope.
    clientErrorHandler: answerClientError,
    // Malformed URLs (bad percent-encoding) are refused by the router before any route (and the error handler) runs.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, toControlPlaneError(error))
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 2048 },
    // Response serializers and request validators are compiled on each route's first request, not at startup;
    // giving Fastify the validator compiler here also keeps it from loading its default one (ajv) at startup.
    // (Fastify types this factory's result as an ajv compile function; at run time it is a route compiler, the
    // same kind setValidatorCompiler takes.)
    schemaController: {
      compilersFactory: { buildSerializer: buildLazySerializer, buildValidator: (() => validator) as never },
    },
  }
  const app = Fastify(options)
  applyRequestTimeouts(app.server, config.server)
  app.setValidatorCompiler(validator)
  installErrorHandlers(app)
  app.addHook('onRequest', refuseNulInUrl)
  installJsonBodyParser(app, { maxDepth: config.ingest.maxJsonDepth })
  registerHttpMetrics(app, deps.metrics)

  const readiness = createReadiness({
    store: deps.store,
    now: () => deps.clock().getTime(),
    timeoutMs: config.lifecycle.readinessDbTimeoutMs,
    cacheMs: config.lifecycle.readinessCacheMs,
  })
  app.decorate('readiness', readiness)

  // One SSRF-safe client for every outbound feature (federation proxy, JWKS, revocation feeds, witness, webhooks).
  const outbound =
    deps.outbound ??
    createOutboundClient({
      allowCidrs: [...config.outbound.allowCidrs],
      allowHttpForAllowlisted: config.outbound.allowHttpForAllowlisted,
      maxPools: config.outbound.maxPools,
      userAgent: 'acdp-control-plane',
    })
  if (deps.outbound === undefined) app.addHook('onClose', async () => outbound.close())
  const authMetrics = createAuthMetrics(deps.metrics.registry)
  const tokens = await createTokenFeature({ config, deps, outbound, log: app.log, metrics: authMetrics })
  app.addHook('onReady', async () => tokens.start())
  app.addHook('onClose', async () => tokens.close())

  const gates = createAccessGates({
    config,
    authStore: tokens.authStore,
    clock: deps.clock,
    log: app.log,
    metrics: authMetrics,
  })
  const federation = {
    outbound,
    timeoutMs: config.federation.timeoutMs,
    ...(config.federation.verifyContexts
      ? { verifyEnvelope: createEnvelopeVerifier({ outbound, now: () => deps.clock().getTime() }) }
      : {}),
  }

  installRouteAuthentication(app, {
    auth: config.auth,
    chain: [...(deps.credentialVerifiers ?? []), tokens.verifier, createApiKeyVerifier(config.auth)],
  })

  if (config.swagger.enabled) await registerApiDocs(app, config)

  const sse = new SseHub({
    bus: deps.bus,
    history: createEventHistory(deps.store),
    metrics: deps.metrics,
    clock: deps.clock,
    heartbeatMs: config.streams.sseHeartbeatMs,
    shutdownRetryMs: config.streams.sseShutdownRetryMs,
    log: app.log,
  })
  // Streams hold their connections open; end them (shutdown frame) before the server waits for connections.
  app.addHook('preClose', async () => sse.close())

  const enrollments = createEnrollmentDirectory({
    store: deps.store,
    secrets: deps.secrets,
    bus: deps.bus,
    now: () => deps.clock().getTime(),
    cacheMs: config.ingest.enrollmentCacheMs,
  })
  app.addHook('onClose', async () => enrollments.close())
  // After a key rotation, re-seal enrollment secrets with the current key (background; idempotent).
  app.addHook('onReady', async () => {
    resealEnrollmentSecrets(deps).then(
      (count) => {
        if (count > 0) app.log.warn({ count }, 're-sealed registry enrollment secrets with the current key')
      },
      (error: unknown) => app.log.error({ err: error }, 're-sealing registry enrollment secrets failed'),
    )
  })

  // Outbound webhooks: the outbox hook runs inside the ingest transaction; the dispatcher runs while the app does.
  const webhooks = createWebhookFeature({ config, deps, log: app.log, outbound })
  app.addHook('onReady', async () => webhooks.start())
  app.addHook('onClose', async () => webhooks.close())
  // Runs as OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK is loaded only then).
  const runTraces =
    deps.runTraces ?? (await openRunTraceExport(config.telemetry, { metrics: deps.metrics, log: app.log }))
  if (runTraces !== undefined && deps.runTraces === undefined) app.addHook('onClose', async () => runTraces.close())
  const appDeps: ControlPlaneDeps = {
    ...deps,
    webhookOutbox: deps.webhookOutbox ?? webhooks.outbox,
    ...(runTraces !== undefined ? { runTraces } : {}),
  }

  // Transparency-log witness: polls after the app is ready; its alerts fan out through the same outbox and bus.
  // One registry reader for the witness and the trust relay routes (one capabilities cache, one fetch path).
  const registryClient = createWitnessRegistryClient({
    outbound,
    now: () => deps.clock().getTime(),
    requestTimeoutMs: witnessRequestTimeoutMs(config),
  })
  const registryTrust = createRegistryTrust({
    client: registryClient,
    enrollments,
    now: () => deps.clock().getTime(),
  })
  const witness = createWitnessFeature({ config, deps: { ...appDeps, outbound }, log: app.log, registryClient })
  app.decorate('witness', witness)
  app.addHook('onReady', async () => witness.start())
  app.addHook('onClose', async () => witness.close())
  const receiptAudit = createReceiptAuditFeature({
    config,
    deps: appDeps,
    outbound,
    registryClient,
    enrollments,
    log: app.log,
  })
  app.decorate('receiptAudit', receiptAudit)
  app.addHook('onReady', async () => receiptAudit.start())
  app.addHook('onClose', async () => receiptAudit.close())
  const logReconcile = createLogReconcileFeature({
    config,
    deps: appDeps,
    outbound,
    registryClient,
    enrollments,
    log: app.log,
  })
  app.decorate('logReconcile', logReconcile)
  app.addHook('onReady', async () => logReconcile.start())
  app.addHook('onClose', async () => logReconcile.close())

  const eventPages = createEventPageReader(appDeps.store)
  for (const plugin of ROUTE_PLUGINS) {
    await app.register(plugin, {
      config,
      deps: appDeps,
      readiness,
      sse,
      enrollments,
      webhooks,
      tokens,
      gates,
      federation,
      witness,
      registryTrust,
      receiptAudit,
      eventPages,
    })
  }
  return app
}

/** OpenAPI document and interactive docs at SWAGGER_PATH, public (the routes they describe are not). */
async function registerApiDocs(app: FastifyInstance, config: ControlPlaneConfig): Promise<void> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ])
  await app.register(swagger, {
    openapi: {
      info: { title: 'ACDP control plane', version: SERVICE_VERSION, description: `${SERVICE_NAME} HTTP API` },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  })
  const prefix = config.swagger.path
  app.addHook('onRoute', (route) => {
    if (route.url === prefix || route.url.startsWith(`${prefix}/`)) {
      route.config = { ...(route.config ?? {}), auth: 'public' }
    }
  })
  await app.register(swaggerUi, { routePrefix: prefix })
}

/** TRUST_PROXY → Fastify's option: off, the first N hops, or an address/CIDR list. */
function toTrustProxy(
  setting: ControlPlaneConfig['server']['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (setting === false) return false
  if (typeof setting === 'number') return (_address, hop) => hop < setting
  return [...setting]
}
