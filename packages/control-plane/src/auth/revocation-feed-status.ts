/**
 * What the control plane knows of each peer revocation feed it follows (REVOCATION_FEEDS), for the console's
 * Security page: the configured issuer and feed URL (origin and path only: userinfo and query are dropped, and the
 * bearer credential is never read here), the durable cursor and when it last moved, this instance's last poll
 * outcome (in memory: each instance polls on its own), and the revocations the feed brought that are still on the
 * deny list — a count and the newest few, with their jti and subject as digests, never a token.
 */
import { sha256String } from '@acdp/protocol'
import type { FeedPollOutcome } from '@acdp/service-kit'
import type { RevocationFeed } from './token-settings.js'
import type { ControlPlaneAuthStore } from './auth-store.js'
import type { Static } from 'typebox'
import { NEWEST_PER_FEED, type PeerFeedShape } from '../response-schemas/auth.js'

/** One followed feed, as GET /auth/revocation-feeds answers it. */
export type PeerFeedStatus = Static<typeof PeerFeedShape>

export async function listPeerFeeds(deps: {
  feeds: readonly RevocationFeed[]
  authStore: Pick<ControlPlaneAuthStore, 'getFeedCursorState' | 'summarizeFeedRevocations'>
  lastPoll: (issuer: string) => FeedPollOutcome | undefined
}): Promise<{ data: PeerFeedStatus[]; total: number }> {
  const data = await Promise.all(
    deps.feeds.map(async (feed): Promise<PeerFeedStatus> => {
      const [cursor, applied] = await Promise.all([
        deps.authStore.getFeedCursorState(feed.issuer),
        deps.authStore.summarizeFeedRevocations(feed.issuer, NEWEST_PER_FEED),
      ])
      const last = deps.lastPoll(feed.issuer)
      return {
        issuer: feed.issuer,
        feedUrl: displayUrl(feed.url),
        pollSeconds: feed.pollSeconds,
        cursorMs: cursor?.cursorMs ?? null,
        cursorUpdatedAt: cursor === undefined ? null : new Date(cursor.updatedAtMs).toISOString(),
        lastPoll:
          last === undefined
            ? null
            : { at: new Date(last.atMs).toISOString(), outcome: last.outcome, errorCategory: last.errorCategory },
        applied: {
          count: applied.count,
          newest: applied.newest.map((row) => ({
            jtiSha256: digest(row.jti),
            subjectSha256: digest(row.sub),
            exp: row.exp,
            revokedAt: new Date(row.revokedAtMs).toISOString(),
          })),
        },
      }
    }),
  )
  return { data, total: data.length }
}

/** First 16 hex digits of SHA-256: enough to match an entry against a peer's own list, nothing to replay. */
function digest(value: string): string {
  return sha256String(value).slice('sha256:'.length, 'sha256:'.length + 16)
}

function displayUrl(raw: string): string {
  try {
    const url = new URL(raw)
    return `${url.origin}${url.pathname}`
  } catch {
    return '(unparseable URL)'
  }
}
