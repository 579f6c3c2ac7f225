/**
 * The /auth/* per-IP and global budgets shared by every instance (`rate_limit.backend = "postgres"`): both
 * buckets are taken in ONE statement (`takeInOrder`: the global one only when the address admitted), so a
 * rate-limited request costs one database round trip, not two. Per-process buckets of the same sizes stay in
 * front as pre-filters (charged only for what the database admitted, as in shared-rate-budget.ts), and
 * `backend_unavailable` decides when the database does not answer within `backend_timeout_ms`. Database calls
 * are reported under the metric scope `auth_request`.
 */
import { AgentRateLimiter } from './agent-rate-limiter.js'
import type { AuthRequestBudgets, AuthRequestRefusal } from './auth-request-limits.js'
import { secondsUntilToken } from './rate-budget.js'
import { callSharedBackend, type SharedBackendOptions } from './shared-rate-budget.js'

const GLOBAL = 'global'
const METRIC_SCOPE = 'auth_request'

export interface SharedAuthRequestBudgetsOptions extends SharedBackendOptions {
  /** `rate_limit.per_ip_per_minute`; 0 disables the per-address budget. */
  perIpPerMinute: number
  /** `rate_limit.global_per_minute` (> 0: config.ts refuses 0 with the shared backend). */
  globalPerMinute: number
}

export class SharedAuthRequestBudgets implements AuthRequestBudgets {
  readonly #o: SharedAuthRequestBudgetsOptions
  readonly #perIp: AgentRateLimiter
  readonly #global: AgentRateLimiter

  constructor(options: SharedAuthRequestBudgetsOptions) {
    this.#o = options
    this.#perIp = new AgentRateLimiter({ perMinute: options.perIpPerMinute })
    this.#global = new AgentRateLimiter({ perMinute: options.globalPerMinute })
  }

  async take(clientIp: string, nowMs: number): Promise<AuthRequestRefusal | undefined> {
    const o = this.#o
    const perIpWait = this.#perIp.retryAfterSeconds(clientIp, nowMs)
    if (perIpWait > 0) return { scope: 'auth_per_ip', waitSeconds: perIpWait }
    const globalWait = this.#global.retryAfterSeconds(GLOBAL, nowMs)
    if (globalWait > 0) return { scope: 'auth_global', waitSeconds: globalWait }
    if (o.globalPerMinute <= 0 && o.perIpPerMinute <= 0) return undefined

    const global = { scope: 'auth_global', key: GLOBAL, perMinute: o.globalPerMinute } as const
    const taken = await callSharedBackend(
      o,
      METRIC_SCOPE,
      async (store) =>
        o.perIpPerMinute > 0
          ? store.takeInOrder({ scope: 'auth_per_ip', key: clientIp, perMinute: o.perIpPerMinute }, global)
          : { first: undefined, second: await store.take(global.scope, global.key, global.perMinute) },
      (result) => (result.first?.admitted !== false && result.second?.admitted === true ? 'admitted' : 'refused'),
    )
    if (taken === undefined) {
      if (o.unavailable === 'deny') return { scope: 'auth_per_ip', waitSeconds: 1 }
      this.#perIp.charge(clientIp, nowMs)
      this.#global.charge(GLOBAL, nowMs)
      return undefined
    }
    if (taken.first !== undefined) {
      if (!taken.first.admitted) {
        return { scope: 'auth_per_ip', waitSeconds: secondsUntilToken(taken.first.tokens, o.perIpPerMinute) }
      }
      this.#perIp.charge(clientIp, nowMs)
    }
    const second = taken.second
    if (second === undefined || !second.admitted) {
      return { scope: 'auth_global', waitSeconds: secondsUntilToken(second?.tokens ?? 0, o.globalPerMinute) }
    }
    this.#global.charge(GLOBAL, nowMs)
    return undefined
  }
}
