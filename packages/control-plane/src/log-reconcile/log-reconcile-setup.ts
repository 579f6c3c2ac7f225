/**
 * Assembles the log reconciliation of one app instance (LOG_RECONCILE_*): its store, the app's registry reader
 * and SSRF-safe outbound client, and the ingest context recovered publications are recorded through.
 */
import { DidResolver, MAX_DID_DOCUMENT_BYTES, type OutboundClient } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { createLogReconcileStore } from './log-reconcile-store.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import { createLogReconcileMetrics, createLogReconciler, type LogReconciler } from './log-reconciler.js'
import type { WitnessRegistryClient } from '../witness/witness-registry-client.js'

export interface LogReconcileFeature {
  /** Present when LOG_RECONCILE_ENABLED=true. */
  reconciler: LogReconciler | undefined
  start(): void
  close(): Promise<void>
}

export function createLogReconcileFeature(input: {
  config: ControlPlaneConfig
  deps: ControlPlaneDeps
  outbound: OutboundClient
  registryClient: WitnessRegistryClient
  enrollments: EnrollmentDirectory
  log?: { warn(object: unknown, message?: string): void }
}): LogReconcileFeature {
  const { config, deps } = input
  const settings = config.logReconcile
  if (!settings.enabled) return { reconciler: undefined, start() {}, async close() {} }
  // Recovered lifecycle events are verified like a consumer would (RFC-ACDP-0013 §5): did:key locally, did:web
  // documents through the SSRF-safe client.
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      const response = await input.outbound.request(url, {
        headers: { accept: 'application/did+json, application/json' },
        maxBodyBytes: MAX_DID_DOCUMENT_BYTES,
        totalTimeoutMs: settings.requestTimeoutMs,
      })
      return { status: response.status, body: response.body }
    },
    clock: () => deps.clock().getTime(),
  })
  const reconciler = createLogReconciler(
    {
      store: createLogReconcileStore(deps.database),
      ingest: { config, deps, enrollments: input.enrollments },
      registryClient: input.registryClient,
      outbound: input.outbound,
      resolver,
      clock: deps.clock,
      random: deps.random,
      metrics: createLogReconcileMetrics(deps.metrics.registry),
      ...(input.log ? { log: input.log } : {}),
    },
    {
      intervalMs: settings.intervalSeconds * 1000,
      maxEntries: settings.maxEntries,
      pageSize: 256,
      concurrency: settings.concurrency,
      requestTimeoutMs: settings.requestTimeoutMs,
      leaseMs: Math.max(60_000, settings.requestTimeoutMs * 12),
      lifecyclePageSize: settings.lifecyclePageSize,
    },
  )
  return {
    reconciler,
    start() {
      if (settings.schedule) reconciler.start()
    },
    close: () => reconciler.close(),
  }
}
