/**
 * Assembles the receipt audit of one app instance: its store, the verdict dependencies (the app's registry reader
 * and SSRF-safe outbound client, a DID resolver for producer keys, the registry-key resolver the witness uses) and
 * the sweep. buildApp serves the verdicts and ties `start`/`close` to the app lifecycle.
 */
import { DidResolver, MAX_DID_DOCUMENT_BYTES, type OutboundClient } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { createReceiptAuditStore, type ReceiptAuditStore } from './receipt-audit-store.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import { createReceiptAuditMetrics, createReceiptAuditor, type ReceiptAuditor } from './receipt-audit.js'
import type { WitnessRegistryClient } from '../witness/witness-registry-client.js'
import { createRegistryKeyResolver } from '../witness/witness-registry-keys.js'

export interface ReceiptAuditFeature {
  store: ReceiptAuditStore
  /** Present when RECEIPT_AUDIT_ENABLED=true. */
  auditor: ReceiptAuditor | undefined
  start(): void
  close(): Promise<void>
}

export function createReceiptAuditFeature(input: {
  config: ControlPlaneConfig
  deps: Pick<ControlPlaneDeps, 'database' | 'bus' | 'metrics' | 'random' | 'clock' | 'webhookOutbox'>
  outbound: OutboundClient
  registryClient: WitnessRegistryClient
  enrollments: Pick<EnrollmentDirectory, 'get'>
  log?: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
}): ReceiptAuditFeature {
  const { config, deps, outbound } = input
  const settings = config.receiptAudit
  const store = createReceiptAuditStore(deps.database)
  if (!settings.enabled) return { store, auditor: undefined, start() {}, async close() {} }
  const now = () => deps.clock().getTime()
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      const response = await outbound.request(url, {
        headers: { accept: 'application/did+json, application/json' },
        maxBodyBytes: MAX_DID_DOCUMENT_BYTES,
        totalTimeoutMs: settings.requestTimeoutMs,
      })
      return { status: response.status, body: response.body }
    },
    clock: now,
  })
  const auditor = createReceiptAuditor(
    {
      store,
      verdicts: {
        enrollments: input.enrollments,
        registryClient: input.registryClient,
        outbound,
        resolveRegistryKey: createRegistryKeyResolver({ standard: resolver, outbound, now }),
        resolveProducerKey: (keyId, { historical }) => resolver.resolveKey(keyId, { historical }),
        requestTimeoutMs: settings.requestTimeoutMs,
      },
      bus: deps.bus,
      webhookOutbox: deps.webhookOutbox,
      clock: deps.clock,
      random: deps.random,
      metrics: createReceiptAuditMetrics(deps.metrics.registry),
      ...(input.log ? { log: input.log } : {}),
    },
    {
      intervalMs: settings.intervalMs,
      batchSize: settings.batchSize,
      concurrency: settings.concurrency,
      settleMs: settings.settleMs,
      maxAttempts: settings.maxAttempts,
      retryBaseMs: settings.retryBaseMs,
      // A round is bounded by its requests; the lease outlives the slowest round several times over.
      leaseMs: Math.max(60_000, settings.requestTimeoutMs * 12),
    },
  )
  return {
    store,
    auditor,
    start() {
      if (settings.schedule) auditor.start()
    },
    close: () => auditor.close(),
  }
}
