/**
 * Serving a revocation feed page, the part both servers cut the same way (the wire shape is the protocol's
 * `RevocationFeedPage`). A peer resumes strictly after the last `revoked_at_ms` it saw, so a page must never end
 * inside a millisecond: the entries sharing the first millisecond past the page move to the next page, and a page
 * that is all one millisecond is handed over whole (as far as the server's bound allows), or the cursor could never
 * move past it. Which rows there are, and how the rest of one millisecond is read, is each server's.
 */
import type { RevocationFeedEntry, RevocationFeedPage } from '@acdp/protocol'

/** Rows of one page, and whether more may follow it. */
export interface FeedRows<Row> {
  rows: Row[]
  hasMore: boolean
}

/**
 * The page's rows from `rows` (up to `limit + 1` rows after the cursor, oldest first; `limit` ≥ 1).
 * `wholeMillisecond(ms)` is asked only when the first `limit` rows all share the millisecond of row `limit + 1`.
 */
export async function cutFeedRows<Row>(
  rows: readonly Row[],
  limit: number,
  revokedAtMs: (row: Row) => number,
  wholeMillisecond: (ms: number) => Promise<FeedRows<Row>>,
): Promise<FeedRows<Row>> {
  const page = rows.slice(0, limit)
  const next = rows[limit]
  if (next === undefined) return { rows: page, hasMore: false }
  const boundary = revokedAtMs(next)
  const whole = page.filter((row) => revokedAtMs(row) !== boundary)
  return whole.length > 0 ? { rows: whole, hasMore: true } : wholeMillisecond(boundary)
}

/** The wire page: `next_cursor` is the last entry's millisecond when more may follow, else null. */
export function feedPageOf(entries: RevocationFeedEntry[], hasMore: boolean): RevocationFeedPage {
  const last = entries.at(-1)
  return { entries, next_cursor: hasMore && last !== undefined ? last.revoked_at_ms : null }
}
