/**
 * The per-agent write budget (`limits.publish_rate_per_minute`, RFC-ACDP-0008 §4.3): one token bucket per agent
 * DID, per process, refilling continuously to a full minute's budget. Lifecycle events draw on it with the product
 * spec's charging rule (behaviour 6): the budget is checked before any verification (an agent already over budget
 * gets 429 without costing a DID fetch), and a token is taken only once an event is proven to be the agent's own,
 * so nobody can drain another agent's budget with forged events.
 *
 * Memory is bounded: at most `maxAgents` buckets; past that the bucket idle longest is forgotten, which can only
 * give that agent a fresh (full) budget, never refuse anyone wrongly.
 */

export interface AgentRateLimiterOptions {
  /** Tokens per minute and bucket capacity; 0 disables the limiter. */
  perMinute: number
  maxAgents?: number
}

interface Bucket {
  tokens: number
  updatedMs: number
}

export class AgentRateLimiter {
  readonly #perMinute: number
  readonly #maxAgents: number
  // Insertion-ordered: a touched bucket moves to the end, so the front is the bucket idle longest.
  readonly #buckets = new Map<string, Bucket>()

  constructor(options: AgentRateLimiterOptions) {
    this.#perMinute = options.perMinute
    this.#maxAgents = options.maxAgents ?? 100_000
  }

  get enabled(): boolean {
    return this.#perMinute > 0
  }

  /** Seconds until `agentId` has a whole token again, or 0 when it may act now. Takes nothing. */
  retryAfterSeconds(agentId: string, nowMs: number): number {
    if (!this.enabled) return 0
    const tokens = this.#refilled(agentId, nowMs)
    if (tokens >= 1) return 0
    // The epsilon absorbs floating-point residue (59 s of a 1/min bucket is 1 s to wait, not 1.0000000002).
    return Math.max(1, Math.ceil(((1 - tokens) * 60) / this.#perMinute - 1e-9))
  }

  /** Takes one token (never below zero): the agent acted, whatever the outcome. */
  charge(agentId: string, nowMs: number): void {
    if (!this.enabled) return
    const tokens = this.#refilled(agentId, nowMs)
    this.#buckets.delete(agentId)
    this.#buckets.set(agentId, { tokens: Math.max(0, tokens - 1), updatedMs: nowMs })
    while (this.#buckets.size > this.#maxAgents) {
      const oldest = this.#buckets.keys().next().value
      if (oldest === undefined) break
      this.#buckets.delete(oldest)
    }
  }

  #refilled(agentId: string, nowMs: number): number {
    const bucket = this.#buckets.get(agentId)
    if (bucket === undefined) return this.#perMinute
    const elapsedMs = Math.max(0, nowMs - bucket.updatedMs)
    return Math.min(this.#perMinute, bucket.tokens + (elapsedMs * this.#perMinute) / 60_000)
  }
}
