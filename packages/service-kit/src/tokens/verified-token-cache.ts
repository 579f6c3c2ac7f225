/**
 * Verified bearer tokens remembered by their exact text, so a token presented again skips the signature check and
 * claim parsing. The same text carries the same signature and claims, all checked when it was first verified and
 * fixed for its life; only the clock moves, so an entry is good until the instant its server chose (at most the
 * token's expiry plus leeway). Revocation is never cached here: each server asks its deny list on every request.
 *
 * Bounded: when full, the entry stored longest ago is dropped (a Map iterates in insertion order).
 */
export interface CachedVerification<T> {
  value: T
  /** False when the entry's time ran out; the entry is dropped by this lookup. */
  live: boolean
}

export class VerifiedTokenCache<T> {
  readonly #maxEntries: number
  readonly #entries = new Map<string, { value: T; untilMs: number }>()

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer')
    this.#maxEntries = maxEntries
  }

  /** The entry for `token` at `nowMs`, or undefined when there is none. */
  lookup(token: string, nowMs: number): CachedVerification<T> | undefined {
    const entry = this.#entries.get(token)
    if (entry === undefined) return undefined
    if (nowMs < entry.untilMs) return { value: entry.value, live: true }
    this.#entries.delete(token)
    return { value: entry.value, live: false }
  }

  /** Remembers `value` for `token` until `untilMs` (exclusive). */
  remember(token: string, value: T, untilMs: number): void {
    this.#entries.delete(token)
    this.#entries.set(token, { value, untilMs })
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value
      if (oldest === undefined) break
      this.#entries.delete(oldest)
    }
  }

  get size(): number {
    return this.#entries.size
  }
}
