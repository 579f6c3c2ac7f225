/**
 * A bounded in-memory cache of transparency-log hashes that never change, by any key: the log keeps the folded
 * hashes of aligned leaf ranges here (RFC-ACDP-0012 §5; perfect subtrees go to log-node-cache.ts). Immutability makes caching safe without any
 * invalidation; only the self-check's failure path clears it.
 *
 * Two generations instead of a full LRU: hits in the old generation are promoted, and when the young one is
 * full the old one is dropped. Nothing is touched per hit beyond one Map lookup, and a working set larger
 * than the bound degrades to partial hits rather than the thrash of clearing everything at once.
 */
export class LogHashCache<Key> {
  readonly #generationSize: number
  #young = new Map<Key, Uint8Array>()
  #old = new Map<Key, Uint8Array>()

  /** `capacity`: most entries held (both generations together). */
  constructor(capacity: number) {
    this.#generationSize = Math.max(1, Math.floor(capacity / 2))
  }

  get(key: Key): Uint8Array | undefined {
    const young = this.#young.get(key)
    if (young !== undefined) return young
    const old = this.#old.get(key)
    if (old !== undefined) this.set(key, old)
    return old
  }

  set(key: Key, hash: Uint8Array): void {
    if (this.#young.size >= this.#generationSize) {
      this.#old = this.#young
      this.#young = new Map()
    }
    this.#young.set(key, hash)
  }

  clear(): void {
    this.#young.clear()
    this.#old.clear()
  }
}
