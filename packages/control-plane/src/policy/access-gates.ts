/**
 * The gates of policy-gated and quota-gated routes (product spec "Authentication" rule 10), built once per app
 * instance from the configuration: the policy engine and the quota counters (memory, or the shared database).
 */
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneAuthStore } from '../auth/auth-store.js'
import type { AuthMetrics } from '../auth/auth-metrics.js'
import { createPolicyGate, type PolicyGate } from './policy-gate.js'
import { createDatabaseQuotaCounter, createMemoryQuotaCounter, createQuotaGate, type QuotaGate } from './quota-gate.js'

export interface AccessGates {
  policy: PolicyGate
  quotas: QuotaGate
}

export function createAccessGates(input: {
  config: ControlPlaneConfig
  authStore: ControlPlaneAuthStore
  clock: () => Date
  log: { error(object: unknown, message?: string): void }
  metrics: AuthMetrics
}): AccessGates {
  const now = (): number => input.clock().getTime()
  const counter =
    input.config.policy.quotaStore === 'database'
      ? createDatabaseQuotaCounter(input.authStore, now)
      : createMemoryQuotaCounter()
  return {
    policy: createPolicyGate(input.config.policy, (action) => input.metrics.policyDenials.inc({ action })),
    quotas: createQuotaGate({
      rules: input.config.policy.quotas,
      counter,
      now,
      log: input.log,
      onExceeded: (action) => input.metrics.quotaExceeded.inc({ action }),
    }),
  }
}
