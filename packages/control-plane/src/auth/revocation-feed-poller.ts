/**
 * The control plane's side of the kit's revocation feed poller (@acdp/service-kit,
 * revocation/revocation-feed-poller.ts) for REVOCATION_FEEDS (product spec "Authentication" rule 8): feeds and
 * their cursors (`revocation_cursors`) keyed by issuer, up to MAX_PAGES pages per tick, entries applied to the
 * shared deny list one at a time.
 *
 * A page is any JSON object with an `entries` array; each entry is checked as it is applied. An entry without a
 * `revoked_at_ms` fails the page where it stands (entries before it stay recorded; recording is idempotent on
 * (iss, jti), so the retry records nothing twice); one without a string jti and sub, or with an expiry that is
 * not an integer or already past, is skipped.
 */
import { isProtocolError, type OutboundClient, type OutboundResponse } from '@acdp/protocol'
import { type FeedPage, RevocationFeedPoller } from '@acdp/service-kit'
import type { RevocationFeed } from './token-settings.js'
import type { ControlPlaneAuthStore, RevocationRecord } from './auth-store.js'
import type { RevocationList } from './revocation-list.js'

/** What an entry of a peer's feed revokes; who recorded it and when are added as it is recorded. */
type FeedRevocation = Pick<RevocationRecord, 'iss' | 'jti' | 'sub' | 'exp'>

/** The poller of the control plane's feeds; `lastPoll` is asked by issuer. */
export type ControlPlaneFeedPoller = RevocationFeedPoller<RevocationFeed, unknown, FeedRevocation>

/** A feed answer refused for a reason worth naming (the error category of the last poll). */
class FeedRefusal extends Error {
  constructor(
    readonly category: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Why a poll failed, for `lastPoll`: `http_<status>` (the feed answered another status than 200),
 * `malformed_page`, `malformed_entry`, the outbound client's refusal reason or failure code (e.g. `loopback`,
 * `outbound_failed`, `outbound_too_large`), or `internal`.
 */
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
}): ControlPlaneFeedPoller {
  return new RevocationFeedPoller<RevocationFeed, unknown, FeedRevocation>({
    feeds: options.feeds,
    source: (feed) => ({
      key: feed.issuer,
      issuer: feed.issuer,
      url: feed.url,
      bearerToken: feed.token,
      pollSeconds: feed.pollSeconds,
    }),
    maxPages: MAX_PAGES,
    outbound: options.outbound,
    now: options.now,
    readCursor: (feed) => options.authStore.getFeedCursor(feed.issuer),
    // Stamped when written, not when the page was read.
    writeCursor: (feed, cursorMs) => options.authStore.setFeedCursor(feed.issuer, cursorMs, options.now()),
    readPage,
    revokedAtMs: (entry) => {
      const at = (entry as Record<string, unknown>)['revoked_at_ms']
      if (typeof at !== 'number' || !Number.isSafeInteger(at)) {
        throw new FeedRefusal('malformed_entry', 'feed entry without revoked_at_ms')
      }
      return at
    },
    issuerOf: (entry) => (entry as Record<string, unknown>)['iss'],
    revocationOf: (feed, entry, nowMs) => {
      const { jti, sub, exp } = entry as Record<string, unknown>
      if (typeof jti !== 'string' || typeof sub !== 'string') return undefined
      if (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < Math.floor(nowMs / 1000)) return undefined
      return { iss: feed.issuer, jti, sub, exp }
    },
    record: {
      // Every entry that passed counts as applied, whether or not the deny list already held it.
      each: async (feed, revocation) => {
        const inserted = await options.revocations.record({
          ...revocation,
          revokedAtMs: options.now(),
          revokedBy: `feed:${feed.issuer}`,
          reason: 'unspecified',
        })
        if (inserted) options.onApplied?.()
        return 1
      },
    },
    errorCategory,
    onPollFailed: (feed, error) => {
      options.log.warn({ err: error, issuer: feed.issuer }, 'revocation feed poll failed')
    },
  })
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
