/**
 * Polls peer revocation feeds (REVOCATION_FEEDS; product spec "Authentication" rule 8) through the SSRF-safe
 * outbound client, and applies their entries to the shared deny list.
 *
 * Each feed has a durable cursor (`revocation_cursors`) that advances only after a whole page applied, so a crash
 * or a database error mid-page replays the page (applying is idempotent on (iss, jti)). The cursor also moves
 * on a partial last page (else a feed with fewer new entries than a page would never advance it), and up to MAX_PAGES pages are read per tick.
 * Entries naming another issuer than the feed's are dropped: a peer only speaks for its own tokens.
 */
import type { OutboundClient } from '@acdp/protocol'
import type { RevocationFeed } from '../auth/token-settings.js'
import type { AuthStore } from '../store/auth-store.js'
import type { RevocationList } from './revocation-list.js'

export interface RevocationFeedPoller {
  /** Polls one feed now (every page available, up to MAX_PAGES); resolves to the entries applied. */
  poll(feed: RevocationFeed): Promise<number>
  start(): void
  close(): void
}

const PAGE_LIMIT = 200
const MAX_PAGES = 20
const FEED_TIMEOUT_MS = 15_000
const FEED_MAX_BYTES = 1024 * 1024

export function createRevocationFeedPoller(options: {
  feeds: readonly RevocationFeed[]
  authStore: AuthStore
  revocations: RevocationList
  outbound: OutboundClient
  now: () => number
  log: { warn(object: unknown, message?: string): void }
  /** Called for each entry newly added to the deny list. */
  onApplied?: () => void
}): RevocationFeedPoller {
  const timers: NodeJS.Timeout[] = []
  const inflight = new Map<string, Promise<number>>()

  const fetchPage = async (feed: RevocationFeed, since: number): Promise<{ entries: unknown[]; next: unknown }> => {
    const url = new URL(feed.url)
    url.searchParams.set('since', String(since))
    url.searchParams.set('limit', String(PAGE_LIMIT))
    const response = await options.outbound.request(url, {
      headers: { authorization: `Bearer ${feed.token}`, accept: 'application/json' },
      maxRedirects: 0,
      totalTimeoutMs: FEED_TIMEOUT_MS,
      maxBodyBytes: FEED_MAX_BYTES,
    })
    if (response.status !== 200) throw new Error(`revocation feed answered ${response.status}`)
    const body = JSON.parse(Buffer.from(response.body).toString('utf8')) as { entries?: unknown; next_cursor?: unknown }
    if (!Array.isArray(body.entries)) throw new Error('revocation feed page has no entries array')
    return { entries: body.entries as unknown[], next: body.next_cursor }
  }

  const pollFeed = async (feed: RevocationFeed): Promise<number> => {
    let cursor = (await options.authStore.getFeedCursor(feed.issuer)) ?? 0
    let applied = 0
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const { entries, next } = await fetchPage(feed, cursor)
      if (entries.length === 0) break
      const nowSeconds = Math.floor(options.now() / 1000)
      let last = cursor
      for (const raw of entries) {
        const entry = raw as Record<string, unknown>
        const at = entry['revoked_at_ms']
        if (typeof at !== 'number' || !Number.isSafeInteger(at)) throw new Error('feed entry without revoked_at_ms')
        last = Math.max(last, at)
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
      // The page applied whole: only now does the cursor move.
      const nextCursor = typeof next === 'number' && Number.isSafeInteger(next) ? Math.max(next, last) : last
      if (nextCursor <= cursor) break
      cursor = nextCursor
      await options.authStore.setFeedCursor(feed.issuer, cursor, options.now())
      if (next === null || next === undefined) break
    }
    return applied
  }

  const poll = (feed: RevocationFeed): Promise<number> => {
    let running = inflight.get(feed.issuer)
    if (running === undefined) {
      running = pollFeed(feed).finally(() => inflight.delete(feed.issuer))
      inflight.set(feed.issuer, running)
    }
    return running
  }

  return {
    poll,
    start() {
      for (const feed of options.feeds) {
        const tick = (): void => {
          poll(feed).catch((error: unknown) =>
            options.log.warn({ err: error, issuer: feed.issuer }, 'revocation feed poll failed'),
          )
        }
        tick()
        const timer = setInterval(tick, feed.pollSeconds * 1000)
        timer.unref()
        timers.push(timer)
      }
    },
    close() {
      for (const timer of timers) clearInterval(timer)
      timers.length = 0
    },
  }
}
