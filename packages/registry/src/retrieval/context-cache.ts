/**
 * An LRU of hot contexts keyed by ctx_id, bounded by entry count and by an estimate of the memory it holds
 * (`costOf`: the characters of its texts plus a fixed overhead per entry). Bodies and
 * visibility are immutable, so they never go stale. The mutable status inputs (`superseded_by`, the retraction
 * flag and lifecycle events) are updated here by this process's own writes; when other processes share the
 * database (PostgreSQL) an entry's status inputs are trusted for at most `statusMaxAgeMs` and then re-read.
 */
import type { StatusInputs, StoredContext } from '../store/store.js'

interface CacheEntry {
  context: StoredContext
  /** When the status inputs were last read from the database (or written by this process). */
  statusCheckedAtMs: number
  /** `costOf(context)` when it was last charged. */
  cost: number
}

/**
 * What an entry holds besides its texts: the entry and context objects, the Map slot, and the short strings
 * (ctx_id, lineage id, agent DID, content hash, timestamps). Measured: the heap after a full GC grew 21 MB for
 * 12,490 freshly published contexts with 757-character bodies held here, about 0.9 KiB each beyond the body.
 */
export const ENTRY_OVERHEAD_BYTES = 1024

/** The memory an entry is charged: its texts (one byte per character, as V8 stores ASCII) and the overhead. */
export function costOf(context: StoredContext): number {
  return (
    ENTRY_OVERHEAD_BYTES +
    context.bodyText.length +
    (context.registryReceipt?.length ?? 0) +
    (context.lifecycleEventsJson?.length ?? 0)
  )
}

export interface ContextCacheOptions {
  maxEntries: number
  /** Total `costOf` of the entries held; an entry costing over a quarter of it is never cached. */
  maxBytes: number
  /** Infinity when this process is the only writer (SQLite); small (1 s) on a shared PostgreSQL. */
  statusMaxAgeMs: number
}

export class ContextCache {
  // Insertion-ordered Map as an LRU: a hit is moved to the end; eviction takes from the front.
  readonly #entries = new Map<string, CacheEntry>()
  readonly #options: ContextCacheOptions
  #bytes = 0

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
    const cost = costOf(context)
    if (cost > this.#options.maxBytes / 4) return
    this.delete(context.ctxId)
    this.#entries.set(context.ctxId, { context, statusCheckedAtMs: nowMs, cost })
    this.#bytes += cost
    while (this.#entries.size > this.#options.maxEntries || this.#bytes > this.#options.maxBytes) {
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
    // A lifecycle event grows the entry's texts: charge the difference, and evict if that overflows.
    const cost = costOf(entry.context)
    this.#bytes += cost - entry.cost
    entry.cost = cost
    while (this.#bytes > this.#options.maxBytes && this.#entries.size > 0) {
      const oldest = this.#entries.keys().next().value
      if (oldest === undefined) break
      this.delete(oldest)
    }
  }

  delete(ctxId: string): void {
    const entry = this.#entries.get(ctxId)
    if (!entry) return
    this.#bytes -= entry.cost
    this.#entries.delete(ctxId)
  }

  get size(): number {
    return this.#entries.size
  }

  /** Total `costOf` of the entries held (at most `maxBytes`). */
  get bytes(): number {
    return this.#bytes
  }
}
