/**
 * Assembles the log reconciliation of one app instance (LOG_RECONCILE_*): its store, the app's registry reader
 * and SSRF-safe outbound client, and the ingest context recovered publications are recorded through.
 */
import type { OutboundClient } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../config.js'
import type { ControlPlaneDeps } from '../deps.js'
import { createLogReconcileStore } from '../store/log-reconcile-store.js'
import type { EnrollmentDirectory } from './enrollment-directory.js'
import { createLogReconcileMetrics, createLogReconciler, type LogReconciler } from './log-reconciler.js'
import type { WitnessRegistryClient } from './witness-registry-client.js'

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
  const reconciler = createLogReconciler(
    {
      store: createLogReconcileStore(deps.database),
      ingest: { config, deps, enrollments: input.enrollments },
      registryClient: input.registryClient,
      outbound: input.outbound,
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
