/**
 * The per-IP and process-global budgets over every /auth/* route (product spec "Limits", `rate_limit` section;
 * RFC-ACDP-0008 §4.3): checked before any body parsing or DID work, so a flood of challenges or token attempts
 * costs the registry nothing but the check. Both buckets are per process (`rate_limit.backend = "memory"`).
 */
import { RegistryError } from '../errors.js'
import type { RegistryMetrics } from '../metrics.js'
import { AgentRateLimiter } from './agent-rate-limiter.js'

const GLOBAL = 'global'

export interface AuthRequestLimitSettings {
  enabled: boolean
  perIpPerMinute: number
  globalPerMinute: number
}

export class AuthRequestLimits {
  readonly #enabled: boolean
  readonly #perIp: AgentRateLimiter
  readonly #global: AgentRateLimiter
  readonly #metrics: RegistryMetrics | undefined

  constructor(settings: AuthRequestLimitSettings, metrics?: RegistryMetrics) {
    this.#enabled = settings.enabled
    this.#perIp = new AgentRateLimiter({ perMinute: settings.perIpPerMinute })
    this.#global = new AgentRateLimiter({ perMinute: settings.globalPerMinute })
    this.#metrics = metrics
  }

  /**
   * Takes one request from `clientIp`'s bucket and the global one.
   *
   * @throws RegistryError rate_limited (with Retry-After) when either is empty; nothing is taken then.
   */
  admit(clientIp: string, nowMs: number): void {
    if (!this.#enabled) return
    const perIpWait = this.#perIp.retryAfterSeconds(clientIp, nowMs)
    if (perIpWait > 0) throw this.#refuse('auth_per_ip', perIpWait)
    const globalWait = this.#global.retryAfterSeconds(GLOBAL, nowMs)
    if (globalWait > 0) throw this.#refuse('auth_global', globalWait)
    this.#perIp.charge(clientIp, nowMs)
    this.#global.charge(GLOBAL, nowMs)
  }

  #refuse(scope: string, seconds: number): RegistryError {
    this.#metrics?.recordRateLimitRejection(scope)
    return new RegistryError('rate_limited', 'Too many authentication requests; retry later.', {
      retryAfterSeconds: seconds,
    })
  }
}
