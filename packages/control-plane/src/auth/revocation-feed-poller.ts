/**
 * Polls peer revocation feeds (REVOCATION_FEEDS; product spec "Authentication" rule 8) through the kit's feed
 * polling (@acdp/service-kit, revocation/feed-polling.ts: SSRF-safe outbound client, one poll per feed, a durable
 * cursor that advances only after a whole page applied), and applies their entries to the shared deny list.
 *
 * The cursor (`revocation_cursors`, by issuer) moves on a partial last page too, and up to MAX_PAGES pages are
 * read per tick. Entries naming another issuer than the feed's are dropped: a peer only speaks for its own tokens.
 * An entry without a `revoked_at_ms` fails the page where it stands (entries before it stay recorded; applying
 * is idempotent on (iss, jti), so the retry records nothing twice).
 */
import { isProtocolError, type OutboundClient, type OutboundResponse } from '@acdp/protocol'
import { createFeedPolling, type FeedPage } from '@acdp/service-kit'
import type { RevocationFeed } from './token-settings.js'
import type { ControlPlaneAuthStore } from './auth-store.js'
import type { RevocationList } from './revocation-list.js'

export interface RevocationFeedPoller {
  /** Polls one feed now (every page available, up to MAX_PAGES); resolves to the entries applied. */
  poll(feed: RevocationFeed): Promise<number>
  /**
   * This instance's last poll outcome of the feed of `issuer`, or undefined before its first page or failure.
   * Kept in memory only: each instance polls on its own, so another instance may have seen another outcome.
   */
  lastPoll(issuer: string): FeedPollOutcome | undefined
  start(): void
  close(): void
}

export interface FeedPollOutcome {
  /** Unix ms of the last page applied or of the failure. */
  atMs: number
  outcome: 'ok' | 'error'
  /**
   * Why the last poll failed: `http_<status>` (the feed answered another status than 200), `malformed_page`,
   * `malformed_entry`, the outbound client's refusal reason or failure code (e.g. `loopback`, `outbound_failed`,
   * `outbound_too_large`), or `internal`. Null when it succeeded.
   */
  errorCategory: string | null
}

/** A feed answer refused for a reason worth naming (the error category of the last poll). */
class FeedRefusal extends Error {
  constructor(
    readonly category: string,
    message: string,
  ) {
    super(message)
  }
}

function errorCategory(error: unknown): string {
  if (error instanceof FeedRefusal) return error.category
  if (isProtocolError(error)) {
    const reason = error.details?.['reason']
    return typeof reason === 'string' ? reason : error.code
  }
  return 'internal'
}

const MAX_PAGES = 20

export function createRevocationFeedPoller(options: {
  feeds: readonly RevocationFeed[]
  authStore: ControlPlaneAuthStore
  revocations: RevocationList
  outbound: OutboundClient
  now: () => number
  log: { warn(object: unknown, message?: string): void }
  /** Called for each entry newly added to the deny list. */
  onApplied?: () => void
}): RevocationFeedPoller {
  const outcomes = new Map<string, FeedPollOutcome>()
  const failed = (feed: RevocationFeed, error: unknown): void => {
    outcomes.set(feed.issuer, { atMs: options.now(), outcome: 'error', errorCategory: errorCategory(error) })
  }
  const polling = createFeedPolling<RevocationFeed, unknown>({
    feeds: options.feeds,
    source: (feed) => ({ key: feed.issuer, url: feed.url, bearerToken: feed.token, pollSeconds: feed.pollSeconds }),
    maxPages: MAX_PAGES,
    outbound: options.outbound,
    now: options.now,
    readCursor: (feed) => options.authStore.getFeedCursor(feed.issuer),
    writeCursor: (feed, cursorMs) => options.authStore.setFeedCursor(feed.issuer, cursorMs, options.now()),
    readPage,
    applyPage: async (feed, entries, sinceMs) => {
      const nowSeconds = Math.floor(options.now() / 1000)
      let lastMs = sinceMs
      let applied = 0
      for (const raw of entries) {
        const entry = raw as Record<string, unknown>
        const at = entry['revoked_at_ms']
        if (typeof at !== 'number' || !Number.isSafeInteger(at)) {
          throw new FeedRefusal('malformed_entry', 'feed entry without revoked_at_ms')
        }
        lastMs = Math.max(lastMs, at)
        const { jti, sub, iss, exp } = entry
        if (iss !== feed.issuer || typeof jti !== 'string' || typeof sub !== 'string') continue
        if (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < nowSeconds) continue
        const inserted = await options.revocations.record({
          iss,
          jti,
          sub,
          exp,
          revokedAtMs: options.now(),
          revokedBy: `feed:${feed.issuer}`,
          reason: 'unspecified',
        })
        if (inserted) options.onApplied?.()
        applied += 1
      }
      // A page applied whole: the poll is ok so far (a later page's failure overwrites this).
      outcomes.set(feed.issuer, { atMs: options.now(), outcome: 'ok', errorCategory: null })
      return { applied, lastMs }
    },
    onPollFailed: (feed, error) => {
      failed(feed, error)
      options.log.warn({ err: error, issuer: feed.issuer }, 'revocation feed poll failed')
    },
  })

  return {
    poll: (feed) =>
      polling.poll(feed).then(
        (result) => result.applied,
        (error: unknown) => {
          failed(feed, error)
          throw error
        },
      ),
    lastPoll: (issuer) => outcomes.get(issuer),
    start: () => polling.start(),
    close: () => void polling.stop(),
  }
}

/**
 * The control plane's reading of a page: any JSON object with an `entries` array (entries are checked one by
 * one while applying). An empty page ends the poll; a `next_cursor` that is not an integer neither ends it nor
 * moves the cursor beyond the page's own entries (0 stands for that).
 */
function readPage(response: OutboundResponse): FeedPage<unknown> {
  if (response.status !== 200) {
    throw new FeedRefusal(`http_${response.status}`, `revocation feed answered ${response.status}`)
  }
  let body: { entries?: unknown; next_cursor?: unknown } | null
  try {
    body = JSON.parse(Buffer.from(response.body).toString('utf8')) as typeof body
  } catch {
    throw new FeedRefusal('malformed_page', 'revocation feed page is not JSON')
  }
  if (body === null || typeof body !== 'object' || !Array.isArray(body.entries)) {
    throw new FeedRefusal('malformed_page', 'revocation feed page has no entries array')
  }
  const entries = body.entries as unknown[]
  if (entries.length === 0) return { entries, nextCursor: null }
  const next = body.next_cursor
  if (next === null || next === undefined) return { entries, nextCursor: null }
  return { entries, nextCursor: typeof next === 'number' && Number.isSafeInteger(next) ? next : 0 }
}
