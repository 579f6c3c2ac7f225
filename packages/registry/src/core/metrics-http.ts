/**
 * The HTTP metrics (product spec registry.md "Metrics": rate, latency and status by route), fed by the service
 * kit's response hook with the matched route pattern, never the raw URL.
 */
import { observeEveryResponse } from '@acdp/service-kit'
import type { FastifyInstance } from 'fastify'
import type { RegistryMetrics } from './metrics.js'

/** Records every answered request. Register on the root instance before the routes. */
export function registerHttpMetrics(app: FastifyInstance, metrics: RegistryMetrics): void {
  observeEveryResponse(app, (route, method, statusCode, seconds) =>
    metrics.observeHttpRequest(route, method, statusCode, seconds),
  )
}
