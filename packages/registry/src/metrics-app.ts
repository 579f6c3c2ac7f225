/**
 * Metrics wiring for `buildApp`: one prom-client registry per app, the HTTP hook, the publish-outcome counter fed
 * from the registry's events, and `GET /metrics` when `metrics.enabled` (product spec registry.md "Metrics").
 */
import type { FastifyInstance } from 'fastify'
import type { RegistryConfig } from './config.js'
import { createRegistryMetrics, type RegistryMetrics } from './metrics.js'
import { registerHttpMetrics } from './metrics-http.js'
import { registerMetricsRoute } from './routes/metrics.js'
import type { RegistryEvents } from './services/registry-events.js'

/**
 * Creates the app's metrics and installs them on `app`. Call before the routes are registered. Process metrics
 * (CPU, memory, event loop, GC) are collected only when `/metrics` is mounted, so test apps stay light.
 */
export function installRegistryMetrics(
  app: FastifyInstance,
  config: Pick<RegistryConfig, 'metrics'>,
  events: RegistryEvents,
): RegistryMetrics {
  const metrics = createRegistryMetrics({
    durationBuckets: [...config.metrics.duration_buckets],
    collectProcessMetrics: config.metrics.enabled,
  })
  registerHttpMetrics(app, metrics)
  const offPublish = events.on('publish_outcome', (event) => metrics.recordPublish(event.outcome))
  app.addHook('onClose', async () => offPublish())
  if (config.metrics.enabled) registerMetricsRoute(app, { metrics, bearerToken: config.metrics.bearer_token })
  return metrics
}
