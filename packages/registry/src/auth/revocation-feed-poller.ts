/**
 * Mirrors peers' token revocations (`[[auth.revocation_feeds]]`; product spec "Authentication" 5): each feed is
 * polled every `poll_seconds` through the SSRF-policy outbound client (`GET <feed_url>?since=<cursor>&limit=200`,
 * `Authorization: Bearer <admin_token>`, no redirects), and its entries are recorded as revoked for the feed's
 * issuer, so a token of that issuer with a listed jti is refused on every route.
 *
 * The cursor (unix ms, durable in `auth_revocation_feed_cursor`) advances only after a whole page applied
 * cleanly: a page that fails to fetch, is not the feed shape, or holds one malformed entry applies nothing and
 * leaves the cursor where it was (the next tick retries it). Entries naming another issuer than the feed's are
 * dropped (a peer speaks only for its own tokens); entries already expired are skipped (they are refused
 * anyway). Several pages are read per tick until the feed says it is done.
 */
import { type OutboundClient, parseJsonStrict, type RevocationFeedEntry } from '@acdp/protocol'
import { createFeedPolling, type FeedPolling, type FeedPollResult } from '@acdp/service-kit'
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

/** The registry's side of the kit's feed polling: its cursor store, its page check, its peer revocations. */
export class RevocationFeedPoller {
  readonly #polling: FeedPolling<RevocationFeedConfig>

  constructor(deps: RevocationFeedPollerDeps, feeds: readonly RevocationFeedConfig[]) {
    const { store, clock } = deps
    this.#polling = createFeedPolling<RevocationFeedConfig, RevocationFeedEntry>({
      feeds,
      source: (feed) => ({
        key: feed.feed_url,
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
      applyPage: async (feed, entries, sinceMs, nowMs) => {
        let lastMs = sinceMs
        const revocations: PeerRevocation[] = []
        for (const entry of entries) {
          lastMs = Math.max(lastMs, entry.revoked_at_ms)
          // A peer speaks only for its own tokens; an expired token is refused anyway.
          if (entry.iss !== feed.issuer || entry.exp * 1000 < nowMs) continue
          revocations.push({
            issuer: feed.issuer,
            jti: entry.jti,
            subject: entry.sub,
            revokedAtMs: entry.revoked_at_ms,
            expiresAtMs: entry.exp * 1000,
          })
        }
        return { applied: await store.applyPeerRevocations(revocations), lastMs }
      },
      onPollFailed: (feed, error) => {
        deps.log.warn(
          { issuer: feed.issuer, feed_url: feed.feed_url, err: error instanceof Error ? error.message : String(error) },
          'revocation feed poll failed; its cursor stays',
        )
      },
    })
  }

  /**
   * Polls `feed` now: every page available (up to 50). One poll per feed at a time; a second call joins it.
   *
   * @throws RevocationFeedPageError (bad page) or the outbound client's error; what applied before stays applied.
   */
  poll(feed: RevocationFeedConfig): Promise<FeedPollResult> {
    return this.#polling.poll(feed)
  }

  /** Polls every feed now and then every `poll_seconds`; failures are logged, never thrown. */
  start(): void {
    this.#polling.start()
  }

  /** Stops the timers and waits for polls in flight. */
  stop(): Promise<void> {
    return this.#polling.stop()
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
