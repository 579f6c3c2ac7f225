/**
 * A short-lived, bounded cache of dashboard overviews (GET /dashboard/overview), keyed by (tenant, window).
 *
 * Why: an overview is seven aggregate queries; on PostgreSQL each takes a pooled connection, so a dashboard polled
 * by many clients queues behind itself (docs/performance/journal.md "Dashboard with its cache off at 500,000 events"). Within DASHBOARD_CACHE_MS the same
 * tenant and window are computed once and shared, and concurrent misses share one computation (single flight).
 *
 * Correctness: the tenant id is part of the key, so one tenant is never served another's numbers; an entry is
 * at most `ttlMs` old by the injected clock (the documented staleness); a failed computation is not cached; at
 * most `maxEntries` entries are kept (the least recently used goes first), so memory stays bounded however many
 * tenants poll.
 */
import type { DashboardOverview, DashboardWindow } from './dashboard.js'

export interface DashboardCacheOptions {
  /** How long an overview may be served after it was computed, in ms; 0 disables the cache. */
  ttlMs: number
  /** Most entries kept. */
  maxEntries: number
  /** Current time in ms (deps.clock). */
  now: () => number
}

/** The cache; `get` computes with `compute` on a miss. Safe to call concurrently. */
export interface DashboardCache {
  get(tenantId: string, window: DashboardWindow, compute: () => Promise<DashboardOverview>): Promise<DashboardOverview>
  /** Entries held now (metrics and tests). */
  readonly size: number
}

interface Entry {
  /** Time the computation started: the entry expires `ttlMs` after it. */
  computedAt: number
  value: Promise<DashboardOverview>
}

export function createDashboardCache(options: DashboardCacheOptions): DashboardCache {
  const { ttlMs, maxEntries, now } = options
  // Map iteration order is insertion order: re-inserting on every hit makes the first key the least recent.
  const entries = new Map<string, Entry>()
  return {
    get(tenantId, window, compute) {
      if (ttlMs <= 0) return compute()
      const key = `${tenantId}\n${window}`
      const at = now()
      const hit = entries.get(key)
      if (hit !== undefined) {
        entries.delete(key)
        // A clock that went backwards also invalidates: the entry's age is unknown then.
        if (at - hit.computedAt < ttlMs && at >= hit.computedAt) {
          entries.set(key, hit)
          return hit.value
        }
      }
      const value = compute()
      const entry: Entry = { computedAt: at, value }
      entries.set(key, entry)
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key)
      })
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string
        entries.delete(oldest)
      }
      return value
    },
    get size() {
      return entries.size
    },
  }
}
