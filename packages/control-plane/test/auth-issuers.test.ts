/**
 * Tokens across issuers and instances, on every dialect: TRUSTED_ISSUERS (HS256, and EdDSA through a JWKS on a
 * loopback HTTPS host with the rate-limited refetch on an unknown kid), read_only issuers, revocation seen by a
 * second instance on the same database within one sync interval, and REVOCATION_FEEDS polling with a durable
 * cursor that only advances when a page applied whole.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { testDatabaseTargets } from '@acdp/storage'
import { exportJWK, SignJWT } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createAuthStore } from '../src/auth/auth-store.js'
import { createTestAgent, issueToken } from './support/agent-keys.js'
import { type HttpsUpstream, startHttpsUpstream } from './support/https-upstream.js'
import { ADMIN_KEY, bearer, openTestApp, T0, type TestApp } from './support/test-app.js'

const PEER_SECRET = 'peer-issuer-secret-0123456789abcdef'
const NOW = Math.floor(T0 / 1000)
const alice = createTestAgent('alice')

function peerToken(claims: Record<string, unknown>, secret = PEER_SECRET): Promise<string> {
  return new SignJWT({
    iss: 'peer.test',
    aud: 'cp-aud',
    sub: 'did:web:peer-agent.test',
    jti: 'p-1',
    iat: NOW,
    exp: NOW + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret))
}

function edToken(key: KeyObject, kid: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({
    iss: 'idp.test',
    aud: 'cp-aud',
    sub: 'did:web:idp-agent.test',
    jti: `e-${kid}`,
    iat: NOW,
    exp: NOW + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: 'EdDSA', kid })
    .sign(key)
}

describe.each(testDatabaseTargets())('issuers and instances on $name', (target) => {
  let upstream: HttpsUpstream
  const opened: TestApp[] = []
  beforeAll(async () => {
    upstream = await startHttpsUpstream(['idp.test', 'cp-a.test'])
  })
  afterAll(async () => {
    await upstream.close()
  })
  afterEach(async () => {
    for (const app of opened.splice(0)) await app.close()
    upstream.seen.length = 0
  })
  async function open(env: Record<string, string>, overrides = {}) {
    const t = await openTestApp(target, env, { outbound: upstream.client(), ...overrides })
    opened.push(t)
    return t
  }
  const runs = (t: TestApp, token: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/runs', headers: { ...bearer(token), ...headers } })

  describe('TRUSTED_ISSUERS', () => {
    it('accepts an HS256 peer token with its audience and scopes, and refuses the rest', async () => {
      const t = await open({ TRUSTED_ISSUERS: `peer.test|HS256|${PEER_SECRET}|cp-aud|runs:read` })
      expect((await runs(t, await peerToken({ scope: 'runs:read other' }))).statusCode).toBe(200)
      expect((await runs(t, await peerToken({ scp: ['runs:read'] }))).statusCode).toBe(200)
      expect((await runs(t, await peerToken({}))).statusCode).toBe(401)
      expect((await runs(t, await peerToken({ scope: 'runs:read', aud: 'other' }))).statusCode).toBe(401)
      expect(
        (await runs(t, await peerToken({ scope: 'runs:read' }, 'wrong-secret-0123456789abcdef0123456'))).statusCode,
      ).toBe(401)
    })

    it('confines a read_only issuer to reads (and introspection)', async () => {
      const t = await open({ TRUSTED_ISSUERS: `peer.test|HS256|${PEER_SECRET}|cp-aud||read_only` })
      const token = await peerToken({ tenant: 'acme' })
      expect((await runs(t, token)).statusCode).toBe(200)
      const write = await t.app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: bearer(token),
        payload: { url: 'https://hooks.example/x', secret: 'subscription-secret-0123456789' },
      })
      expect(write.statusCode).toBe(403)
      expect(write.json()).toMatchObject({ errorCode: 'ISSUER_READ_ONLY' })
      const introspect = await t.app.inject({
        method: 'POST',
        url: '/auth/introspect',
        headers: bearer(token),
        payload: { token },
      })
      expect(introspect.json()).toMatchObject({ active: true, iss: 'peer.test', tenant: 'acme' })
    })

    it('verifies EdDSA tokens against the issuer JWKS, refetching on an unknown kid at most once per 30 s', async () => {
      const k1 = generateKeyPairSync('ed25519')
      const k2 = generateKeyPairSync('ed25519')
      const jwk = async (key: KeyObject, kid: string) => ({ ...(await exportJWK(key)), kid, use: 'sig' })
      let published = { keys: [await jwk(k1.publicKey, 'k1')] }
      upstream.handle(() => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(published),
      }))
      const t = await open({ TRUSTED_ISSUERS: `idp.test|EdDSA|${upstream.origin('idp.test')}/jwks.json|cp-aud` })
      expect((await runs(t, await edToken(k1.privateKey, 'k1'))).statusCode).toBe(200)
      // HS256 under an EdDSA issuer (alg confusion) and alg none never reach a key.
      expect((await runs(t, await peerToken({ iss: 'idp.test' }))).statusCode).toBe(401)
      published = { keys: [await jwk(k1.publicKey, 'k1'), await jwk(k2.publicKey, 'k2')] }
      const rotated = await edToken(k2.privateKey, 'k2')
      const fetchesBefore = upstream.seen.length
      // Within 30 s of the last fetch, unknown kids do not trigger fetches.
      for (let i = 0; i < 5; i++) expect((await runs(t, rotated)).statusCode).toBe(401)
      expect(upstream.seen.length).toBe(fetchesBefore)
      t.advance(30_000)
      expect((await runs(t, rotated)).statusCode).toBe(200)
      expect(upstream.seen.length).toBe(fetchesBefore + 1)
      // A token signed by k1 but naming k2 fails the signature.
      expect((await runs(t, await edToken(k1.privateKey, 'k2'))).statusCode).toBe(401)
    })
  })

  describe('revocation across instances', () => {
    const env = {
      TOKEN_ISSUANCE_ENABLED: 'true',
      JWT_SECRET: 'jwt-secret-0123456789abcdef0123456789',
      JWT_AUTHORITY: 'cp.test',
      CONTROL_PLANE_PINNED_KEYS: alice.pinnedEntry(),
      REVOCATION_SYNC_INTERVAL_MS: '100',
    }

    it('refuses a token revoked on one instance on another instance within one sync interval', async () => {
      const a = await open(env)
      const b = await open(env, { store: a.store, database: a.deps.database })
      const token = await issueToken(a.app, alice)
      expect((await runs(b, token)).statusCode).toBe(200)
      const revoke = await a.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(token),
        payload: { token },
      })
      expect(revoke.json()).toEqual({ revoked: true })
      expect((await runs(a, token)).statusCode).toBe(401)
      await vi.waitFor(async () => expect((await runs(b, token)).statusCode).toBe(401), { timeout: 5000, interval: 50 })
      // A third instance started later loads it at boot.
      const c = await open(env, { store: a.store, database: a.deps.database })
      expect((await runs(c, token)).statusCode).toBe(401)
    })
  })

  describe('REVOCATION_FEEDS', () => {
    const peerEnv = {
      TRUSTED_ISSUERS: `cp-a.test|HS256|${PEER_SECRET}|cp-aud`,
      REVOCATION_FEEDS: '',
    }
    const feedToken = (jti: string) => peerToken({ iss: 'cp-a.test', jti })

    it('applies a peer feed, drops entries of other issuers, and keeps a durable cursor', async () => {
      const pages: Record<string, unknown> = {
        '0': {
          entries: [
            { jti: 'j1', sub: 's', iss: 'cp-a.test', exp: NOW + 600, revoked_at_ms: T0 - 2000 },
            { jti: 'j2', sub: 's', iss: 'other.test', exp: NOW + 600, revoked_at_ms: T0 - 1500 },
          ],
          next_cursor: T0 - 1500,
        },
        [String(T0 - 1500)]: {
          entries: [{ jti: 'j3', sub: 's', iss: 'cp-a.test', exp: NOW + 600, revoked_at_ms: T0 - 1000 }],
          next_cursor: null,
        },
      }
      upstream.handle((path, headers) => {
        if (headers.authorization !== `Bearer ${ADMIN_KEY}`) return { status: 401 }
        const since = new URL(path, 'https://x').searchParams.get('since') ?? ''
        const page = pages[since] ?? { entries: [], next_cursor: null }
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(page) }
      })
      const t = await open({
        ...peerEnv,
        REVOCATION_FEEDS: `cp-a.test|${upstream.origin('cp-a.test')}/auth/revocations|${ADMIN_KEY}|3600`,
      })
      const j1 = await feedToken('j1')
      const j3 = await feedToken('j3')
      await vi.waitFor(async () => expect((await runs(t, j3)).statusCode).toBe(401), { timeout: 5000, interval: 50 })
      expect((await runs(t, j1)).statusCode).toBe(401)
      expect((await runs(t, await feedToken('j2'))).statusCode).toBe(200)
      expect(upstream.seen.map((s) => new URL(s.path, 'https://x').searchParams.get('since'))).toEqual([
        '0',
        String(T0 - 1500),
      ])
      const cursor = await createAuthStore(t.deps.database as Parameters<typeof createAuthStore>[0]).getFeedCursor(
        'cp-a.test',
      )
      expect(cursor).toBe(T0 - 1000)
      // Feed entries reach this instance's own feed (for its peers).
      const own = await t.app.inject({ method: 'GET', url: '/auth/revocations', headers: bearer(ADMIN_KEY) })
      expect(
        own
          .json()
          .entries.map((e: { jti: string }) => e.jti)
          .sort(),
      ).toEqual(['j1', 'j3'])
    })

    it('does not advance the cursor past a page that failed to apply', async () => {
      upstream.handle(() => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          entries: [
            { jti: 'ok', sub: 's', iss: 'cp-a.test', exp: NOW + 600, revoked_at_ms: T0 - 10 },
            { jti: 'bad', sub: 's', iss: 'cp-a.test', exp: NOW + 600, revoked_at_ms: 'yesterday' },
          ],
          next_cursor: null,
        }),
      }))
      const t = await open({
        ...peerEnv,
        REVOCATION_FEEDS: `cp-a.test|${upstream.origin('cp-a.test')}/auth/revocations|${ADMIN_KEY}|3600`,
      })
      await vi.waitFor(() => expect(upstream.seen.length).toBeGreaterThan(0), { timeout: 5000, interval: 20 })
      const store = createAuthStore(t.deps.database as Parameters<typeof createAuthStore>[0])
      await vi.waitFor(async () => expect(await store.isRevoked('cp-a.test', 'ok')).toBe(true), { timeout: 5000 })
      expect(await store.getFeedCursor('cp-a.test')).toBeUndefined()
    })
  })
})
