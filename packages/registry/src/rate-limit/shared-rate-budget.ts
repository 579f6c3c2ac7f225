/**
 * A rate budget shared by every instance on one PostgreSQL (`rate_limit.backend = "postgres"`): per-process
 * buckets would let N instances behind a balancer admit N times the configured rate, so the sum of what all
 * instances admit stays within one budget.
 *
 * A per-process memory bucket of the same size stays in front as a pre-filter. It is charged only for what the
 * shared bucket admitted (or charged), so it never holds fewer tokens than the shared one and refusing on it
 * alone is always right; a flood from one address is then refused without a database round trip.
 *
 * When the database does not answer within `rate_limit.backend_timeout_ms` (or fails), `backend_unavailable`
 * decides: "allow" (default) admits on the pre-filter alone — every instance still holds its own per-process
 * budget, so an outage degrades to memory limits rather than to none; "deny" refuses with 429 and
 * `Retry-After: 1`. A charge that cannot reach the database is dropped (the action already happened).
 */
import type { RateLimitScope, SharedRateLimitStore } from './rate-limit-store.js'
import { AgentRateLimiter } from './agent-rate-limiter.js'
import { type RateBudget, secondsUntilToken } from './rate-budget.js'

/** What the shared budget does when the database is slow or down. */
export type BackendUnavailablePolicy = 'allow' | 'deny'

/** Outcome of one database call (the metrics label). */
export type SharedOutcome = 'admitted' | 'refused' | 'peeked' | 'charged' | 'timeout' | 'error'

/** How a shared budget reaches the database and what it does when the database does not answer. */
export interface SharedBackendOptions {
  store: SharedRateLimitStore
  timeoutMs: number
  unavailable: BackendUnavailablePolicy
  /** Told when the database failed (by metric scope); the budget carries on per its policy. */
  onUnavailable?: (scope: string, error: unknown) => void
  /** Told about every database call: its outcome and the seconds it took (measured with `monotonicMs`). */
  observe?: (scope: string, outcome: SharedOutcome, seconds: number) => void
  /** A monotonic millisecond clock for `observe` (performance.now in production). */
  monotonicMs?: () => number
}

export interface SharedRateBudgetOptions extends SharedBackendOptions {
  scope: RateLimitScope
  perMinute: number
}

/** The database did not answer within `rate_limit.backend_timeout_ms`. */
export class SharedBackendTimeout extends Error {
  override readonly name = 'SharedBackendTimeout'
}

export class SharedRateBudget implements RateBudget {
  readonly #o: SharedRateBudgetOptions
  readonly #local: AgentRateLimiter

  constructor(options: SharedRateBudgetOptions) {
    this.#o = options
    this.#local = new AgentRateLimiter({ perMinute: options.perMinute })
  }

  get enabled(): boolean {
    return this.#o.perMinute > 0
  }

  async retryAfterSeconds(key: string, nowMs: number): Promise<number> {
    if (!this.enabled) return 0
    const local = this.#local.retryAfterSeconds(key, nowMs)
    if (local > 0) return local
    const tokens = await this.#call((store) => store.peek(this.#o.scope, key, this.#o.perMinute), 'peeked')
    if (tokens === undefined) return this.#o.unavailable === 'allow' ? 0 : 1
    return tokens >= 1 ? 0 : secondsUntilToken(tokens, this.#o.perMinute)
  }

  async take(key: string, nowMs: number): Promise<number> {
    if (!this.enabled) return 0
    const local = this.#local.retryAfterSeconds(key, nowMs)
    if (local > 0) return local
    const taken = await this.#call(
      (store) => store.take(this.#o.scope, key, this.#o.perMinute),
      (result) => (result.admitted ? 'admitted' : 'refused'),
    )
    if (taken === undefined) {
      if (this.#o.unavailable === 'deny') return 1
      // The pre-filter alone decides: look again now, in the same synchronous step as the charge, because other
      // takes of this key ran while the database was being waited for.
      const wait = this.#local.retryAfterSeconds(key, nowMs)
      if (wait === 0) this.#local.charge(key, nowMs)
      return wait
    }
    if (!taken.admitted) return secondsUntilToken(taken.tokens, this.#o.perMinute)
    this.#local.charge(key, nowMs)
    return 0
  }

  async charge(key: string, nowMs: number): Promise<void> {
    if (!this.enabled) return
    this.#local.charge(key, nowMs)
    await this.#call((store) => store.charge(this.#o.scope, key, this.#o.perMinute), 'charged')
  }

  #call<T>(
    run: (store: SharedRateLimitStore) => Promise<T>,
    outcome: SharedOutcome | ((result: T) => SharedOutcome),
  ): Promise<T | undefined> {
    return callSharedBackend(this.#o, this.#o.scope, run, outcome)
  }
}

/**
 * Runs one store call under `timeoutMs`; resolves to undefined when it timed out or failed (reported to
 * `observe` and `onUnavailable` under `scope`, never thrown).
 */
export async function callSharedBackend<T>(
  o: SharedBackendOptions,
  scope: string,
  run: (store: SharedRateLimitStore) => Promise<T>,
  outcome: SharedOutcome | ((result: T) => SharedOutcome),
): Promise<T | undefined> {
  const startedMs = o.monotonicMs?.() ?? 0
  const seconds = () => Math.max(0, (o.monotonicMs?.() ?? 0) - startedMs) / 1000
  try {
    const result = await withDeadline(run(o.store), o.timeoutMs)
    o.observe?.(scope, typeof outcome === 'function' ? outcome(result) : outcome, seconds())
    return result
  } catch (error) {
    o.observe?.(scope, isBackendTimeout(error) ? 'timeout' : 'error', seconds())
    o.onUnavailable?.(scope, error)
    return undefined
  }
}

/**
 * Our own deadline, and the database's (statement_timeout 57014, lock_timeout 55P03) and the pool's connect
 * timeout, are all the same event — "no answer within backend_timeout_ms" — and which fires first is a race.
 */
export function isBackendTimeout(error: unknown): boolean {
  if (error instanceof SharedBackendTimeout) return true
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (code === '57014' || code === '55P03') return true
  return typeof message === 'string' && /timeout/i.test(message)
}

/** `promise`, or a SharedBackendTimeout after `timeoutMs` (the statement itself is cancelled by the database). */
function withDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new SharedBackendTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
