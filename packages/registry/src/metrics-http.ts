/**
 * The Fastify hook that feeds the HTTP metrics (product spec registry.md "Metrics": rate, latency and status by
 * route). Labels use the matched route pattern (`routeOptions.url`), never the raw URL, so ctx_ids and query
 * strings never become label values.
 */
import type { FastifyInstance } from 'fastify'
import type { RegistryMetrics } from './metrics.js'

/**
 * Registers an `onResponse` hook on `app` that records every answered request. Register it on the root
 * instance before the routes (Fastify hooks apply to routes of the same encapsulation context).
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: RegistryMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // reply.elapsedTime is measured by Fastify from the start of the request, in milliseconds.
    metrics.observeHttpRequest(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}
