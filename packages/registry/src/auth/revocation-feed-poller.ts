/**
 * The registry's side of the kit's revocation feed poller (@acdp/service-kit,
 * revocation/revocation-feed-poller.ts) for `[[auth.revocation_feeds]]` (product spec "Authentication" 5): feeds
 * and their durable cursors (`auth_revocation_feed_cursor`) keyed by feed URL, up to 50 pages per tick, and a
 * page's entries recorded as revoked for the feed's issuer in one statement, so a token of that issuer with a
 * listed jti is refused on every route.
 *
 * A page is checked whole before anything of it is recorded: a page that is not the feed shape, or holds one
 * malformed entry or one not after the cursor, applies nothing and leaves the cursor where it was (the next tick
 * retries it). Entries already expired are skipped (they are refused anyway).
 */
import { type OutboundClient, parseJsonStrict, type RevocationFeedEntry } from '@acdp/protocol'
import { type FeedPollResult, RevocationFeedPoller as FeedPoller } from '@acdp/service-kit'
import type { PeerRevocation, RevocationFeedStore } from './revocation-feed-store.js'

export type { FeedPollResult }

export interface RevocationFeedConfig {
  issuer: string
  feed_url: string
  admin_token: string
  poll_seconds: number
}

export interface RevocationFeedPollerDeps {
  store: Pick<RevocationFeedStore, 'getFeedCursor' | 'applyPeerRevocations' | 'setFeedCursor'>
  outbound: OutboundClient
  clock: () => Date
  log: { warn(object: object, message: string): void }
}

/** Why a page was refused whole (the cursor stays). */
export class RevocationFeedPageError extends Error {
  override readonly name = 'RevocationFeedPageError'
}

const MAX_PAGES_PER_POLL = 50
const MAX_JTI_CHARS = 256
const MAX_SUB_CHARS = 4096

/**
 * The kit's poller bound to the registry's feeds, store and page check. `poll` rejects with a
 * RevocationFeedPageError (bad page) or the outbound client's error; what applied before stays applied.
 */
export class RegistryRevocationFeedPoller extends FeedPoller<
  RevocationFeedConfig,
  RevocationFeedEntry,
  PeerRevocation
> {
  constructor(deps: RevocationFeedPollerDeps, feeds: readonly RevocationFeedConfig[]) {
    const { store, clock } = deps
    super({
      feeds,
      source: (feed) => ({
        key: feed.feed_url,
        issuer: feed.issuer,
        url: feed.feed_url,
        bearerToken: feed.admin_token,
        pollSeconds: feed.poll_seconds,
      }),
      maxPages: MAX_PAGES_PER_POLL,
      outbound: deps.outbound,
      now: () => clock().getTime(),
      readCursor: (feed) => store.getFeedCursor(feed.feed_url),
      writeCursor: (feed, cursorMs, nowMs) => store.setFeedCursor(feed.feed_url, feed.issuer, cursorMs, nowMs),
      readPage: (response, sinceMs) => {
        if (response.status !== 200) throw new RevocationFeedPageError(`the feed answered HTTP ${response.status}`)
        return parseFeedPage(new TextDecoder().decode(response.body), sinceMs)
      },
      revokedAtMs: (entry) => entry.revoked_at_ms,
      issuerOf: (entry) => entry.iss,
      // An expired token is refused anyway.
      revocationOf: (feed, entry, nowMs) =>
        entry.exp * 1000 < nowMs
          ? undefined
          : {
              issuer: feed.issuer,
              jti: entry.jti,
              subject: entry.sub,
              revokedAtMs: entry.revoked_at_ms,
              expiresAtMs: entry.exp * 1000,
            },
      record: { page: (_feed, revocations) => store.applyPeerRevocations(revocations) },
      onPollFailed: (feed, error) => {
        deps.log.warn(
          { issuer: feed.issuer, feed_url: feed.feed_url, err: error instanceof Error ? error.message : String(error) },
          'revocation feed poll failed; its cursor stays',
        )
      },
    })
  }
}

/**
 * A feed page, checked whole. Attacker-controlled (the peer's answer): every defect is a
 * RevocationFeedPageError, never a SyntaxError or TypeError.
 */
export function parseFeedPage(
  text: string,
  sinceMs: number,
): { entries: RevocationFeedEntry[]; nextCursor: number | null } {
  let body: unknown
  try {
    body = parseJsonStrict(text)
  } catch {
    throw new RevocationFeedPageError('the feed page is not JSON')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new RevocationFeedPageError('the feed page is not an object')
  }
  const { entries, next_cursor } = body as { entries?: unknown; next_cursor?: unknown }
  if (!Array.isArray(entries) || entries.length > FEED_MAX_ENTRIES) {
    throw new RevocationFeedPageError('the feed page has no entries array of a sane size')
  }
  if (next_cursor !== null && next_cursor !== undefined && !isUnixMs(next_cursor)) {
    throw new RevocationFeedPageError('next_cursor is neither null nor a unix-ms integer')
  }
  const checked = entries.map((entry, index) => {
    const e = entry as Record<string, unknown> | null
    if (
      e === null ||
      typeof e !== 'object' ||
      !isBoundedString(e.jti, MAX_JTI_CHARS) ||
      !isBoundedString(e.iss, MAX_SUB_CHARS) ||
      typeof e.sub !== 'string' ||
      e.sub.length > MAX_SUB_CHARS ||
      !Number.isSafeInteger(e.exp) ||
      !isUnixMs(e.revoked_at_ms) ||
      (e.revoked_at_ms as number) <= sinceMs
    ) {
      throw new RevocationFeedPageError(`entry ${index} is malformed or not after the cursor`)
    }
    return { jti: e.jti, sub: e.sub, iss: e.iss, exp: e.exp as number, revoked_at_ms: e.revoked_at_ms as number }
  })
  return { entries: checked, nextCursor: typeof next_cursor === 'number' ? next_cursor : null }
}

/** A page may hold a whole millisecond beyond its limit (revocation-feed.ts); more than this is not a feed. */
const FEED_MAX_ENTRIES = 10_000

function isUnixMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function isBoundedString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max
}
