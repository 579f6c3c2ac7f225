/**
 * A small bounded LRU of imported `KeyObject`s keyed by raw key bytes. Importing a key into OpenSSL
 * costs about as much as a verify; verifiers see the same few producer and registry keys again and
 * again, so caching keeps repeated verifies at the cost of the verify itself.
 */
import type { KeyObject } from 'node:crypto'

export class KeyObjectCache {
  readonly #capacity: number
  readonly #entries = new Map<string, KeyObject>()

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError('capacity must be a positive integer')
    this.#capacity = capacity
  }

  /** Cached key for `raw`, or the result of `load(raw)` (not cached when `load` returns null). */
  get(raw: Uint8Array, load: (raw: Uint8Array) => KeyObject | null): KeyObject | null {
    const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
    const hit = this.#entries.get(id)
    if (hit !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.#entries.delete(id)
      this.#entries.set(id, hit)
      return hit
    }
    const loaded = load(raw)
    if (loaded === null) return null
    if (this.#entries.size >= this.#capacity) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
    this.#entries.set(id, loaded)
    return loaded
  }

  get size(): number {
    return this.#entries.size
  }
}
