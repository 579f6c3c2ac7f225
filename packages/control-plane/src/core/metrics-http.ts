/**
 * HTTP request metrics (`http_request_duration_seconds`, `http_requests_total`; product spec "Metrics").
 *
 * The `path` label is the matched route pattern (`/runs/:runId`), never the raw URL: the reference labelled raw
 * paths with only UUIDs collapsed, so run ids and DIDs grew the label set without bound.
 * Requests that match no route share the single label value `unmatched`.
 */
import { observeEveryResponse } from '@acdp/service-kit'
import type { FastifyInstance } from 'fastify'
import type { ControlPlaneMetrics } from './metrics.js'

/** `path` label of requests that matched no route (404s, probes of random URLs). */
export const UNMATCHED_ROUTE_LABEL = 'unmatched'

/**
 * Observes every completed request through the service kit's `onResponse` hook. Register it on the root instance
 * (not inside an encapsulated plugin) so it sees every route. Long-lived streams that hijack the reply are
 * observed by their own gauges instead (`active_sse_connections`).
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: ControlPlaneMetrics): void {
  observeEveryResponse(app, (route, method, statusCode, seconds) => {
    const labels = { method, path: route ?? UNMATCHED_ROUTE_LABEL, status_code: String(statusCode) }
    metrics.httpRequests.inc(labels)
    metrics.httpRequestDuration.observe(labels, seconds)
  })
}
