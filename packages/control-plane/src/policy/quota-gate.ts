/**
 * Quota enforcement (product spec "Authentication" rule 10): fixed-window counters per (rule, tenant or agent,
 * window). `memory` counters are per instance; `database` counters live in `quota_counters`, incremented by one
 * atomic upsert, so every instance on the database shares them.
 *
 * A counter store failure lets the request through (logged): quotas protect capacity, and an unavailable
 * counter store must not turn into an outage of the gated routes.
 */
import { ControlPlaneError } from '../core/errors.js'
import type { QuotaAction, QuotaRule } from './quota-rules.js'
import type { ControlPlaneAuthStore } from '../auth/auth-store.js'

export interface QuotaCounter {
  /** Adds one to the counter of `bucket` in the window starting at `windowStart`; returns the new count. */
  increment(bucket: string, windowStart: number): Promise<number>
}

export interface QuotaGate {
  /**
   * Counts one use of `action` by the tenant (and agent, when known).
   *
   * @throws ControlPlaneError QUOTA_EXCEEDED (429, Retry-After) when any applicable limit is exceeded.
   */
  consume(input: { action: QuotaAction; tenantId: string; agentDid: string | undefined }): Promise<void>
}

/** Per-instance counters; windows older than the current one are dropped as time moves on. */
export function createMemoryQuotaCounter(): QuotaCounter {
  const counters = new Map<string, { windowStart: number; count: number }>()
  return {
    async increment(bucket, windowStart) {
      const current = counters.get(bucket)
      if (current === undefined || current.windowStart !== windowStart) {
        if (counters.size > 100_000) {
          for (const [key, value] of counters) if (value.windowStart < windowStart) counters.delete(key)
        }
        counters.set(bucket, { windowStart, count: 1 })
        return 1
      }
      current.count += 1
      return current.count
    },
  }
}

/** Counters in the shared database; stale windows are deleted about once a minute. */
export function createDatabaseQuotaCounter(authStore: ControlPlaneAuthStore, now: () => number): QuotaCounter {
  let lastPurge = 0
  return {
    async increment(bucket, windowStart) {
      const current = now()
      if (current - lastPurge > 60_000) {
        lastPurge = current
        await authStore.deleteQuotaWindowsBefore(current - 2 * 3_600_000)
      }
      return authStore.incrementQuota(bucket, windowStart)
    },
  }
}

export function createQuotaGate(options: {
  rules: readonly QuotaRule[]
  counter: QuotaCounter
  now: () => number
  log: { error(object: unknown, message?: string): void }
  onExceeded?: (action: QuotaAction) => void
}): QuotaGate {
  const indexed = options.rules.map((rule, index) => ({ rule, index }))
  return {
    async consume({ action, tenantId, agentDid }) {
      const now = options.now()
      let retryAfterMs = 0
      let exceeded: QuotaRule | undefined
      for (const { rule, index } of indexed) {
        if (rule.action !== '*' && rule.action !== action) continue
        const subject = rule.scope === 'tenant' ? tenantId : agentDid
        if (subject === undefined || (rule.subject !== '*' && rule.subject !== subject)) continue
        const windowStart = now - (now % rule.windowMs)
        // Agent counters are kept per tenant too: one agent may act in several tenants.
        const bucket = `${index}|${rule.scope}|${tenantId}|${subject}|${rule.action}`
        let count: number
        try {
          count = await options.counter.increment(bucket, windowStart)
        } catch (error) {
          options.log.error({ err: error }, 'quota counter unavailable; request allowed')
          continue
        }
        if (count > rule.limit) {
          const wait = windowStart + rule.windowMs - now
          if (wait > retryAfterMs) {
            retryAfterMs = wait
            exceeded = rule
          }
        }
      }
      if (exceeded !== undefined) {
        options.onExceeded?.(action)
        const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
        throw new ControlPlaneError('QUOTA_EXCEEDED', `quota exceeded for ${action}`, {
          headers: { 'retry-after': String(retryAfterSeconds) },
          extra: {
            code: 'rate_limited',
            tenantId,
            action,
            limit: exceeded.limit,
            windowSeconds: exceeded.windowMs / 1000,
            retryAfterSeconds,
          },
        })
      }
    },
  }
}
