/**
 * The registry's rate budgets built from `[rate_limit]` (product spec "Limits"): memory budgets per process, or
 * with `rate_limit.backend = "postgres"` budgets shared by every instance on the database (each with its memory
 * pre-filter, shared-rate-budget.ts), plus the pruning of idle shared buckets every `backend_prune_seconds`.
 * Database trouble is logged at most once per scope per `WARN_EVERY_MS`, so an outage does not flood the log.
 */
import { performance } from 'node:perf_hooks'
import type { RegistryConfig } from '../core/config.js'
import type { RegistryMetrics } from '../core/metrics.js'
import type { RateLimitScope, SharedRateLimitStore } from './rate-limit-store.js'
import { type AuthRequestBudgets, MemoryAuthRequestBudgets } from './auth-request-limits.js'
import { MemoryRateBudget, type RateBudget } from './rate-budget.js'
import { SharedAuthRequestBudgets } from './shared-auth-request-budgets.js'
import { type SharedBackendOptions, SharedRateBudget } from './shared-rate-budget.js'

const WARN_EVERY_MS = 10_000

export interface RateLimitsDeps {
  shared: SharedRateLimitStore | undefined
  clock: () => Date
  log: { warn(object: object, message: string): void }
  metrics?: Pick<RegistryMetrics, 'recordSharedRateLimit'>
}

export class RateLimits {
  readonly #settings: RegistryConfig['rate_limit']
  readonly #deps: RateLimitsDeps
  readonly #lastWarnMs = new Map<string, number>()
  #pruneTimer: NodeJS.Timeout | undefined

  /** @throws TypeError when the backend is "postgres" and no shared store was supplied. */
  constructor(settings: RegistryConfig['rate_limit'], deps: RateLimitsDeps) {
    if (settings.backend === 'postgres' && deps.shared === undefined) {
      throw new TypeError('rate_limit.backend = "postgres" needs deps.sharedRateLimits')
    }
    this.#settings = settings
    this.#deps = deps
  }

  /** The budget of `perMinute` per key for `scope` (0 disables it). */
  budget(scope: RateLimitScope, perMinute: number): RateBudget {
    const backend = this.#sharedBackend()
    return backend === undefined
      ? new MemoryRateBudget(perMinute)
      : new SharedRateBudget({ ...backend, scope, perMinute })
  }

  /** The per-IP and global budgets of /auth/* (`rate_limit.per_ip_per_minute`, `global_per_minute`). */
  authRequestBudgets(): AuthRequestBudgets {
    const backend = this.#sharedBackend()
    const perIp = this.#settings.per_ip_per_minute
    const global = this.#settings.global_per_minute
    return backend === undefined
      ? new MemoryAuthRequestBudgets(perIp, global)
      : new SharedAuthRequestBudgets({ ...backend, perIpPerMinute: perIp, globalPerMinute: global })
  }

  /** How shared budgets reach the database, or undefined on the memory backend. */
  #sharedBackend(): SharedBackendOptions | undefined {
    const shared = this.#deps.shared
    if (this.#settings.backend !== 'postgres' || shared === undefined) return undefined
    const metrics = this.#deps.metrics
    return {
      store: shared,
      timeoutMs: this.#settings.backend_timeout_ms,
      unavailable: this.#settings.backend_unavailable,
      onUnavailable: (scope, error) => this.#warn(scope, error),
      ...(metrics
        ? {
            observe: (scope: string, outcome: string, seconds: number) =>
              metrics.recordSharedRateLimit(scope, outcome, seconds),
            monotonicMs: () => performance.now(),
          }
        : {}),
    }
  }

  /** Starts pruning idle shared buckets (no-op on the memory backend, whose buckets bound themselves). */
  startPruning(): void {
    const shared = this.#deps.shared
    if (this.#settings.backend !== 'postgres' || shared === undefined || this.#pruneTimer) return
    this.#pruneTimer = setInterval(() => {
      shared.prune().catch((error: unknown) => {
        this.#deps.log.warn({ err: describe(error) }, 'shared rate-limit prune failed')
      })
    }, this.#settings.backend_prune_seconds * 1000)
    this.#pruneTimer.unref()
  }

  stopPruning(): void {
    if (this.#pruneTimer) clearInterval(this.#pruneTimer)
    this.#pruneTimer = undefined
  }

  #warn(scope: string, error: unknown): void {
    const nowMs = this.#deps.clock().getTime()
    const last = this.#lastWarnMs.get(scope)
    if (last !== undefined && nowMs - last < WARN_EVERY_MS) return
    this.#lastWarnMs.set(scope, nowMs)
    this.#deps.log.warn(
      { scope, policy: this.#settings.backend_unavailable, err: describe(error) },
      'shared rate-limit backend unavailable; applying rate_limit.backend_unavailable',
    )
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
