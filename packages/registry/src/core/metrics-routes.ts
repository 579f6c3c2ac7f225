/**
 * `GET /metrics` (product spec registry.md "Endpoints": public unless `metrics.bearer_token` is set; mounted only
 * when `metrics.enabled = true`; Prometheus text 0.0.4, 401 with `WWW-Authenticate` on a bad token).
 */
import type { FastifyInstance } from 'fastify'
import type { RegistryMetrics } from './metrics.js'

/**
 * Mounts `GET /metrics` on `app`. The `metrics` route-auth kind (core/http/route-auth.ts) answers 401
 * (`WWW-Authenticate: Bearer realm="metrics"`) without the `metrics.bearer_token` bearer, when one is set.
 */
export function registerMetricsRoute(app: FastifyInstance, options: { metrics: RegistryMetrics }) {
  app.get('/metrics', { config: { auth: 'metrics' } }, async (_request, reply) => {
    const body = await options.metrics.registry.metrics()
    return reply.header('cache-control', 'no-store').type(options.metrics.registry.contentType).send(body)
  })
}
