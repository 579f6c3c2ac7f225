/**
 * Revocation feeds (product spec "Authentication" 5): our feed for peers
 * (`GET /auth/revocations`, admin bearer, pages by unix-ms cursor), the `[[auth.revocation_feeds]]` poller
 * against a loopback HTTP peer (a page applied whole moves the durable cursor, a bad page moves nothing, the SSRF
 * policy refuses an unallowed address), and two registries sharing one signing key on separate databases: a
 * token revoked at one is refused by the other once it has read the feed. SQLite always, PostgreSQL with
 * ACDP_TEST_DATABASE_URL.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOutboundClient, type OutboundClient } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  RevocationFeedPageError,
  RegistryRevocationFeedPoller,
  type RevocationFeedConfig,
} from '../src/auth/revocation-feed-poller.js'
import type { RevocationFeedStore } from '../src/auth/revocation-feed-store.js'
import { bearer, login, postJson } from './support/bearer-login.js'
import {
  countRows,
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const SECRET = Buffer.from('an HS256 test secret of at least thirty-two bytes').toString('base64')
const ADMIN = 'admin-token-for-tests'
const OUR_ISSUER = 'did:web:registry.example.com'
const PEER = 'did:web:peer.example'
const auth = { enabled: true, jwt_secret: SECRET, admin_tokens: [ADMIN] }

/** A loopback HTTP peer serving scripted feed pages; records what it was asked. */
class FeedPeer {
  readonly asked: Array<{ since: string | null; limit: string | null; authorization: string | undefined }> = []
  answer: (since: number) => { status: number; body: string } = () => ({ status: 200, body: page([], null) })
  #server: Server | undefined

