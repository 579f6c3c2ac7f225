/**
 * Agent tokens over HTTP on every dialect: challenge and exchange (every refusal of the product spec), JWTs beside
 * API keys, the JWT refusals (alg none, alg confusion, expiry, nbf, a future iat, an unknown kid, jku/x5u never
 * followed, audience, issuer), tenancy rule 6 for tokens,
 * introspection, revocation, the revocation feed, JWKS, the pinned-key reload and the per-IP throttle.
 */
import { generateKeyPairSync } from 'node:crypto'
import { testDatabaseTargets } from '@acdp/storage'
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { startRecordingServer } from '../../../test/support/recording-server.js'
import { createTestAgent, issueToken, requestChallenge, tokenRequest } from './support/agent-keys.js'
import { ADMIN_KEY, bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const JWT_SECRET = 'jwt-secret-0123456789abcdef0123456789'
const alice = createTestAgent('alice')
const bob = createTestAgent('bob')
const carol = createTestAgent('carol', 'ecdsa-p256')
const unpinned = createTestAgent('mallory')

const TOKEN_ENV = {
  TOKEN_ISSUANCE_ENABLED: 'true',
  JWT_SECRET,
  JWT_AUTHORITY: 'cp.test',
  CONTROL_PLANE_PINNED_KEYS: [alice.pinnedEntry(), bob.pinnedEntry(), carol.pinnedEntry()].join(','),
  TENANT_AGENTS: `acme:${bob.did}`,
}

/** Signs claims with the HS256 secret of the service (to forge tokens the service did not mint). */
async function hsToken(
  claims: Record<string, unknown>,
  secret = JWT_SECRET,
  alg = 'HS256',
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(T0 / 1000)
  return new SignJWT({
    iss: 'cp.test',
    aud: 'cp.test',
    sub: alice.did,
    jti: 'forged-1',
    iat: now,
    exp: now + 600,
    ...claims,
  })
    .setProtectedHeader({ alg, ...header })
    .sign(new TextEncoder().encode(secret))
}

describe.each(testDatabaseTargets())('agent tokens on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t?.close()
  })

  describe('challenge and exchange', () => {
    it('issues a challenge whose signing input follows the product spec, and a JWT usable on key/JWT routes', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const challenge = await requestChallenge(t.app, alice)
      expect(challenge.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(challenge.registry_authority).toBe('cp.test')
      expect(challenge.expires_at).toBe(Math.floor(T0 / 1000) + 300)
      expect(challenge.signing_input).toBe(
        `acdp-registry-auth:v1:${challenge.nonce}:${alice.did}:cp.test:${challenge.expires_at}`,
      )
      const res = await t.app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(alice, challenge) })
      expect(res.statusCode).toBe(200)
      const body = res.json() as { token: string; token_type: string; expires_at: number }
      expect(body.token_type).toBe('Bearer')
      expect(body.expires_at).toBe(Math.floor(T0 / 1000) + 3600)
      const claims = decodeJwt(body.token)
      expect(claims).toMatchObject({ iss: 'cp.test', aud: 'cp.test', sub: alice.did, exp: body.expires_at })
      expect(claims['acdp']).toEqual({ registry: 'cp.test', key_id: alice.keyId })
      expect(claims['tenant']).toBeUndefined()
      const runs = await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(body.token) })
      expect(runs.statusCode).toBe(200)
    })

    it('accepts a P-256 pinned key and stamps the TENANT_AGENTS tenant', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      expect(decodeJwt(await issueToken(t.app, carol)).sub).toBe(carol.did)
      expect(decodeJwt(await issueToken(t.app, bob))['tenant']).toBe('acme')
    })

    it('refuses a nonce used twice (single use)', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const challenge = await requestChallenge(t.app, alice)
      const payload = tokenRequest(alice, challenge)
      expect((await t.app.inject({ method: 'POST', url: '/auth/token', payload })).statusCode).toBe(200)
      const again = await t.app.inject({ method: 'POST', url: '/auth/token', payload })
      expect(again.statusCode).toBe(401)
      expect(again.json()).toMatchObject({ statusCode: 401, errorCode: 'UNAUTHORIZED' })
      expect(await t.counter('acdp_token_requests_total', { result: 'issued' })).toBe(1)
      expect(await t.counter('acdp_token_requests_total', { result: 'reject_nonce' })).toBe(1)
    })

    it('refuses an expired nonce', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const challenge = await requestChallenge(t.app, alice)
      t.advance(301_000)
      const res = await t.app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(alice, challenge) })
      expect(res.statusCode).toBe(401)
    })

    it.each([
      ['an unknown nonce', (c: { nonce: string }) => ({ nonce: `x${c.nonce.slice(1)}` })],
      ['another agent than the challenged one', () => ({ agent_id: bob.did, key_id: bob.keyId })],
      ['another expiry than the challenge', (c: { expires_at: number }) => ({ expires_at: c.expires_at + 1 })],
      ['a key id naming another DID', () => ({ key_id: `${bob.did}#key-1` })],
      ['a bad signature', () => ({ signature: bob.sign('something else') })],
      ['a non-canonical base64 signature', () => ({ signature: 'not base64!' })],
      ['an algorithm other than the pinned key (downgrade)', () => ({ algorithm: 'ecdsa-p256' })],
    ])('answers 401 for %s', async (_name, change) => {
      t = await openTestApp(target, TOKEN_ENV)
      const challenge = await requestChallenge(t.app, alice)
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/token',
        payload: tokenRequest(alice, challenge, change(challenge)),
      })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ statusCode: 401, errorCode: 'UNAUTHORIZED', message: 'token request refused' })
    })

    it('answers 401 for an agent without a pinned key, and for a key outside its validity window', async () => {
      const now = Math.floor(T0 / 1000)
      t = await openTestApp(target, {
        ...TOKEN_ENV,
        CONTROL_PLANE_PINNED_KEYS: [alice.pinnedEntry(`:${now + 10}..`), bob.pinnedEntry(`:..${now + 10}`)].join(','),
      })
      const forUnpinned = await requestChallenge(t.app, unpinned)
      const r1 = await t.app.inject({
        method: 'POST',
        url: '/auth/token',
        payload: tokenRequest(unpinned, forUnpinned),
      })
      expect(r1.statusCode).toBe(401)
      const early = await requestChallenge(t.app, alice)
      const r2 = await t.app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(alice, early) })
      expect(r2.statusCode).toBe(401)
      // Bob's key is valid now (until-exclusive window) …
      await issueToken(t.app, bob)
      t.advance(10_000)
      // … and no longer at its `until`, when Alice's starts.
      const late = await requestChallenge(t.app, bob)
      const r3 = await t.app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(bob, late) })
      expect(r3.statusCode).toBe(401)
      await issueToken(t.app, alice)
    })

    it('answers 400 for an unsupported algorithm, without burning the nonce', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const challenge = await requestChallenge(t.app, alice)
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/token',
        payload: tokenRequest(alice, challenge, { algorithm: 'rsa-pss' }),
      })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
      const ok = await t.app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(alice, challenge) })
      expect(ok.statusCode).toBe(200)
    })

    it('answers 400 for a malformed body and 404 when issuance is off', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const bad = await t.app.inject({ method: 'POST', url: '/auth/challenge', payload: { agent_id: 'not-a-did' } })
      expect(bad.statusCode).toBe(400)
      await t.close()
      t = await openTestApp(target, { ...TOKEN_ENV, TOKEN_ISSUANCE_ENABLED: 'false' })
      const off = await t.app.inject({ method: 'POST', url: '/auth/challenge', payload: { agent_id: alice.did } })
      expect(off.statusCode).toBe(404)
    })

    it('applies the token.issue quota per agent (429 with Retry-After)', async () => {
      t = await openTestApp(target, { ...TOKEN_ENV, AGENT_QUOTAS: `${alice.did}:token.issue=2/min` })
      await issueToken(t.app, alice)
      await issueToken(t.app, alice)
      const challenge = await requestChallenge(t.app, alice)
      const res = await t.app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(alice, challenge) })
      expect(res.statusCode).toBe(429)
      expect(res.json()).toMatchObject({ errorCode: 'QUOTA_EXCEEDED', action: 'token.issue' })
      expect(res.headers['retry-after']).toBe('60')
      await issueToken(t.app, bob)
    })

    it('throttles /auth/challenge and /auth/token per client IP', async () => {
      t = await openTestApp(target, { ...TOKEN_ENV, AUTH_THROTTLE_LIMIT: '3' })
      const call = (ip: string) =>
        t.app.inject({ method: 'POST', url: '/auth/challenge', remoteAddress: ip, payload: { agent_id: alice.did } })
      for (let i = 0; i < 3; i++) expect((await call('10.0.0.1')).statusCode).toBe(200)
      const limited = await call('10.0.0.1')
      expect(limited.statusCode).toBe(429)
      expect(limited.json()).toMatchObject({ errorCode: 'RATE_LIMITED' })
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
      const token = await t.app.inject({ method: 'POST', url: '/auth/token', remoteAddress: '10.0.0.1', payload: {} })
      expect(token.statusCode).toBe(429)
      expect((await call('10.0.0.2')).statusCode).toBe(200)
      // The global routes are not throttled by it.
      expect(
        (await t.app.inject({ method: 'GET', url: '/runs', remoteAddress: '10.0.0.1', headers: bearer(USER_KEY) }))
          .statusCode,
      ).toBe(200)
      t.advance(60_000)
      expect((await call('10.0.0.1')).statusCode).toBe(200)
    })
  })

  describe('over a real socket', () => {
    it('runs the whole flow with fetch: challenge, token, a JWT read, revocation', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const base = await t.app.listen({ host: '127.0.0.1', port: 0 })
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        })
      const challenge = (await (await post('/auth/challenge', { agent_id: alice.did })).json()) as {
        nonce: string
        expires_at: number
        signing_input: string
      }
      const issued = await post('/auth/token', tokenRequest(alice, challenge))
      expect(issued.status).toBe(200)
      const { token } = (await issued.json()) as { token: string }
      const runs = await fetch(`${base}/runs`, { headers: bearer(token) })
      expect(runs.status).toBe(200)
      expect(await runs.json()).toMatchObject({ data: [], total: 0 })
      expect((await post('/auth/token/revoke', { token }, bearer(token))).status).toBe(200)
      const after = await fetch(`${base}/runs`, { headers: bearer(token) })
      expect(after.status).toBe(401)
      expect(after.headers.get('www-authenticate')).toBe('Bearer')
    })
  })

  describe('JWT verification', () => {
    it.each([
      [
        'alg none',
        async () =>
          new UnsecuredJWT({
            iss: 'cp.test',
            aud: 'cp.test',
            sub: alice.did,
            jti: 'n',
            exp: Math.floor(T0 / 1000) + 60,
          }).encode(),
      ],
      ['a wrong secret', async () => hsToken({}, 'another-secret-0123456789abcdef0123')],
      ['HS512 under an HS256 issuer', async () => hsToken({}, JWT_SECRET, 'HS512')],
      ['an expired token', async () => hsToken({ exp: Math.floor(T0 / 1000) - 1 })],
      ['a token expiring exactly now', async () => hsToken({ exp: Math.floor(T0 / 1000) })],
      ['a not-yet-valid token', async () => hsToken({ nbf: Math.floor(T0 / 1000) + 30 })],
      ['another audience', async () => hsToken({ aud: 'someone-else' })],
      ['an unknown issuer', async () => hsToken({ iss: 'other.test' })],
      ['a token without jti', async () => hsToken({ jti: undefined })],
      ['a malformed tenant claim', async () => hsToken({ tenant: 'bad tenant!' })],
      ['an iat an hour in the future', async () => hsToken({ iat: Math.floor(T0 / 1000) + 3600 })],
      ['an iat a second in the future (no leeway)', async () => hsToken({ iat: Math.floor(T0 / 1000) + 1 })],
      ['a kid naming no key we hold', async () => hsToken({}, JWT_SECRET, 'HS256', { kid: 'someone-elses-key' })],
    ])('refuses %s with 401 and never falls back to API keys', async (_name, make) => {
      t = await openTestApp(target, TOKEN_ENV)
      const res = await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(await make()) })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' })
    })

    it('never follows jku or x5u: a token pointing at a loopback server is 401 and the server sees nothing', async () => {
      const server = await startRecordingServer()
      try {
        t = await openTestApp(target, TOKEN_ENV)
        for (const header of [{ jku: `${server.base}/jwks` }, { x5u: `${server.base}/cert` }]) {
          const res = await t.app.inject({
            method: 'GET',
            url: '/runs',
            headers: bearer(await hsToken({}, JWT_SECRET, 'HS256', header)),
          })
          expect(res.statusCode).toBe(401)
          expect(res.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' })
        }
        // Absence shown by a later event: our own probe is the first request the server ever received.
        await fetch(`${server.base}/probe`)
        expect(server.seen).toEqual(['/probe'])
      } finally {
        await server.close()
      }
    })

    it('accepts its own EdDSA token only under its own kid', async () => {
      const { privateKey } = generateKeyPairSync('ed25519')
      t = await openTestApp(target, {
        ...TOKEN_ENV,
        JWT_SIGNING_ALG: 'EdDSA',
        JWT_SECRET: '',
        JWT_KID: 'cp-k1',
        JWT_PRIVATE_KEY_PEM: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      })
      const now = Math.floor(T0 / 1000)
      const signed = (kid: string) =>
        new SignJWT({ iss: 'cp.test', aud: 'cp.test', sub: alice.did, jti: `ed-${kid}`, iat: now, exp: now + 600 })
          .setProtectedHeader({ alg: 'EdDSA', kid })
          .sign(privateKey)
      const runs = async (token: string) =>
        (await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(token) })).statusCode
      expect(await runs(await signed('cp-k2'))).toBe(401)
      expect(await runs(await signed('cp-k1'))).toBe(200)
    })

    it('refuses alg confusion: an HS256 token keyed with the EdDSA public key', async () => {
      const { privateKey } = generateKeyPairSync('ed25519')
      const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
      t = await openTestApp(target, {
        ...TOKEN_ENV,
        JWT_SIGNING_ALG: 'EdDSA',
        JWT_SECRET: '',
        JWT_PRIVATE_KEY_PEM: pem,
      })
      const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as {
        keys: Array<{ x: string; kty: string; crv: string; kid: string }>
      }
      expect(jwks.keys).toHaveLength(1)
      expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' })
      const good = await issueToken(t.app, alice)
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(good) })).statusCode).toBe(200)
      const confused = await hsToken({}, jwks.keys[0]?.x ?? '')
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(confused) })).statusCode).toBe(401)
      const publicPem = Buffer.from(jwks.keys[0]?.x ?? '', 'base64url').toString('latin1')
      expect(
        (
          await t.app.inject({
            method: 'GET',
            url: '/runs',
            headers: bearer(await hsToken({}, publicPem.padEnd(32, 'x'))),
          })
        ).statusCode,
      ).toBe(401)
    })

    it('serves an empty JWKS under HS256, cacheable for 300 s', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })
      expect(res.statusCode).toBe(200)
      expect(res.headers['cache-control']).toBe('public, max-age=300')
      expect(res.json()).toEqual({ keys: [] })
    })

    it('expires a minted token after JWT_TTL_SECONDS', async () => {
      t = await openTestApp(target, { ...TOKEN_ENV, JWT_TTL_SECONDS: '60' })
      const token = await issueToken(t.app, alice)
      t.advance(59_000)
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(token) })).statusCode).toBe(200)
      t.advance(1000)
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(token) })).statusCode).toBe(401)
    })

    it('never lets a JWT reach an admin route', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const token = await issueToken(t.app, alice)
      const res = await t.app.inject({ method: 'GET', url: '/auth/revocations', headers: bearer(token) })
      expect(res.statusCode).toBe(403)
      expect(res.json()).toMatchObject({ errorCode: 'ADMIN_REQUIRED' })
    })
  })

  describe('tenancy rule 6 with tokens', () => {
    it('binds the tenant claim and refuses a disagreeing or reserved X-Tenant-Id', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const acme = await issueToken(t.app, bob)
      const ok = await t.app.inject({
        method: 'GET',
        url: '/runs',
        headers: { ...bearer(acme), 'x-tenant-id': 'acme' },
      })
      expect(ok.statusCode).toBe(200)
      const other = await t.app.inject({
        method: 'GET',
        url: '/runs',
        headers: { ...bearer(acme), 'x-tenant-id': 'globex' },
      })
      expect(other.json()).toMatchObject({ statusCode: 403, errorCode: 'TENANT_MISMATCH' })
      const reserved = await t.app.inject({
        method: 'GET',
        url: '/runs',
        headers: { ...bearer(acme), 'x-tenant-id': 'default' },
      })
      expect(reserved.json()).toMatchObject({ statusCode: 403, errorCode: 'TENANT_RESERVED' })
    })

    it('refuses X-Tenant-Id from a token without tenant claim unless TENANT_HEADER_TRUST=any_peer', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const token = await issueToken(t.app, alice)
      const res = await t.app.inject({
        method: 'GET',
        url: '/runs',
        headers: { ...bearer(token), 'x-tenant-id': 'acme' },
      })
      expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'TENANT_HEADER_UNTRUSTED' })
      await t.close()
      t = await openTestApp(target, { ...TOKEN_ENV, TENANT_HEADER_TRUST: 'any_peer' })
      const trusted = await issueToken(t.app, alice)
      const ok = await t.app.inject({
        method: 'GET',
        url: '/runs',
        headers: { ...bearer(trusted), 'x-tenant-id': 'acme' },
      })
      expect(ok.statusCode).toBe(200)
    })

    it('refuses a token claiming the reserved tenant, and tokens resolving only to default under AUTH_REQUIRE_TENANT', async () => {
      t = await openTestApp(target, { ...TOKEN_ENV, AUTH_REQUIRE_TENANT: 'true' })
      const reserved = await hsToken({ tenant: 'default' })
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(reserved) })).json()).toMatchObject({
        errorCode: 'TENANT_RESERVED',
      })
      const untenanted = await issueToken(t.app, alice)
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(untenanted) })).json()).toMatchObject({
        statusCode: 403,
        errorCode: 'TENANT_REQUIRED',
      })
      const tenanted = await issueToken(t.app, bob)
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(tenanted) })).statusCode).toBe(200)
    })
  })

  describe('introspection and revocation', () => {
    it('introspects an active token and answers { active: false } for anything failing', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const token = await issueToken(t.app, alice)
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/introspect',
        headers: bearer(USER_KEY),
        payload: { token },
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({
        active: true,
        iss: 'cp.test',
        sub: alice.did,
        aud: 'cp.test',
        token_type: 'Bearer',
        key_id: alice.keyId,
        registry: 'cp.test',
        exp: Math.floor(T0 / 1000) + 3600,
      })
      for (const bad of ['garbage', await hsToken({}, 'another-secret-0123456789abcdef0123'), `${token}x`]) {
        const inactive = await t.app.inject({
          method: 'POST',
          url: '/auth/introspect',
          headers: bearer(USER_KEY),
          payload: { token: bad },
        })
        expect(inactive.json()).toEqual({ active: false })
      }
      const unauth = await t.app.inject({ method: 'POST', url: '/auth/introspect', payload: { token } })
      expect(unauth.statusCode).toBe(401)
    })

    it('hides a tenant-bound token from another tenant', async () => {
      t = await openTestApp(target, {
        ...TOKEN_ENV,
        TENANT_API_KEYS: 'globex:globex-key-0123456789',
        AUTH_REQUIRE_TENANT: 'true',
      })
      const acme = await issueToken(t.app, bob)
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/introspect',
        headers: bearer('globex-key-0123456789'),
        payload: { token: acme },
      })
      expect(res.json()).toEqual({ active: false })
      const own = await t.app.inject({
        method: 'POST',
        url: '/auth/introspect',
        headers: bearer(acme),
        payload: { token: acme },
      })
      expect(own.json()).toMatchObject({ active: true, tenant: 'acme' })
    })

    it('lets a token holder revoke its own token, which is then refused everywhere and listed in the feed', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const token = await issueToken(t.app, alice)
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(token),
        payload: { token, reason: 'user_logout' },
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ revoked: true })
      expect(await t.counter('acdp_token_revocations_total', { source: 'local' })).toBe(1)
      expect((await t.app.inject({ method: 'GET', url: '/runs', headers: bearer(token) })).statusCode).toBe(401)
      const introspection = await t.app.inject({
        method: 'POST',
        url: '/auth/introspect',
        headers: bearer(USER_KEY),
        payload: { token },
      })
      expect(introspection.json()).toEqual({ active: false })
      const feed = await t.app.inject({ method: 'GET', url: '/auth/revocations', headers: bearer(ADMIN_KEY) })
      const claims = decodeJwt(token)
      expect(feed.json()).toEqual({
        entries: [{ jti: claims.jti, sub: alice.did, iss: 'cp.test', exp: claims.exp, revoked_at_ms: T0 }],
        next_cursor: null,
      })
    })

    it('refuses revocation by another subject (403), allows it for an admin key, and answers 200 for garbage', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const aliceToken = await issueToken(t.app, alice)
      const bobToken = await issueToken(t.app, bob)
      const byBob = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: { ...bearer(bobToken) },
        payload: { token: aliceToken },
      })
      expect(byBob.statusCode).toBe(403)
      expect(byBob.json()).toMatchObject({ errorCode: 'FORBIDDEN' })
      const byUserKey = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(USER_KEY),
        payload: { token: aliceToken },
      })
      expect(byUserKey.statusCode).toBe(403)
      const byAdmin = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(ADMIN_KEY),
        payload: { token: aliceToken, reason: 'admin_revoke' },
      })
      expect(byAdmin.json()).toEqual({ revoked: true })
      const twice = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(ADMIN_KEY),
        payload: { token: aliceToken },
      })
      expect(twice.json()).toEqual({ revoked: true })
      const garbage = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(USER_KEY),
        payload: { token: 'nope' },
      })
      expect(garbage.statusCode).toBe(200)
      expect(garbage.json()).toEqual({ revoked: false })
      const badReason = await t.app.inject({
        method: 'POST',
        url: '/auth/token/revoke',
        headers: bearer(ADMIN_KEY),
        payload: { token: bobToken, reason: 'because' },
      })
      expect(badReason.statusCode).toBe(400)
    })

    it('pages the feed with since, limit and next_cursor, never splitting a millisecond', async () => {
      t = await openTestApp(target, TOKEN_ENV)
      const tokens: string[] = []
      for (let i = 0; i < 5; i++) tokens.push(await issueToken(t.app, alice))
      for (const [index, token] of tokens.entries()) {
        if (index !== 2) t.advance(1)
        await t.app.inject({
          method: 'POST',
          url: '/auth/token/revoke',
          headers: bearer(ADMIN_KEY),
          payload: { token },
        })
      }
      // revoked_at_ms: T0+1, T0+2, T0+2, T0+3, T0+4
      const page1 = (
        await t.app.inject({ method: 'GET', url: '/auth/revocations?limit=2', headers: bearer(ADMIN_KEY) })
      ).json()
      expect(page1.entries.map((e: { revoked_at_ms: number }) => e.revoked_at_ms - T0)).toEqual([1])
      expect(page1.next_cursor).toBe(T0 + 1)
      const page2 = (
        await t.app.inject({
          method: 'GET',
          url: `/auth/revocations?limit=2&since=${page1.next_cursor}`,
          headers: bearer(ADMIN_KEY),
        })
      ).json()
      expect(page2.entries.map((e: { revoked_at_ms: number }) => e.revoked_at_ms - T0)).toEqual([2, 2])
      expect(page2.next_cursor).toBe(T0 + 2)
      const page3 = (
        await t.app.inject({
          method: 'GET',
          url: `/auth/revocations?limit=2&since=${page2.next_cursor}`,
          headers: bearer(ADMIN_KEY),
        })
      ).json()
      expect(page3.entries.map((e: { revoked_at_ms: number }) => e.revoked_at_ms - T0)).toEqual([3, 4])
      expect(page3.next_cursor).toBeNull()
      const tooMany = await t.app.inject({
        method: 'GET',
        url: '/auth/revocations?limit=501',
        headers: bearer(ADMIN_KEY),
      })
      expect(tooMany.statusCode).toBe(400)
      // A cursor past every representable instant (found by the fuzzer: PostgreSQL's bigint refused it, a 500).
      for (const since of ['99999999999999999999', String(Number.MAX_SAFE_INTEGER + 2)]) {
        const beyond = await t.app.inject({
          method: 'GET',
          url: `/auth/revocations?since=${since}`,
          headers: bearer(ADMIN_KEY),
        })
        expect(beyond.statusCode).toBe(400)
        expect(beyond.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
      }
      const latest = await t.app.inject({
        method: 'GET',
        url: `/auth/revocations?since=${Number.MAX_SAFE_INTEGER}`,
        headers: bearer(ADMIN_KEY),
      })
      expect(latest.json()).toEqual({ entries: [], next_cursor: null })
    })
  })

  describe('pinned key reload', () => {
    it('re-reads CONTROL_PLANE_PINNED_KEYS and swaps the directory; an invalid value keeps the old keys', async () => {
      let live = alice.pinnedEntry()
      t = await openTestApp(target, TOKEN_ENV, { readEnvironment: () => ({ CONTROL_PLANE_PINNED_KEYS: live }) })
      live = [alice.pinnedEntry(), unpinned.pinnedEntry()].join(',')
      const forbidden = await t.app.inject({
        method: 'POST',
        url: '/admin/pinned-keys/reload',
        headers: bearer(USER_KEY),
      })
      expect(forbidden.statusCode).toBe(403)
      const res = await t.app.inject({ method: 'POST', url: '/admin/pinned-keys/reload', headers: bearer(ADMIN_KEY) })
      expect(res.json()).toEqual({ ok: true, count: 2 })
      // The listing follows the swap: both keys, public material only, windows open.
      const listed = await t.app.inject({ method: 'GET', url: '/admin/pinned-keys', headers: bearer(ADMIN_KEY) })
      expect(listed.statusCode).toBe(200)
      expect(listed.json()).toEqual({
        data: [alice, unpinned].map((agent) => ({
          did: agent.did,
          algorithm: 'ed25519',
          publicKey: agent.pinnedEntry().slice(agent.did.length + 1),
          validFrom: null,
          validUntil: null,
          validNow: true,
        })),
        total: 2,
      })
      expect(
        (await t.app.inject({ method: 'GET', url: '/admin/pinned-keys', headers: bearer(USER_KEY) })).statusCode,
      ).toBe(403)
      await issueToken(t.app, unpinned)
      live = 'did:web:x.test=not-base64!'
      const bad = await t.app.inject({ method: 'POST', url: '/admin/pinned-keys/reload', headers: bearer(ADMIN_KEY) })
      expect(bad.statusCode).toBe(400)
      expect(bad.body).not.toContain('not-base64')
      await issueToken(t.app, unpinned)
    })
  })
})
