/**
 * Our revocation feed for peers, `GET /auth/revocations?since=<unix ms>&limit=<n>` (product spec
 * "Authentication" 5; the control plane serves the same shape): the tokens this registry revoked, as
 * `{ entries: [{ jti, sub, iss, exp, revoked_at_ms }], next_cursor }`, ordered by (revoked_at_ms, jti), with
 * `revoked_at_ms > since`. A peer keeps the last entry's `revoked_at_ms` as its cursor.
 *
 * Two rules keep a peer's millisecond cursor from skipping anything:
 * - a page never ends inside a millisecond (the next page starts strictly after the cursor): entries sharing
 *   the boundary millisecond move to the next page, and a page that is one millisecond only holds all of it;
 * - entries younger than `FEED_SETTLE_MS` are withheld, so a revocation stamped by another instance (or committed
 *   a moment late) lands before any peer's cursor can pass its millisecond.
 */
import type { RevocationFeedPage } from '@acdp/protocol'
import type { OwnRevocationRow, RevocationFeedStore } from './revocation-feed-store.js'

/** How long a revocation waits before a peer can see it (instances' clocks must agree within this). */
export const FEED_SETTLE_MS = 5000
export const FEED_DEFAULT_LIMIT = 200
export const FEED_MAX_LIMIT = 500
/** Most entries one millisecond may hold in one page (each is one revoke request: far beyond reach). */
const SAME_MILLISECOND_CAP = 10_000

export interface RevocationFeedDeps {
  store: Pick<RevocationFeedStore, 'listOwnRevocations' | 'listOwnRevocationsAt'>
  /** `iss` of our tokens: the registry DID. */
  issuer: string
  clock: () => Date
}

/** One page of the feed after `sinceMs`. */
export async function readRevocationFeed(
  deps: RevocationFeedDeps,
  sinceMs: number,
  limit: number,
): Promise<RevocationFeedPage> {
  const untilMs = deps.clock().getTime() - FEED_SETTLE_MS
  const rows = await deps.store.listOwnRevocations(sinceMs, untilMs, limit + 1)
  let page = rows.slice(0, limit)
  let hasMore = rows.length > limit
  if (hasMore) {
    const boundary = (rows[limit] as OwnRevocationRow).revokedAtMs
    const whole = page.filter((row) => row.revokedAtMs !== boundary)
    if (whole.length > 0) {
      page = whole
    } else {
      // The page is one millisecond: hand all of it over, or the cursor could never move past it.
      const same = await deps.store.listOwnRevocationsAt(boundary, SAME_MILLISECOND_CAP)
      page = same
      hasMore = (await deps.store.listOwnRevocations(boundary, untilMs, 1)).length > 0
    }
  }
  const entries = page.map((row) => ({
    jti: row.jti,
    sub: row.subject,
    iss: deps.issuer,
    exp: Math.ceil(row.expiresAtMs / 1000),
    revoked_at_ms: row.revokedAtMs,
  }))
  const last = entries.at(-1)
  return { entries, next_cursor: hasMore && last !== undefined ? last.revoked_at_ms : null }
}
