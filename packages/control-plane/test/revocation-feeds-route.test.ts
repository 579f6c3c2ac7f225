/**
 * GET /auth/revocation-feeds on every dialect, with peer feeds served by a loopback HTTPS host (test CA): the
 * durable cursor, this instance's last poll outcome (ok, the feed's status, a malformed page, an SSRF refusal),
 * the revocations each feed brought (count and newest, as digests), no credential in the answer, and the admin
 * check. Then the two store reads it is built on.
 */
import { createHash } from 'node:crypto'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createAuthStore } from '../src/auth/auth-store.js'
import { type HttpsUpstream, startHttpsUpstream } from './support/https-upstream.js'
import { ADMIN_KEY, bearer, openTestApp, T0, TENANT_KEY, type TestApp, USER_KEY } from './support/test-app.js'

const NOW = Math.floor(T0 / 1000)
const FEED_TOKEN = 'peer-feed-admin-token-0123456789abcdef'
const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 16)
const iso = (ms: number) => new Date(ms).toISOString()

describe.each(testDatabaseTargets())('peer revocation feeds on $name', (target) => {
  let upstream: HttpsUpstream
  const opened: TestApp[] = []
  beforeAll(async () => {
    upstream = await startHttpsUpstream(['cp-a.test', 'cp-b.test', 'cp-c.test'])
  })
  afterAll(async () => {
    await upstream.close()
  })
  afterEach(async () => {
    for (const app of opened.splice(0)) await app.close()
    upstream.seen.length = 0
  })
  async function open(env: Record<string, string>, allowLoopback = true) {
    const t = await openTestApp(target, env, { outbound: upstream.client({ allowLoopback }) })
    opened.push(t)
    return t
  }
  const feeds = (t: TestApp, headers: Record<string, string> = bearer(ADMIN_KEY)) =>
    t.app.inject({ method: 'GET', url: '/auth/revocation-feeds', headers })
  const feedEntry = (issuer: string, path = '/auth/revocations', poll = 3600) =>
    `${issuer}|${upstream.origin(issuer)}${path}|${FEED_TOKEN}|${poll}`

  it('lists each feed with its cursor, last poll and the revocations it brought, never a credential', async () => {
    upstream.handle((path, headers, host) => {
      if (headers.authorization !== `Bearer ${FEED_TOKEN}`) return { status: 401 }
      if (host === 'cp-b.test') return { status: 500 }
      if (host === 'cp-c.test') return { status: 200, headers: { 'content-type': 'application/json' }, body: '[1' }
      const since = new URL(path, 'https://x').searchParams.get('since')
      const page =
        since === '0'
          ? {
              entries: [
                { jti: 'j1', sub: 's1', iss: 'cp-a.test', exp: NOW + 600, revoked_at_ms: T0 - 2000 },
                // Another issuer's entry is not applied (a peer only speaks for its own tokens).
                { jti: 'j2', sub: 's2', iss: 'other.test', exp: NOW + 600, revoked_at_ms: T0 - 1500 },
                { jti: 'j3', sub: 's3', iss: 'cp-a.test', exp: NOW + 900, revoked_at_ms: T0 - 1000 },
              ],
              next_cursor: null,
            }
          : { entries: [], next_cursor: null }
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(page) }
    })
    const t = await open({
      REVOCATION_FEEDS: [
        feedEntry('cp-a.test', '/auth/revocations?shard=1'),
        feedEntry('cp-b.test'),
        feedEntry('cp-c.test'),
      ].join(','),
    })
    // Each feed is polled once at start; wait until all three polls have ended.
    await vi.waitFor(
      async () =>
        expect((await feeds(t)).json().data.every((f: { lastPoll: unknown }) => f.lastPoll !== null)).toBe(true),
      { timeout: 5000, interval: 50 },
    )
    const res = await feeds(t)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      total: 3,
      data: [
        {
          issuer: 'cp-a.test',
          feedUrl: `${upstream.origin('cp-a.test')}/auth/revocations`,
          pollSeconds: 3600,
          cursorMs: T0 - 1000,
          cursorUpdatedAt: iso(T0),
          lastPoll: { at: iso(T0), outcome: 'ok', errorCategory: null },
          applied: {
            count: 2,
            newest: [
              { jtiSha256: digest('j3'), subjectSha256: digest('s3'), exp: NOW + 900, revokedAt: iso(T0) },
              { jtiSha256: digest('j1'), subjectSha256: digest('s1'), exp: NOW + 600, revokedAt: iso(T0) },
            ],
          },
        },
        {
          issuer: 'cp-b.test',
          feedUrl: `${upstream.origin('cp-b.test')}/auth/revocations`,
          pollSeconds: 3600,
          cursorMs: null,
          cursorUpdatedAt: null,
          lastPoll: { at: iso(T0), outcome: 'error', errorCategory: 'http_500' },
          applied: { count: 0, newest: [] },
        },
        {
          issuer: 'cp-c.test',
          feedUrl: `${upstream.origin('cp-c.test')}/auth/revocations`,
          pollSeconds: 3600,
          cursorMs: null,
          cursorUpdatedAt: null,
          lastPoll: { at: iso(T0), outcome: 'error', errorCategory: 'malformed_page' },
          applied: { count: 0, newest: [] },
        },
      ],
    })
    expect(res.body).not.toContain(FEED_TOKEN)
    expect(res.body).not.toContain('shard')
  })

  it('reports an SSRF refusal of the feed address as the outbound reason, with no connection made', async () => {
    const t = await open({ REVOCATION_FEEDS: feedEntry('cp-a.test') }, false)
    await vi.waitFor(async () => expect((await feeds(t)).json().data[0].lastPoll).not.toBeNull(), {
      timeout: 5000,
      interval: 50,
    })
    expect((await feeds(t)).json().data[0]).toMatchObject({
      cursorMs: null,
      lastPoll: { outcome: 'error', errorCategory: 'loopback' },
      applied: { count: 0, newest: [] },
    })
    expect(upstream.seen).toEqual([])
  })

  it('answers an empty list when no feed is configured, and only to an admin key', async () => {
    const t = await open({ TENANT_API_KEYS: `acme:${TENANT_KEY}`, AUTH_REQUIRE_TENANT: 'true' })
    const tenant = { 'x-tenant-id': 'acme' }
    expect((await feeds(t, { ...bearer(ADMIN_KEY), ...tenant })).json()).toEqual({ data: [], total: 0 })
    for (const headers of [{ ...bearer(USER_KEY), ...tenant }, bearer(TENANT_KEY)]) {
      const refused = await feeds(t, headers)
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toMatchObject({ errorCode: 'ADMIN_REQUIRED' })
    }
    expect((await feeds(t, {})).statusCode).toBe(401)
  })

  it('stores: the cursor state and a feed summary bounded by issuer, recorder and limit', async () => {
    const t = await open({})
    const store = createAuthStore(t.deps.database as Parameters<typeof createAuthStore>[0])
    expect(await store.getFeedCursorState('cp-a.test')).toBeUndefined()
    await store.setFeedCursor('cp-a.test', 1234, T0 + 5)
    await store.setFeedCursor('cp-a.test', 5678, T0 + 9)
    expect(await store.getFeedCursorState('cp-a.test')).toEqual({ cursorMs: 5678, updatedAtMs: T0 + 9 })
    const base = { sub: 's', exp: NOW + 600, reason: 'unspecified' }
    const rows = [
      { ...base, iss: 'cp-a.test', jti: 'a1', revokedAtMs: T0 + 1, revokedBy: 'feed:cp-a.test' },
      { ...base, iss: 'cp-a.test', jti: 'a2', revokedAtMs: T0 + 3, revokedBy: 'feed:cp-a.test' },
      { ...base, iss: 'cp-a.test', jti: 'a3', revokedAtMs: T0 + 3, revokedBy: 'feed:cp-a.test' },
      // Same issuer revoked locally (an admin), and another feed: neither counts for cp-a.test's feed.
      { ...base, iss: 'cp-a.test', jti: 'local', revokedAtMs: T0 + 4, revokedBy: 'key:admin' },
      { ...base, iss: 'cp-b.test', jti: 'b1', revokedAtMs: T0 + 5, revokedBy: 'feed:cp-b.test' },
    ]
    for (const row of rows) expect(await store.insertRevocation(row)).toBe(true)
    const summary = await store.summarizeFeedRevocations('cp-a.test', 2)
    expect(summary.count).toBe(3)
    expect(summary.newest.map((r) => r.jti)).toEqual(['a3', 'a2'])
    expect((await store.summarizeFeedRevocations('cp-b.test', 10)).newest.map((r) => r.jti)).toEqual(['b1'])
    expect(await store.summarizeFeedRevocations('nobody.test', 10)).toEqual({ count: 0, newest: [] })
  })
})
