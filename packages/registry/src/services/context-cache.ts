/**
 * An LRU of hot contexts keyed by ctx_id, bounded by entry count and by total body characters. Bodies and
 * visibility are immutable, so they never go stale. The mutable status inputs (`superseded_by`, the retraction
 * flag and lifecycle events) are updated here by this process's own writes; when other processes share the
 * database (PostgreSQL) an entry's status inputs are trusted for at most `statusMaxAgeMs` and then re-read.
 */
import type { StatusInputs, StoredContext } from '../store/store.js'

interface CacheEntry {
  context: StoredContext
  /** When the status inputs were last read from the database (or written by this process). */
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
    // Even a superseded context can still be retracted or republished elsewhere, so every entry ages.
    const stale = nowMs - entry.statusCheckedAtMs > this.#options.statusMaxAgeMs
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

  /** Records freshly read (or freshly written) status inputs; members not given keep their cached value. */
  refreshStatus(ctxId: string, inputs: Partial<StatusInputs>, nowMs: number): void {
    const entry = this.#entries.get(ctxId)
    if (!entry) return
    entry.context = { ...entry.context, ...inputs }
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
