/**
 * Polling peers' token revocation feeds, the part both servers run the same way: each feed is read every
 * `pollSeconds` through the SSRF-policy outbound client (`GET <url>?since=<cursor>&limit=200`, the feed's bearer
 * credential, no redirects, bounded time and size), page after page until the feed is done or `maxPages` were
 * read; one poll per feed at a time (a second call joins it).
 *
 * The cursor (unix ms) is durable and advances only after a whole page applied: a page that fails to fetch, to
 * read or to apply leaves it where it was, and the next tick reads that page again (applying is idempotent). It
 * moves to the later of the page's last `revoked_at_ms` and the feed's `next_cursor`, so a partial last page
 * advances it too. What a page must look like, and what applying means (which entries count, where they go), is
 * each server's: `readPage` and `applyPage`.
 */
import type { OutboundClient, OutboundResponse } from '@acdp/protocol'

/** Where and how often one feed is read. */
export interface FeedSource {
  /** Names the feed's cursor and its one running poll (a server keys them by issuer or by URL). */
  key: string
  url: string
  /** The bearer credential for the peer's admin-only feed. Secret. */
  bearerToken: string
  pollSeconds: number
}

/** A page as the server read it: `nextCursor` null when the feed says it is done. */
export interface FeedPage<Entry> {
  entries: Entry[]
  nextCursor: number | null
}

export interface FeedPollingOptions<Feed, Entry> {
  feeds: readonly Feed[]
  source(feed: Feed): FeedSource
  maxPages: number
  outbound: OutboundClient
  /** Unix ms. */
  now(): number
  readCursor(feed: Feed): Promise<number | undefined>
  writeCursor(feed: Feed, cursorMs: number, nowMs: number): Promise<void>
  /** The answer checked; throws to refuse it whole. */
  readPage(response: OutboundResponse, sinceMs: number): FeedPage<Entry>
  /** Applies a page; returns how many entries it counted and the latest `revoked_at_ms` it held (or `sinceMs`). */
  applyPage(feed: Feed, entries: Entry[], sinceMs: number, nowMs: number): Promise<{ applied: number; lastMs: number }>
  /** A scheduled poll failed (its cursor stays); must not throw. */
  onPollFailed(feed: Feed, error: unknown): void
}

export interface FeedPollResult {
  /** Entries applied, as `applyPage` counted them. */
  applied: number
  /** The cursor after the poll (unix ms). */
  cursorMs: number
}

export interface FeedPolling<Feed> {
  /** Polls `feed` now: every page available, up to `maxPages`. What applied before a failure stays applied. */
  poll(feed: Feed): Promise<FeedPollResult>
  /** Polls every feed now and then every `pollSeconds`; failures go to `onPollFailed`. */
  start(): void
  /** Stops the timers (at once) and waits for polls in flight. */
  stop(): Promise<void>
}

export const FEED_PAGE_LIMIT = 200
const FEED_TIMEOUT_MS = 15_000
const FEED_MAX_BYTES = 1024 * 1024

export function createFeedPolling<Feed, Entry>(options: FeedPollingOptions<Feed, Entry>): FeedPolling<Feed> {
  const timers: NodeJS.Timeout[] = []
  const running = new Map<string, Promise<FeedPollResult>>()

  const fetchPage = async (source: FeedSource, sinceMs: number): Promise<OutboundResponse> => {
    const url = new URL(source.url)
    url.searchParams.set('since', String(sinceMs))
    url.searchParams.set('limit', String(FEED_PAGE_LIMIT))
    return options.outbound.request(url, {
      headers: { authorization: `Bearer ${source.bearerToken}`, accept: 'application/json' },
      maxRedirects: 0,
      totalTimeoutMs: FEED_TIMEOUT_MS,
      maxBodyBytes: FEED_MAX_BYTES,
    })
  }

  const pollPages = async (feed: Feed, source: FeedSource): Promise<FeedPollResult> => {
    let cursorMs = (await options.readCursor(feed)) ?? 0
    let applied = 0
    for (let page = 0; page < options.maxPages; page += 1) {
      const { entries, nextCursor } = options.readPage(await fetchPage(source, cursorMs), cursorMs)
      const nowMs = options.now()
      const result = await options.applyPage(feed, entries, cursorMs, nowMs)
      applied += result.applied
      // The page applied whole: only now may the cursor move.
      const nextMs = Math.max(result.lastMs, nextCursor ?? 0)
      if (nextMs <= cursorMs) break
      cursorMs = nextMs
      await options.writeCursor(feed, cursorMs, nowMs)
      if (nextCursor === null) break
    }
    return { applied, cursorMs }
  }

  const poll = (feed: Feed): Promise<FeedPollResult> => {
    const source = options.source(feed)
    let current = running.get(source.key)
    if (current === undefined) {
      current = pollPages(feed, source).finally(() => running.delete(source.key))
      running.set(source.key, current)
    }
    return current
  }

  return {
    poll,
    start() {
      for (const feed of options.feeds) {
        const tick = (): void => {
          poll(feed).catch((error: unknown) => options.onPollFailed(feed, error))
        }
        tick()
        const timer = setInterval(tick, options.source(feed).pollSeconds * 1000)
        timer.unref()
        timers.push(timer)
      }
    },
    async stop() {
      for (const timer of timers) clearInterval(timer)
      timers.length = 0
      await Promise.allSettled([...running.values()])
    },
  }
}
