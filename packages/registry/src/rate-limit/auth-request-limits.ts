/**
 * The per-IP and global budgets over every /auth/* route (product spec "Limits", `rate_limit` section;
 * RFC-ACDP-0008 §4.3): checked before any body parsing or DID work, so a flood of challenges or token attempts
 * costs the registry nothing but the check. Per process with `rate_limit.backend = "memory"`
 * (`MemoryAuthRequestBudgets`), shared by every instance with "postgres" (shared-auth-request-budgets.ts).
 */
import { RegistryError } from '../core/errors.js'
import type { RegistryMetrics } from '../core/metrics.js'
import { AgentRateLimiter } from './agent-rate-limiter.js'

export type AuthRequestScope = 'auth_per_ip' | 'auth_global'

/** Why a request was refused: the budget that was empty and the seconds until it has a token again. */
export interface AuthRequestRefusal {
  scope: AuthRequestScope
  waitSeconds: number
}

export interface AuthRequestBudgets {
  /**
   * Takes one request from the client address's budget, then — only when that admitted — from the global one.
   * Resolves to the refusal, or undefined when both admitted. In memory a refused request takes nothing; on the
   * shared backend one the global budget refuses has spent its address's token (one statement takes both).
   */
  take(clientIp: string, nowMs: number): Promise<AuthRequestRefusal | undefined>
}

const GLOBAL = 'global'

/** Both budgets in this process (`rate_limit.backend = "memory"`); 0 per minute disables one. */
export class MemoryAuthRequestBudgets implements AuthRequestBudgets {
  readonly #perIp: AgentRateLimiter
  readonly #global: AgentRateLimiter

  constructor(perIpPerMinute: number, globalPerMinute: number) {
    this.#perIp = new AgentRateLimiter({ perMinute: perIpPerMinute })
    this.#global = new AgentRateLimiter({ perMinute: globalPerMinute })
  }

  async take(clientIp: string, nowMs: number): Promise<AuthRequestRefusal | undefined> {
    const perIpWait = this.#perIp.retryAfterSeconds(clientIp, nowMs)
    if (perIpWait > 0) return { scope: 'auth_per_ip', waitSeconds: perIpWait }
    const globalWait = this.#global.retryAfterSeconds(GLOBAL, nowMs)
    if (globalWait > 0) return { scope: 'auth_global', waitSeconds: globalWait }
    this.#perIp.charge(clientIp, nowMs)
    this.#global.charge(GLOBAL, nowMs)
    return undefined
  }
}

export class AuthRequestLimits {
  readonly #enabled: boolean
  readonly #budgets: AuthRequestBudgets
  readonly #metrics: RegistryMetrics | undefined

  constructor(settings: { enabled: boolean; budgets: AuthRequestBudgets }, metrics?: RegistryMetrics) {
    this.#enabled = settings.enabled
    this.#budgets = settings.budgets
    this.#metrics = metrics
  }

  /** @throws RegistryError rate_limited (with Retry-After) when the address's or the global budget is empty. */
  async admit(clientIp: string, nowMs: number): Promise<void> {
    if (!this.#enabled) return
    const refusal = await this.#budgets.take(clientIp, nowMs)
    if (refusal === undefined) return
    this.#metrics?.recordRateLimitRejection(refusal.scope)
    throw new RegistryError('rate_limited', 'Too many authentication requests; retry later.', {
      retryAfterSeconds: refusal.waitSeconds,
    })
  }
}
