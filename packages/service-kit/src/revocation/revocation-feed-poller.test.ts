import type { OutboundClient, OutboundResponse } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import type { FeedPage } from './feed-polling.js'
import { type FeedRecording, RevocationFeedPoller, type RevocationFeedPollerOptions } from './revocation-feed-poller.js'

interface Feed {
  url: string
  issuer: string
}
interface Entry {
  jti: string
  iss: string
  revoked_at_ms: number | string
  exp: number
}
interface Revocation {
  jti: string
  exp: number
}

const PEER = 'did:web:peer.example'
const FEED: Feed = { url: 'https://peer.example/auth/revocations', issuer: PEER }
const NOW_MS = 50_000

const entry = (jti: string, at: number | string, more: Partial<Entry> = {}): Entry => ({
  jti,
  iss: PEER,
  revoked_at_ms: at,
  exp: 100,
  ...more,
})

/** A peer answering the page scripted for each `since` it is asked (a number: that HTTP status). */
function scriptedPeer(pages: Record<number, FeedPage<Entry> | number>): OutboundClient {
  return {
    async request(url: string | URL): Promise<OutboundResponse> {
      const since = Number(new URL(url).searchParams.get('since'))
      const answer = pages[since] ?? { entries: [], nextCursor: null }
      const status = typeof answer === 'number' ? answer : 200
      const body = new TextEncoder().encode(typeof answer === 'number' ? '{}' : JSON.stringify(answer))
      return { status, headers: {}, body, url: String(url) }
    },
  } as unknown as OutboundClient
}

function poller(
  pages: Record<number, FeedPage<Entry> | number>,
  record: (recorded: Revocation[][]) => FeedRecording<Feed, Revocation>,
  overrides: Partial<RevocationFeedPollerOptions<Feed, Entry, Revocation>> = {},
) {
  const cursors = new Map<string, number>()
  const recorded: Revocation[][] = []
  const failures: unknown[] = []
  const seenNowMs: number[] = []
  const feeds = new RevocationFeedPoller<Feed, Entry, Revocation>({
    feeds: [FEED],
    source: (feed) => ({ key: feed.url, issuer: feed.issuer, url: feed.url, bearerToken: 'secret', pollSeconds: 60 }),
    maxPages: 5,
    outbound: scriptedPeer(pages),
    now: () => NOW_MS,
    readCursor: async (feed) => cursors.get(feed.url),
    writeCursor: async (feed, cursorMs) => void cursors.set(feed.url, cursorMs),
    readPage: (response) => {
      if (response.status !== 200) throw new Error(`answered ${response.status}`)
      return JSON.parse(new TextDecoder().decode(response.body)) as FeedPage<Entry>
    },
    revokedAtMs: (e) => {
      if (typeof e.revoked_at_ms !== 'number') throw new Error('entry without revoked_at_ms')
      return e.revoked_at_ms
    },
    issuerOf: (e) => e.iss,
    revocationOf: (_feed, e, nowMs) => {
      seenNowMs.push(nowMs)
      return e.exp * 1000 < nowMs ? undefined : { jti: e.jti, exp: e.exp }
    },
    record: record(recorded),
    onPollFailed: (_feed, error) => failures.push(error),
    ...overrides,
  })
  return { feeds, cursors, recorded, failures, seenNowMs }
}

const byPage = (recorded: Revocation[][]): FeedRecording<Feed, Revocation> => ({
  page: async (_feed, revocations) => {
    recorded.push(revocations)
    return revocations.length
  },
})
const oneByOne = (recorded: Revocation[][]): FeedRecording<Feed, Revocation> => ({
  each: async (_feed, revocation) => {
    recorded.push([revocation])
    return 1
  },
})

describe('revocation feed poller', () => {
  it('records only the feed issuer’s unexpired entries, yet moves the cursor past every entry', async () => {
    const { feeds, cursors, recorded, seenNowMs } = poller(
      {
        0: { entries: [entry('a', 10), entry('other', 20, { iss: 'did:web:else.example' })], nextCursor: 20 },
        20: { entries: [entry('expired', 30, { exp: 1 }), entry('b', 25)], nextCursor: null },
      },
      byPage,
    )
    expect(await feeds.poll(FEED)).toEqual({ applied: 2, cursorMs: 30 })
    expect(recorded).toEqual([[{ jti: 'a', exp: 100 }], [{ jti: 'b', exp: 100 }]])
    expect(cursors.get(FEED.url)).toBe(30)
    // The page's read instant reaches the entry rule (the expiry check above depends on it).
    expect(new Set(seenNowMs)).toEqual(new Set([NOW_MS]))
  })

  it('counts what the recording counts: a page of known revocations applies none', async () => {
    const { feeds } = poller({ 0: { entries: [entry('a', 10), entry('b', 11)], nextCursor: null } }, () => ({
      page: async () => 0,
    }))
    expect(await feeds.poll(FEED)).toEqual({ applied: 0, cursorMs: 11 })
  })

  it.each([
    ['one by one keeps what was recorded before the refused entry', oneByOne, [[{ jti: 'before', exp: 100 }]]],
    ['a whole page records nothing of a page refused at an entry', byPage, []],
  ])('%s; the cursor stays', async (_what, record, expected) => {
    const { feeds, cursors, recorded } = poller(
      { 0: { entries: [entry('before', 10), entry('bad', 'soon'), entry('after', 12)], nextCursor: null } },
      record,
    )
    await expect(feeds.poll(FEED)).rejects.toThrow('entry without revoked_at_ms')
    expect(recorded).toEqual(expected)
    expect(cursors.has(FEED.url)).toBe(false)
  })

  it('keeps the last outcome by source key, failures named by errorCategory', async () => {
    const failing = poller({ 0: 503 }, byPage, { errorCategory: (error) => `named:${String(error)}` })
    expect(failing.feeds.lastPoll(FEED.url)).toBeUndefined()
    await expect(failing.feeds.poll(FEED)).rejects.toThrow('answered 503')
    expect(failing.feeds.lastPoll(FEED.url)).toEqual({
      atMs: NOW_MS,
      outcome: 'error',
      errorCategory: 'named:Error: answered 503',
    })

    const working = poller({ 0: { entries: [entry('a', 10)], nextCursor: null } }, byPage)
    await working.feeds.poll(FEED)
    expect(working.feeds.lastPoll(FEED.url)).toEqual({ atMs: NOW_MS, outcome: 'ok', errorCategory: null })
    expect(working.feeds.lastPoll('https://another.example/feed')).toBeUndefined()
  })

  it('hands a scheduled poll’s failure to onPollFailed and names it internal without errorCategory', async () => {
    const { feeds, failures } = poller({ 0: 500 }, byPage)
    feeds.start()
    await feeds.stop()
    expect(failures).toHaveLength(1)
    expect(String(failures[0])).toContain('answered 500')
    expect(feeds.lastPoll(FEED.url)).toEqual({ atMs: NOW_MS, outcome: 'error', errorCategory: 'internal' })
  })
})
