/**
 * `GET /metrics`: Prometheus text exposition (product spec "Observability": public, no credential).
 */
import type { FastifyInstance } from 'fastify'
import type { ControlPlaneMetrics } from './metrics.js'

/** Registers `GET /metrics` serving this instance's registry, process metrics included. */
export function registerMetricsRoutes(app: FastifyInstance, deps: { metrics: ControlPlaneMetrics }): void {
  app.get('/metrics', { schema: { summary: 'Prometheus metrics of this instance' } }, async (_request, reply) => {
    const body = await deps.metrics.registry.metrics()
    return reply
      .header('content-type', deps.metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(body)
  })
}
