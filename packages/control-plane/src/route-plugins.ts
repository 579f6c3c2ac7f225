/**
 * Every route plugin of the service, registered in this order by buildApp, each in its own encapsulated scope.
 * To add a feature's routes, append one entry (adapting a `register…Routes(app, deps)` function if needed).
 */
import { agentRoutes } from './agents/agents-routes.js'
import { consoleRoutes } from './console/console-routes.js'
import { authRoutes } from './auth/auth-routes.js'
import { capabilityRoutes } from './capabilities/capabilities-routes.js'
import { contextRoutes } from './federation-proxy/federation-proxy-routes.js'
import { contextSearchRoutes } from './context-search/context-search-routes.js'
import { dashboardRoutes } from './dashboard/dashboard-routes.js'
import { registerDomainPackRoutes } from './domain-packs/domain-packs-routes.js'
import { eventRoutes } from './events/events-routes.js'
import { healthRoutes } from './core/health-routes.js'
import { ingestRoutes } from './ingest/ingest-routes.js'
import { registerMetricsRoutes } from './core/metrics-routes.js'
import { registryRoutes } from './registries/registries-routes.js'
import { registryHealthRoutes } from './registries/registry-health-routes.js'
import { registryTrustRoutes } from './registries/registry-trust-routes.js'
import { markRoutesPublic, type RoutePlugin } from './core/route-context.js'
import { routingRoutes } from './routing/routing-routes.js'
import { runRoutes } from './runs/runs-routes.js'
import { sessionRoutes } from './auth/session-routes.js'
import { registerStreamRoutes } from './streams/streams-routes.js'
import { registerWebhookRoutes } from './webhooks/webhooks-routes.js'
import { witnessPublicRoutes } from './cosigning/cosigning-routes.js'
import { logWitnessRoutes } from './witness/witness-routes.js'
import { receiptAuditRoutes } from './receipt-audit/receipt-audit-routes.js'

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
