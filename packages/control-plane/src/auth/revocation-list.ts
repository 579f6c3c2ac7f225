/**
 * The deny list every token check consults, in memory so a check costs one Map lookup.
 *
 * Every revocation is written to the shared database first (the durable record and the published feed), then
 * added locally. Each instance reloads the rows other instances (and the feed poller) wrote every
 * REVOCATION_SYNC_INTERVAL_MS, so a token revoked anywhere is refused everywhere within one interval. The reload
 * reads rows recorded since the previous reload minus an overlap (instance clocks differ), and only rows of
 * unexpired tokens; entries are dropped once their token expired, so memory is bounded by the live tokens revoked.
 */
import type { ControlPlaneAuthStore, RevocationRecord } from './auth-store.js'

export interface RevocationList {
  /** Whether (iss, jti) is revoked, as of this instance's last reload or its own revocations. */
  has(iss: string, jti: string): boolean
  /** Persists a revocation and applies it locally; false when it was already revoked. */
  record(entry: RevocationRecord): Promise<boolean>
  /** Reloads revocations written elsewhere; also purges expired rows now and then. */
  sync(): Promise<void>
  /** Starts the periodic reload (after a first full load). */
  start(): Promise<void>
  close(): void
  size(): number
}

export interface RevocationListOptions {
  authStore: ControlPlaneAuthStore
  clock: () => Date
  syncIntervalMs: number
  log?: { error(object: unknown, message?: string): void }
}

/** Rows recorded this long before the previous reload are read again (clock differences between instances). */
const OVERLAP_MS = 60_000
const PURGE_EVERY_MS = 300_000

export function createRevocationList(options: RevocationListOptions): RevocationList {
  const { authStore, clock } = options
  const entries = new Map<string, number>()
  let syncedFrom = 0
  let lastPurge = 0
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined

  const keyOf = (iss: string, jti: string): string => `${iss}\u0000${jti}`

  const sync = async (): Promise<void> => {
    const now = clock().getTime()
    const nowSeconds = Math.floor(now / 1000)
    const rows = await authStore.listLiveRevocationsSince(syncedFrom, nowSeconds)
    for (const row of rows) entries.set(keyOf(row.iss, row.jti), row.exp)
    syncedFrom = Math.max(0, now - OVERLAP_MS)
    for (const [key, exp] of entries) if (exp < nowSeconds) entries.delete(key)
    if (now - lastPurge >= PURGE_EVERY_MS) {
      lastPurge = now
      await authStore.deleteExpiredRevocations(nowSeconds)
      await authStore.deleteExpiredChallenges(nowSeconds)
    }
  }

  const tick = (): void => {
    running ??= sync()
      .catch((error: unknown) => options.log?.error({ err: error }, 'revocation reload failed'))
      .finally(() => {
        running = undefined
      })
  }

  return {
    has: (iss, jti) => entries.has(keyOf(iss, jti)),
    async record(entry) {
      const inserted = await authStore.insertRevocation(entry)
      entries.set(keyOf(entry.iss, entry.jti), entry.exp)
      return inserted
    },
    sync,
    async start() {
      await sync()
      timer ??= setInterval(tick, options.syncIntervalMs)
      timer.unref()
    },
    close() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
    size: () => entries.size,
  }
}
