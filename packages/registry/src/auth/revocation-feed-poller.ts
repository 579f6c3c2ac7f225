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
import type { PeerRevocation, RevocationFeedStore } from './revocation-feed-store.js'

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

const PAGE_LIMIT = 200
const MAX_PAGES_PER_POLL = 50
const FEED_TIMEOUT_MS = 15_000
const FEED_MAX_BYTES = 1024 * 1024
const MAX_JTI_CHARS = 256
const MAX_SUB_CHARS = 4096

export interface FeedPollResult {
  /** Entries newly recorded as revoked. */
  applied: number
  /** The cursor after the poll (unix ms). */
  cursorMs: number
}

export class RevocationFeedPoller {
  readonly #deps: RevocationFeedPollerDeps
  readonly #feeds: readonly RevocationFeedConfig[]
  readonly #timers: NodeJS.Timeout[] = []
  readonly #running = new Map<string, Promise<FeedPollResult>>()

  constructor(deps: RevocationFeedPollerDeps, feeds: readonly RevocationFeedConfig[]) {
    this.#deps = deps
    this.#feeds = feeds
  }

  /**
   * Polls `feed` now: every page available (up to 50). One poll per feed at a time; a second call joins it.
   *
   * @throws RevocationFeedPageError (bad page) or the outbound client's error; what applied before stays applied.
   */
  poll(feed: RevocationFeedConfig): Promise<FeedPollResult> {
    let running = this.#running.get(feed.feed_url)
    if (running === undefined) {
      running = this.#pollPages(feed).finally(() => this.#running.delete(feed.feed_url))
      this.#running.set(feed.feed_url, running)
    }
    return running
  }

  /** Polls every feed now and then every `poll_seconds`; failures are logged, never thrown. */
  start(): void {
    for (const feed of this.#feeds) {
      const tick = (): void => {
        this.poll(feed).catch((error: unknown) => {
          this.#deps.log.warn(
            {
              issuer: feed.issuer,
              feed_url: feed.feed_url,
              err: error instanceof Error ? error.message : String(error),
            },
            'revocation feed poll failed; its cursor stays',
          )
        })
      }
      tick()
      const timer = setInterval(tick, feed.poll_seconds * 1000)
      timer.unref()
      this.#timers.push(timer)
    }
  }

  /** Stops the timers and waits for polls in flight. */
  async stop(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer)
    this.#timers.length = 0
    await Promise.allSettled([...this.#running.values()])
  }

  async #pollPages(feed: RevocationFeedConfig): Promise<FeedPollResult> {
    const { store, clock } = this.#deps
    let cursorMs = (await store.getFeedCursor(feed.feed_url)) ?? 0
    let applied = 0
    for (let page = 0; page < MAX_PAGES_PER_POLL; page += 1) {
      const { entries, nextCursor } = await this.#fetchPage(feed, cursorMs)
      const nowMs = clock().getTime()
      let lastMs = cursorMs
      const revocations: PeerRevocation[] = []
      for (const entry of entries) {
        lastMs = Math.max(lastMs, entry.revoked_at_ms)
        if (entry.iss !== feed.issuer || entry.exp * 1000 < nowMs) continue
        revocations.push({
          issuer: feed.issuer,
          jti: entry.jti,
          subject: entry.sub,
          revokedAtMs: entry.revoked_at_ms,
          expiresAtMs: entry.exp * 1000,
        })
      }
      applied += await store.applyPeerRevocations(revocations)
      // The page applied whole: only now may the cursor move.
      const nextMs = Math.max(lastMs, nextCursor ?? 0)
      if (nextMs <= cursorMs) break
      cursorMs = nextMs
      await store.setFeedCursor(feed.feed_url, feed.issuer, cursorMs, nowMs)
      if (nextCursor === null) break
    }
    return { applied, cursorMs }
  }

  async #fetchPage(
    feed: RevocationFeedConfig,
    sinceMs: number,
  ): Promise<{ entries: RevocationFeedEntry[]; nextCursor: number | null }> {
    const url = new URL(feed.feed_url)
    url.searchParams.set('since', String(sinceMs))
    url.searchParams.set('limit', String(PAGE_LIMIT))
    const response = await this.#deps.outbound.request(url, {
      headers: { authorization: `Bearer ${feed.admin_token}`, accept: 'application/json' },
      maxRedirects: 0,
      totalTimeoutMs: FEED_TIMEOUT_MS,
      maxBodyBytes: FEED_MAX_BYTES,
    })
    if (response.status !== 200) throw new RevocationFeedPageError(`the feed answered HTTP ${response.status}`)
    return parseFeedPage(new TextDecoder().decode(response.body), sinceMs)
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