  async start(): Promise<string> {
    this.#server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://peer')
      this.asked.push({
        since: url.searchParams.get('since'),
        limit: url.searchParams.get('limit'),
        authorization: req.headers.authorization,
      })
      const { status, body } = this.answer(Number(url.searchParams.get('since')))
      res.writeHead(status, { 'content-type': 'application/json' }).end(body)
    })
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/auth/revocations`
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections()
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()))
  }
}

function entry(jti: string, revokedAtMs: number, overrides: Record<string, unknown> = {}) {
  // exp far in the future of the test clock (2026-05-01).
  return { jti, sub: 'did:key:z6Mkagent', iss: PEER, exp: 1_900_000_000, revoked_at_ms: revokedAtMs, ...overrides }
}

function page(entries: unknown[], nextCursor: number | null): string {
  return JSON.stringify({ entries, next_cursor: nextCursor })
}

const loopbackOutbound = () => createOutboundClient({ allowCidrs: ['127.0.0.1/32'], allowHttpForAllowlisted: true })

describe.each(testDatabaseTargets())('revocation feeds on $name', (target) => {
  const start = useTestRegistry()

  describe('our feed: GET /auth/revocations', () => {
    const feed = (r: TestRegistry, query: string, token = ADMIN) =>
      r.app.inject({ url: `/auth/revocations${query}`, headers: token === '' ? {} : bearer(token) })

    it('needs an admin bearer, and lists a token revoked through POST /auth/token/revoke once it settled', async () => {
      const r = await start({ openDatabase: target.open, config: { auth } })
      const token = await login(r.app, didKeyProducer())
      expect((await postJson(r.app, '/auth/token/revoke', {}, bearer(token))).statusCode).toBe(204)
      expect((await feed(r, '', '')).statusCode).toBe(403)
      expect((await feed(r, '', 'not-the-admin-token')).json().error.code).toBe('not_authorized')
      expect((await feed(r, '', token)).statusCode).toBe(403)
      // Withheld for 5 s, so a late commit elsewhere cannot slip behind a peer's cursor.
      expect((await feed(r, '')).json()).toEqual({ entries: [], next_cursor: null })
      r.clock.advance(5000)
      const res = await feed(r, '')
      expect(res.statusCode).toBe(200)
      expect(res.headers['cache-control']).toBe('no-store')
      const body = res.json()
      expect(body.next_cursor).toBeNull()
      expect(body.entries).toEqual([
        {
          jti: expect.any(String),
          sub: expect.stringMatching(/^did:key:/),
          iss: OUR_ISSUER,
          exp: Math.floor(r.clock.nowMs / 1000) - 5 + 3600,
          revoked_at_ms: r.clock.nowMs - 5000,
        },
      ])
    })

    it('pages by cursor without ever ending a page inside a millisecond', async () => {
      const r = await start({ openDatabase: target.open, config: { auth } })
      const store = r.deps.authStore
      const at = [1000, 1000, 2000, 3000, 3000, 3000, 4000]
      for (const [i, ms] of at.entries()) {
        await store?.revokeToken({
          jti: `jti-${i}`,
          subject: 'did:key:z6Mkagent',
          reason: 'user_logout',
          revokedAtMs: ms,
          expiresAtMs: r.clock.nowMs + 3_600_000,
        })
      }
      const pages: Array<{ jtis: string[]; next: number | null }> = []
      let since = 0
      for (let i = 0; i < 10; i++) {
        const body = (await feed(r, `?since=${since}&limit=2`)).json()
        pages.push({ jtis: body.entries.map((e: { jti: string }) => e.jti), next: body.next_cursor })
        if (body.next_cursor === null) break
        since = body.entries.at(-1).revoked_at_ms
      }
      expect(pages).toEqual([
        { jtis: ['jti-0', 'jti-1'], next: 1000 },
        { jtis: ['jti-2'], next: 2000 },
        { jtis: ['jti-3', 'jti-4', 'jti-5'], next: 3000 },
        { jtis: ['jti-6'], next: null },
      ])
    })

    it.each([
      ['a zero limit', '?limit=0'],
      ['a limit over 500', '?limit=501'],
      ['a cursor that is not a number', '?since=yesterday'],
      ['a negative cursor', '?since=-1'],
    ])('refuses %s with 400 schema_violation', async (_what, query) => {
      const r = await start({ openDatabase: target.open, config: { auth } })
      const res = await feed(r, query)
      expect(res.statusCode).toBe(400)
      expect(res.json().error.code).toBe('schema_violation')
    })
  })

  describe('the [[auth.revocation_feeds]] poller', () => {
    const peer = new FeedPeer()
    let feedUrl = ''
    let outbound: OutboundClient
    beforeAll(async () => {
      feedUrl = await peer.start()
      outbound = loopbackOutbound()
    })
    afterAll(async () => {
      await outbound.close()
      await peer.stop()
    })
    afterEach(() => {
      peer.asked.length = 0
    })

    async function poller(client: OutboundClient = outbound) {
      const r = await start({ openDatabase: target.open, config: { auth } })
      const store = r.deps.revocationFeedStore as RevocationFeedStore
      const feed: RevocationFeedConfig = {
        issuer: PEER,
        feed_url: feedUrl,
        admin_token: 'peer-admin',
        poll_seconds: 60,
      }
      const warnings: string[] = []
      const poll = new RegistryRevocationFeedPoller(
        { store, outbound: client, clock: r.clock.now, log: { warn: (_o, m) => warnings.push(m) } },
        [feed],
      )
      const revoked = (jti: string, issuer = PEER) => r.deps.authStore?.isTokenRevoked(jti, issuer)
      return { r, store, feed, poll, revoked }
    }

    it('applies whole pages and moves the durable cursor; other issuers and expired entries are dropped', async () => {
      const { store, feed, poll, revoked } = await poller()
      peer.answer = (since) =>
        since === 0
          ? { status: 200, body: page([entry('a', 10), entry('b', 20), entry('x', 20, { iss: OUR_ISSUER })], 20) }
          : { status: 200, body: page([entry('c', 30), entry('old', 40, { exp: 1 })], null) }
      expect(await poll.poll(feed)).toEqual({ applied: 3, cursorMs: 40 })
      expect(peer.asked.map((a) => [a.since, a.limit, a.authorization])).toEqual([
        ['0', '200', 'Bearer peer-admin'],
        ['20', '200', 'Bearer peer-admin'],
      ])
      expect(await store.getFeedCursor(feedUrl)).toBe(40)
      expect([await revoked('a'), await revoked('b'), await revoked('c')]).toEqual([true, true, true])
      // The peer speaks only for its own tokens, and an expired token needs no record.
      expect(await revoked('x', OUR_ISSUER)).toBe(false)
      expect(await revoked('old')).toBe(false)
      // Next tick: from the durable cursor; an empty page changes nothing.
      peer.answer = () => ({ status: 200, body: page([], null) })
      expect(await poll.poll(feed)).toEqual({ applied: 0, cursorMs: 40 })
      expect(peer.asked.at(-1)?.since).toBe('40')
    })

    it.each([
      ['one malformed entry', page([entry('good', 10), entry('bad', 11, { revoked_at_ms: 'soon' })], null)],
      ['an entry not after the cursor', page([entry('good', 10), entry('stale', 0)], null)],
      ['no entries array', JSON.stringify({ next_cursor: null })],
      ['a non-numeric next_cursor', page([entry('good', 10)], 'more' as never)],
      ['not JSON', '{"entries": ['],
    ])('leaves the cursor and applies nothing on a page with %s', async (_what, body) => {
      const { store, feed, poll, revoked } = await poller()
      peer.answer = () => ({ status: 200, body })
      await expect(poll.poll(feed)).rejects.toBeInstanceOf(RevocationFeedPageError)
      expect(await store.getFeedCursor(feedUrl)).toBeUndefined()
      expect(await revoked('good')).toBe(false)
    })

    it('leaves the cursor on an error answer, and the SSRF policy refuses an unallowed address unasked', async () => {
      const { store, feed, poll } = await poller()
      peer.answer = () => ({ status: 500, body: '{}' })
      await expect(poll.poll(feed)).rejects.toThrow(/HTTP 500/)
      expect(await store.getFeedCursor(feedUrl)).toBeUndefined()

      peer.asked.length = 0
      const strict = createOutboundClient({ allowCidrs: [] })
      try {
        const refused = await poller(strict)
        await expect(refused.poll.poll(feed)).rejects.toMatchObject({ code: 'outbound_refused' })
        expect(peer.asked).toHaveLength(0)
        expect(await refused.store.getFeedCursor(feedUrl)).toBeUndefined()
      } finally {
        await strict.close()
      }
    })
  })

  it('a token revoked at one registry is refused by a peer reading its feed (shared key, separate databases)', async () => {
    const origin = await createTestRegistry({ openDatabase: target.open, config: { auth } })
    let mirror: TestRegistry | undefined
    const outbound = loopbackOutbound()
    try {
      await origin.app.listen({ port: 0, host: '127.0.0.1' })
      const port = (origin.app.server.address() as AddressInfo).port
      mirror = await createTestRegistry({
        config: {
          auth: {
            ...auth,
            revocation_feeds: [
              {
                issuer: OUR_ISSUER,
                feed_url: `http://127.0.0.1:${port}/auth/revocations`,
                admin_token: ADMIN,
                poll_seconds: 1,
              },
            ],
          },
          outbound: { allow_cidrs: ['127.0.0.1/32'], allow_http_for_allowlisted: true },
        },
        deps: { outbound },
      })
      const producer = didKeyProducer()
      const token = await login(origin.app, producer)
      const search = () => (mirror as TestRegistry).app.inject({ url: '/contexts/search?q=x', headers: bearer(token) })
      expect((await search()).statusCode).toBe(200)
      expect((await postJson(origin.app, '/auth/token/revoke', {}, bearer(token))).statusCode).toBe(204)
      origin.clock.advance(5000)
      // The mirror polls every second; wait (bounded) until it has read the revocation.
      const deadline = Date.now() + 15_000
      while ((await search()).statusCode === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const refused = await search()
      expect(refused.statusCode).toBe(403)
      expect(refused.json().error.code).toBe('not_authorized')
      const published = await publish(mirror.app, signRequest(producer, minimalUnsigned(producer)), bearer(token))
      expect(published.statusCode).toBe(403)
      expect(published.json().error.code).toBe('not_authorized')
      expect((await countRows(mirror.database)).context).toBe(0)
    } finally {
      await mirror?.close()
      await origin.close()
      await outbound.close()
    }
  })
})
