/**
 * An LRU of hot contexts keyed by ctx_id, bounded by entry count and by total body characters. Bodies and
 * visibility are immutable, so they never go stale. The one mutable input, `superseded_by`, is updated here by
 * this process's own publishes; when other processes share the database (PostgreSQL) an entry's status input
 * is trusted for at most `statusMaxAgeMs` and then re-read by the caller.
 */
import type { StoredContext } from '../store/store.js'

interface CacheEntry {
  context: StoredContext
  /** When `context.supersededBy` was last read from the database (or written by this process). */
  statusCheckedAtMs: number
}

export interface ContextCacheOptions {
  maxEntries: number
  maxBodyChars: number
  /** Infinity when this process is the only writer (SQLite); small (1 s) on a shared PostgreSQL. */
  statusMaxAgeMs: number
}

export class ContextCache {
  // Insertion-ordered Map as an LRU: a hit is moved to the end; eviction takes from the front.
  readonly #entries = new Map<string, CacheEntry>()
  readonly #options: ContextCacheOptions
  #bodyChars = 0

  constructor(options: ContextCacheOptions) {
    this.#options = options
  }

  /**
   * The cached context, or undefined. `stale` is true when its status input is older than allowed and must be
   * re-read (then call `refreshStatus`).
   */
  get(ctxId: string, nowMs: number): { context: StoredContext; stale: boolean } | undefined {
    const entry = this.#entries.get(ctxId)
    if (!entry) return undefined
    this.#entries.delete(ctxId)
    this.#entries.set(ctxId, entry)
    // A superseded context never becomes a head again: its status input is final.
    const stale = entry.context.supersededBy === null && nowMs - entry.statusCheckedAtMs > this.#options.statusMaxAgeMs
    return { context: entry.context, stale }
  }

  set(context: StoredContext, nowMs: number): void {
    if (context.bodyText.length > this.#options.maxBodyChars / 4) return
    this.delete(context.ctxId)
    this.#entries.set(context.ctxId, { context, statusCheckedAtMs: nowMs })
    this.#bodyChars += context.bodyText.length
    while (this.#entries.size > this.#options.maxEntries || this.#bodyChars > this.#options.maxBodyChars) {
      const oldest = this.#entries.keys().next().value
      if (oldest === undefined) break
      this.delete(oldest)
    }
  }

  /** Records a freshly read (or freshly written) `superseded_by`. */
  refreshStatus(ctxId: string, supersededBy: string | null, nowMs: number): void {
    const entry = this.#entries.get(ctxId)
    if (!entry) return
    entry.context = { ...entry.context, supersededBy }
    entry.statusCheckedAtMs = nowMs
  }

  delete(ctxId: string): void {
    const entry = this.#entries.get(ctxId)
    if (!entry) return
    this.#bodyChars -= entry.context.bodyText.length
    this.#entries.delete(ctxId)
  }

  get size(): number {
    return this.#entries.size
  }
}
