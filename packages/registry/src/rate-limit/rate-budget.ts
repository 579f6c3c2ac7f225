/**
 * A rate budget as every limiter of the registry uses it (per-IP and global on /auth/*, per-agent challenges,
 * the per-agent write budget of publish and lifecycle; RFC-ACDP-0008 §4.3, product spec "Limits"). Two kinds:
 * `MemoryRateBudget` (`rate_limit.backend = "memory"`: per process) and `SharedRateBudget`
 * (`rate_limit.backend = "postgres"`: one budget for every instance on the database; shared-rate-budget.ts).
 * Asynchronous because the shared kind asks the database.
 */
import { AgentRateLimiter } from './agent-rate-limiter.js'

export interface RateBudget {
  /** False when the budget is 0 per minute (the limiter is off). */
  readonly enabled: boolean
  /** Seconds until `key` may act (0: now). Takes nothing: the peek before verification. */
  retryAfterSeconds(key: string, nowMs: number): Promise<number>
  /**
   * Takes one token when there is one: resolves to 0, else to the seconds to wait (nothing taken). Atomic per key:
   * concurrent takes never hand out more tokens than the bucket holds (the take after proof).
   */
  take(key: string, nowMs: number): Promise<number>
  /** Takes one token, never below zero: the key acted, whatever the outcome (an idempotent lifecycle retry). */
  charge(key: string, nowMs: number): Promise<void>
}

/** The per-process budget: `AgentRateLimiter` behind the asynchronous interface. */
export class MemoryRateBudget implements RateBudget {
  readonly #limiter: AgentRateLimiter

  constructor(perMinute: number) {
    this.#limiter = new AgentRateLimiter({ perMinute })
  }

  get enabled(): boolean {
    return this.#limiter.enabled
  }

  async retryAfterSeconds(key: string, nowMs: number): Promise<number> {
    return this.#limiter.retryAfterSeconds(key, nowMs)
  }

  async take(key: string, nowMs: number): Promise<number> {
    // The look and the charge run in one synchronous step: no other take of this key can come between them.
    const wait = this.#limiter.retryAfterSeconds(key, nowMs)
    if (wait === 0) this.#limiter.charge(key, nowMs)
    return wait
  }

  async charge(key: string, nowMs: number): Promise<void> {
    this.#limiter.charge(key, nowMs)
  }
}

/** Seconds until a bucket holding `tokens` (refilling `perMinute` a minute) has a whole one: at least 1. */
export function secondsUntilToken(tokens: number, perMinute: number): number {
  // The epsilon absorbs floating-point residue, as in AgentRateLimiter.
  return Math.max(1, Math.ceil(((1 - tokens) * 60) / perMinute - 1e-9))
}
