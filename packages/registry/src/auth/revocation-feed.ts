/**
 * Our revocation feed for peers, `GET /auth/revocations?since=<unix ms>&limit=<n>` (product spec
 * "Authentication" 5; the control plane serves the same shape): the tokens this registry revoked, as
 * `{ entries: [{ jti, sub, iss, exp, revoked_at_ms }], next_cursor }`, ordered by (revoked_at_ms, jti), with
 * `revoked_at_ms > since`. A peer keeps the last entry's `revoked_at_ms` as its cursor.
 *
 * Two rules keep a peer's millisecond cursor from skipping anything:
 * - a page never ends inside a millisecond (the kit's cutFeedRows): entries sharing the boundary millisecond
 *   move to the next page, and a page that is one millisecond only holds all of it;
 * - entries younger than `FEED_SETTLE_MS` are withheld, so a revocation stamped by another instance (or committed
 *   a moment late) lands before any peer's cursor can pass its millisecond.
 */
import type { RevocationFeedPage } from '@acdp/protocol'
import { cutFeedRows, feedPageOf } from '@acdp/service-kit'
import type { RevocationFeedStore } from './revocation-feed-store.js'

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
  const cut = await cutFeedRows(
    await deps.store.listOwnRevocations(sinceMs, untilMs, limit + 1),
    limit,
    (row) => row.revokedAtMs,
    async (boundary) => ({
      rows: await deps.store.listOwnRevocationsAt(boundary, SAME_MILLISECOND_CAP),
      hasMore: (await deps.store.listOwnRevocations(boundary, untilMs, 1)).length > 0,
    }),
  )
  const entries = cut.rows.map((row) => ({
    jti: row.jti,
    sub: row.subject,
    iss: deps.issuer,
    exp: Math.ceil(row.expiresAtMs / 1000),
    revoked_at_ms: row.revokedAtMs,
  }))
  return feedPageOf(entries, cut.hasMore)
}
