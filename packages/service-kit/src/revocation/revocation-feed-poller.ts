/**
 * Mirrors peers' token revocations into a server's own deny list: the feed polling (feed-polling.ts: the bounded
 * request, page after page from the durable cursor, one poll per feed at a time, the timers), and what both
 * servers do with a page's entries: every entry's `revoked_at_ms` counts toward the cursor, an entry naming
 * another issuer than the feed's is dropped (a peer speaks only for its own tokens), and the rest are recorded.
 * It also keeps, in memory, each feed's last poll outcome on this instance.
 *
 * What is each server's is passed in: the feed's configuration and how it maps to a source, the cursor store,
 * how a page is checked, what an entry must hold to be recorded (and what is recorded), whether a page is
 * recorded entry by entry or in one statement, the names of failures and the log line of a failed poll.
 */
import {
  createFeedPolling,
  type FeedPolling,
  type FeedPollingOptions,
  type FeedPollResult,
  type FeedSource,
} from './feed-polling.js'

/** Where and how often one feed is read, and whose tokens it may revoke. */
export interface RevocationFeedSource extends FeedSource {
  issuer: string
}

/** This instance's last poll outcome of one feed. */
export interface FeedPollOutcome {
  /** Unix ms of the last page applied or of the failure. */
  atMs: number
  outcome: 'ok' | 'error'
  /** What `errorCategory` named the failure; null when the poll succeeded. */
  errorCategory: string | null
}

/** How a page's revocations are recorded; each resolves to how many entries it counts as applied. */
export type FeedRecording<Feed, Revocation> =
  /**
   * One at a time, in page order, each as soon as its entry passed: a page refused at a later entry keeps what
   * was recorded before it (recording must be idempotent; the page is read again).
   */
  | { each(feed: Feed, revocation: Revocation): Promise<number> }
  /** The page's revocations at once, after every entry passed: a page refused at an entry records none of it. */
  | { page(feed: Feed, revocations: Revocation[]): Promise<number> }

/** The feed polling's options (feed-polling.ts) but its page application, which the poller is, and these. */
export interface RevocationFeedPollerOptions<Feed, Entry, Revocation> extends Omit<
  FeedPollingOptions<Feed, Entry>,
  'source' | 'applyPage'
> {
  source(feed: Feed): RevocationFeedSource
  /** The entry's `revoked_at_ms`; throws to refuse the page at this entry. */
  revokedAtMs(entry: Entry): number
  /** The issuer the entry names; an entry naming another than the feed's is dropped. */
  issuerOf(entry: Entry): unknown
  /** What to record for an entry of the feed's issuer (`nowMs`: when the page was read), or undefined to skip it. */
  revocationOf(feed: Feed, entry: Entry, nowMs: number): Revocation | undefined
  record: FeedRecording<Feed, Revocation>
  /** Names a failure in `lastPoll`; `internal` when not given. */
  errorCategory?(error: unknown): string
  /** A scheduled poll failed (its cursor stays): the server's log line. Must not throw. */
  onPollFailed(feed: Feed, error: unknown): void
}

export class RevocationFeedPoller<Feed, Entry, Revocation> {
  readonly #options: RevocationFeedPollerOptions<Feed, Entry, Revocation>
  readonly #polling: FeedPolling<Feed>
  /** Last outcome by source key; written when a page applied and when a poll failed. */
  readonly #outcomes = new Map<string, FeedPollOutcome>()

  constructor(options: RevocationFeedPollerOptions<Feed, Entry, Revocation>) {
    this.#options = options
    this.#polling = createFeedPolling<Feed, Entry>({
      ...options,
      applyPage: (feed, entries, sinceMs, nowMs) => this.#applyPage(feed, entries, sinceMs, nowMs),
      onPollFailed: (feed, error) => {
        this.#failed(feed, error)
        options.onPollFailed(feed, error)
      },
    })
  }

  /**
   * Polls `feed` now: every page available, up to `maxPages`. One poll per feed at a time; a second call joins
   * it. Rejects with what `readPage`, `revokedAtMs`, recording or the outbound client threw; what applied before
   * stays applied.
   */
  poll(feed: Feed): Promise<FeedPollResult> {
    return this.#polling.poll(feed).catch((error: unknown) => {
      this.#failed(feed, error)
      throw error
    })
  }

  /**
   * This instance's last poll outcome of the feed with this source key, or undefined before its first page or
   * failure. Kept in memory only: each instance polls on its own, so another may have seen another outcome.
   */
  lastPoll(key: string): FeedPollOutcome | undefined {
    return this.#outcomes.get(key)
  }

  /** Polls every feed now and then every `pollSeconds`; failures go to `onPollFailed`, never thrown. */
  start(): void {
    this.#polling.start()
  }

  /** Stops the timers (at once) and waits for polls in flight. */
  stop(): Promise<void> {
    return this.#polling.stop()
  }

  async #applyPage(
    feed: Feed,
    entries: Entry[],
    sinceMs: number,
    nowMs: number,
  ): Promise<{ applied: number; lastMs: number }> {
    const { issuer, key } = this.#options.source(feed)
    const { record } = this.#options
    let lastMs = sinceMs
    let applied = 0
    const batch: Revocation[] = []
    for (const entry of entries) {
      // Every entry moves the cursor, dropped ones too: the page is behind us once it applied.
      lastMs = Math.max(lastMs, this.#options.revokedAtMs(entry))
      if (this.#options.issuerOf(entry) !== issuer) continue
      const revocation = this.#options.revocationOf(feed, entry, nowMs)
      if (revocation === undefined) continue
      if ('each' in record) applied += await record.each(feed, revocation)
      else batch.push(revocation)
    }
    if ('page' in record) applied = await record.page(feed, batch)
    // A page applied whole: the poll is ok so far (a later page's failure overwrites this).
    this.#outcomes.set(key, { atMs: this.#options.now(), outcome: 'ok', errorCategory: null })
    return { applied, lastMs }
  }

  #failed(feed: Feed, error: unknown): void {
    const category = this.#options.errorCategory?.(error) ?? 'internal'
    this.#outcomes.set(this.#options.source(feed).key, {
      atMs: this.#options.now(),
      outcome: 'error',
      errorCategory: category,
    })
  }
}
