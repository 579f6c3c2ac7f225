/**
 * Every route plugin of the service, registered in this order by buildApp, each in its own encapsulated scope.
 * To add a feature's routes, append one entry (adapting a `register…Routes(app, deps)` function if needed).
 */
import { agentRoutes } from './agents.js'
import { consoleRoutes } from './console.js'
import { authRoutes } from './auth.js'
import { capabilityRoutes } from './capabilities.js'
import { contextRoutes } from './contexts.js'
import { contextSearchRoutes } from './context-search.js'
import { dashboardRoutes } from './dashboard.js'
import { registerDomainPackRoutes } from './domain-packs.js'
import { eventRoutes } from './events.js'
import { healthRoutes } from './health.js'
import { ingestRoutes } from './ingest.js'
import { registerMetricsRoutes } from './metrics.js'
import { registryRoutes } from './registries.js'
import { registryHealthRoutes } from './registry-health.js'
import { registryTrustRoutes } from './registry-trust.js'
import { markRoutesPublic, type RoutePlugin } from './route-context.js'
import { routingRoutes } from './routing.js'
import { runRoutes } from './runs.js'
import { sessionRoutes } from './session.js'
import { registerStreamRoutes } from './streams.js'
import { registerWebhookRoutes } from './webhooks.js'
import { witnessPublicRoutes } from './witness-public.js'
import { logWitnessRoutes } from './log-witness.js'
import { receiptAuditRoutes } from './receipt-audit.js'

/** GET /metrics: public by spec ("Observability"). */
const metricsRoutes: RoutePlugin = async (app, { deps }) => {
  markRoutesPublic(app)
  registerMetricsRoutes(app, deps)
}

/** GET /events/stream, GET /runs/:runId/events/stream. */
const streamRoutes: RoutePlugin = async (app, { sse }) => {
  registerStreamRoutes(app, { sse, tenantOf: (request) => request.tenantId })
}

/** GET /domain-packs. */
const domainPackRoutes: RoutePlugin = async (app, { deps }) => {
  registerDomainPackRoutes(app, deps)
}

/** POST/GET /webhooks, PATCH/DELETE /webhooks/:id and the delivery routes. */
const webhookRoutes: RoutePlugin = async (app, { webhooks }) => {
  registerWebhookRoutes(app, webhooks.routeDeps)
}

export const ROUTE_PLUGINS: readonly RoutePlugin[] = [
  healthRoutes,
  ingestRoutes,
  runRoutes,
  eventRoutes,
  agentRoutes,
  registryRoutes,
  dashboardRoutes,
  metricsRoutes,
  streamRoutes,
  domainPackRoutes,
  webhookRoutes,
  logWitnessRoutes,
  receiptAuditRoutes,
  witnessPublicRoutes,
  // Further feature plugins are appended below this line, one entry each.
  consoleRoutes,
  sessionRoutes,
  authRoutes,
  contextRoutes,
  capabilityRoutes,
  routingRoutes,
  registryTrustRoutes,
  contextSearchRoutes,
  registryHealthRoutes,
]
