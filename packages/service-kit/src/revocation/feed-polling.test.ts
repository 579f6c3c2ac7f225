import type { OutboundClient, OutboundRequest, OutboundResponse } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { createFeedPolling, type FeedPage, type FeedPollingOptions } from './feed-polling.js'

interface Feed {
  name: string
}
interface Entry {
  jti: string
  revoked_at_ms: number
}

/** A feed answering from `pages` by the `since` it is asked; records every request. */
function fakeOutbound(pages: (since: number) => FeedPage<Entry> | number) {
  const asked: Array<{ url: URL; init: OutboundRequest | undefined }> = []
  let release: (() => void) | undefined
  let gate: Promise<void> | undefined
  const client = {
    async request(url: string | URL, init?: OutboundRequest): Promise<OutboundResponse> {
      const parsed = new URL(url)
      asked.push({ url: parsed, init })
      if (gate) await gate
      const answer = pages(Number(parsed.searchParams.get('since')))
      const status = typeof answer === 'number' ? answer : 200
      const body = new TextEncoder().encode(typeof answer === 'number' ? '{}' : JSON.stringify(answer))
      return { status, headers: {}, body, url: parsed.href }
    },
  } as unknown as OutboundClient
  return {
    client,
    asked,
    hold() {
      gate = new Promise((resolve) => (release = resolve))
    },
    release() {
      gate = undefined
      release?.()
    },
  }
}

function polling(
  pages: (since: number) => FeedPage<Entry> | number,
  overrides: Partial<FeedPollingOptions<Feed, Entry>> = {},
) {
  const outbound = fakeOutbound(pages)
  const cursors = new Map<string, number>()
  const applied: string[] = []
  const failures: unknown[] = []
  const feeds = [{ name: 'peer' }]
  const kit = createFeedPolling<Feed, Entry>({
    feeds,
    source: (feed) => ({
      key: feed.name,
      url: 'https://peer.example/feed?x=1',
      bearerToken: 'secret',
      pollSeconds: 60,
    }),
    maxPages: 3,
    outbound: outbound.client,
    now: () => 1_000,
    readCursor: async (feed) => cursors.get(feed.name),
    writeCursor: async (feed, cursorMs) => void cursors.set(feed.name, cursorMs),
    readPage: (response) => {
      if (response.status !== 200) throw new Error(`answered ${response.status}`)
      return JSON.parse(new TextDecoder().decode(response.body)) as FeedPage<Entry>
    },
    applyPage: async (_feed, entries, sinceMs) => {
      applied.push(...entries.map((e) => e.jti))
      return { applied: entries.length, lastMs: Math.max(sinceMs, ...entries.map((e) => e.revoked_at_ms)) }
    },
    onPollFailed: (_feed, error) => failures.push(error),
    ...overrides,
  })
  return { kit, outbound, cursors, applied, failures, feed: feeds[0]! }
}

describe('revocation feed polling', () => {
  it('reads pages from the cursor with the bearer credential and no redirects, moving the cursor per page', async () => {
    const { kit, outbound, cursors, applied, feed } = polling((since) =>
      since === 0
        ? { entries: [{ jti: 'a', revoked_at_ms: 10 }], nextCursor: 10 }
        : { entries: [{ jti: 'b', revoked_at_ms: 25 }], nextCursor: null },
    )
    expect(await kit.poll(feed)).toEqual({ applied: 2, cursorMs: 25 })
    expect(applied).toEqual(['a', 'b'])
    expect(cursors.get('peer')).toBe(25)
    expect(outbound.asked.map((a) => a.url.search)).toEqual(['?x=1&since=0&limit=200', '?x=1&since=10&limit=200'])
    expect(outbound.asked[0]!.init).toMatchObject({
      headers: { authorization: 'Bearer secret', accept: 'application/json' },
      maxRedirects: 0,
      totalTimeoutMs: 15_000,
      maxBodyBytes: 1024 * 1024,
    })
  })

  it('stops at maxPages, and when a page moves the cursor nowhere', async () => {
    let next = 0
    const endless = polling(() => ({ entries: [{ jti: `e${++next}`, revoked_at_ms: next }], nextCursor: next }))
    expect(await endless.kit.poll(endless.feed)).toEqual({ applied: 3, cursorMs: 3 })
    expect(endless.outbound.asked).toHaveLength(3)

    const stuck = polling(() => ({ entries: [], nextCursor: 0 }))
    expect(await stuck.kit.poll(stuck.feed)).toEqual({ applied: 0, cursorMs: 0 })
    expect(stuck.outbound.asked).toHaveLength(1)
    expect(stuck.cursors.has('peer')).toBe(false)
  })

  it('a page refused or failing to apply leaves the cursor; what applied before stays', async () => {
    const refused = polling((since) =>
      since === 0 ? { entries: [{ jti: 'a', revoked_at_ms: 5 }], nextCursor: 5 } : 500,
    )
    await expect(refused.kit.poll(refused.feed)).rejects.toThrow('answered 500')
    expect(refused.cursors.get('peer')).toBe(5)

    const failing = polling(() => ({ entries: [{ jti: 'a', revoked_at_ms: 5 }], nextCursor: null }), {
      applyPage: async () => {
        throw new Error('database down')
      },
    })
    await expect(failing.kit.poll(failing.feed)).rejects.toThrow('database down')
    expect(failing.cursors.has('peer')).toBe(false)
  })

  it('one poll per feed at a time: a second call joins the first', async () => {
    const { kit, outbound, feed } = polling(() => ({ entries: [{ jti: 'a', revoked_at_ms: 7 }], nextCursor: null }))
    outbound.hold()
    const first = kit.poll(feed)
    const second = kit.poll(feed)
    expect(second).toBe(first)
    outbound.release()
    expect(await first).toEqual({ applied: 1, cursorMs: 7 })
    // Once settled, a new call starts a new poll.
    await kit.poll(feed)
    expect(outbound.asked).toHaveLength(2)
  })

  it('start polls at once and reports failures; stop waits for the poll in flight', async () => {
    const { kit, outbound, failures, cursors } = polling(() => 503)
    kit.start()
    await kit.stop()
    expect(outbound.asked).toHaveLength(1)
    expect(failures).toEqual([new Error('answered 503')])
    expect(cursors.size).toBe(0)
  })
})
