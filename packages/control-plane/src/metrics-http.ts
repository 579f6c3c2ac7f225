/**
 * HTTP request metrics (`http_request_duration_seconds`, `http_requests_total`; product spec "Metrics").
 *
 * The `path` label is the matched route pattern (`/runs/:runId`), never the raw URL: the reference labelled raw
 * paths with only UUIDs collapsed, so run ids and DIDs grew the label set without bound (digest E perf 6).
 * Requests that match no route share the single label value `unmatched`.
 */
import type { FastifyInstance } from 'fastify'
import type { ControlPlaneMetrics } from './metrics.js'

/** `path` label of requests that matched no route (404s, probes of random URLs). */
export const UNMATCHED_ROUTE_LABEL = 'unmatched'

/**
 * Adds an `onResponse` hook to `app` that observes every completed request. Register it on the root instance
 * (not inside an encapsulated plugin) so it sees every route. Long-lived streams that hijack the reply are
 * observed by their own gauges instead (`active_sse_connections`).
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: ControlPlaneMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      path: request.routeOptions.url ?? UNMATCHED_ROUTE_LABEL,
      status_code: String(reply.statusCode),
    }
    metrics.httpRequests.inc(labels)
    metrics.httpRequestDuration.observe(labels, reply.elapsedTime / 1000)
    done()
  })
}
