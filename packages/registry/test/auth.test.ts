/**
 * Bearer authentication end to end (product spec "Authentication"): challenge-response over did:key and did:web,
 * the JWT's checks (expiry, leeway, algorithm pinning, revocation), publish bound to the token's agent,
 * visibility through the bearer's DID, and state shared by two instances on one database. SQLite always,
 * PostgreSQL with ACDP_TEST_DATABASE_URL.
 */
import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto'
import { DidResolver, signLifecycleEvent } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { createLocalJWKSet, jwtVerify, SignJWT, UnsecuredJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { startRecordingServer } from '../../../test/support/recording-server.js'
import { buildApp } from '../src/app.js'
import type { RegistryConfigInput } from '../src/core/config.js'
import { createAuthStore } from '../src/auth/auth-store.js'
import { bearer, login, postJson, requestChallenge, tokenRequestFor } from './support/bearer-login.js'
import {
  AUTHORITY,
  countRows,
  didKeyProducer,
  didWebProducer,
  FakeDidWeb,
  minimalUnsigned,
  publish,
  signRequest,
  TestClock,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const SECRET = Buffer.from('an HS256 test secret of at least thirty-two bytes').toString('base64')
const ADMIN = 'admin-token-for-tests'
const enc = encodeURIComponent

function authConfig(extra: RegistryConfigInput['auth'] = {}): RegistryConfigInput {
  return { auth: { enabled: true, jwt_secret: SECRET, admin_tokens: [ADMIN], ...extra } }
}

function edKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
}

describe.each(testDatabaseTargets())('bearer authentication on $name', (target) => {
  const start = useTestRegistry()
  const startAuth = (extra: RegistryConfigInput['auth'] = {}) =>
    start({ openDatabase: target.open, config: authConfig(extra) })

  async function publishWith(r: TestRegistry, producer: ReturnType<typeof didKeyProducer>, token?: string) {
    return publish(r.app, signRequest(producer, minimalUnsigned(producer)), token ? bearer(token) : {})
  }

  /** A publish with `token` is refused 403 not_authorized and stores nothing. */
  async function expectRefused(r: TestRegistry, p: ReturnType<typeof didKeyProducer>, token: string) {
    const before = await countRows(r.database)
    const res = await publishWith(r, p, token)
    expect(res.statusCode).toBe(403)
    expect(res.json().error.code).toBe('not_authorized')
    expect(await countRows(r.database)).toEqual(before)
  }

  describe('challenge and token', () => {
    it('issues a challenge bound to agent and authority, and a token for a did:key signature', async () => {
      const r = await startAuth()
      const p = didKeyProducer()
      const res = await postJson(r.app, '/auth/challenge', { agent_id: p.did })
      expect(res.statusCode).toBe(200)
      expect(res.headers['cache-control']).toBe('no-store')
      const challenge = res.json()
      expect(challenge.registry_authority).toBe(AUTHORITY)
      expect(challenge.nonce).toMatch(/^[A-Za-z0-9_-]{32}$/)
      expect(challenge.signing_input).toBe(
        `acdp-registry-auth:v1:${challenge.nonce}:${p.did}:${AUTHORITY}:${challenge.expires_at}`,
      )
      expect(Date.parse(challenge.expires_at) - r.clock.nowMs).toBe(300_000)

      const token = await postJson(r.app, '/auth/token', tokenRequestFor(p, challenge))
      expect(token.statusCode).toBe(200)
      const body = token.json()
      expect(body.token_type).toBe('Bearer')
      const { payload } = await jwtVerify(body.token, Buffer.from(SECRET, 'base64'), {
        currentDate: r.clock.now(),
      })
      expect(payload).toMatchObject({ sub: p.did, aud: AUTHORITY, iss: `did:web:${AUTHORITY}` })
      expect(Date.parse(body.expires_at)).toBe((payload.exp as number) * 1000)
    })

    it('accepts a did:web agent whose key is in assertionMethod (ecdsa-p256 too)', async () => {
      const r = await startAuth()
      for (const algorithm of ['ed25519', 'ecdsa-p256'] as const) {
        const p = didWebProducer(`did:web:${algorithm}.example`, algorithm)
        r.dids.host([p])
        expect(await login(r.app, p)).toMatch(/^ey/)
      }
    })

    it('refuses a replayed challenge, and a failed attempt burns the challenge', async () => {
      const r = await startAuth()
      const p = didKeyProducer()
      const challenge = await requestChallenge(r.app, p.did)
      const request = tokenRequestFor(p, challenge)
      expect((await postJson(r.app, '/auth/token', request)).statusCode).toBe(200)
      const before = { ...(await countRows(r.database)), ...(await countAuthRows(r)) }
      const replay = await postJson(r.app, '/auth/token', request)
      expect(replay.statusCode).toBe(403)
      expect(replay.json().error.code).toBe('not_authorized')
      expect(replay.json()).not.toHaveProperty('token')
      // Nothing stored or revived: the used challenge stays gone, no context or revocation row appears.
      expect({ ...(await countRows(r.database)), ...(await countAuthRows(r)) }).toEqual(before)

      const second = await requestChallenge(r.app, p.did)
      const forged = tokenRequestFor(p, second, didKeyProducer())
      expect((await postJson(r.app, '/auth/token', forged)).statusCode).toBe(403)
      expect((await postJson(r.app, '/auth/token', tokenRequestFor(p, second))).statusCode).toBe(403)
    })

    it('refuses an expired challenge and one issued to another agent', async () => {
      const r = await startAuth({ challenge_ttl_seconds: 60 })
      const a = didKeyProducer()
      const b = didKeyProducer()
      const expired = await requestChallenge(r.app, a.did)
      r.clock.advance(61_000)
      expect((await postJson(r.app, '/auth/token', tokenRequestFor(a, expired))).statusCode).toBe(403)

      const forA = await requestChallenge(r.app, a.did)
      const stolen = await postJson(r.app, '/auth/token', tokenRequestFor(b, { ...forA }))
      expect(stolen.statusCode).toBe(403)
      expect(stolen.json().error.code).toBe('not_authorized')
    })

    it('refuses a key_id of another DID and a tampered expires_at', async () => {
      const r = await startAuth()
      const a = didKeyProducer()
      const b = didKeyProducer()
      const c1 = await requestChallenge(r.app, a.did)
      const otherKey = await postJson(r.app, '/auth/token', { ...tokenRequestFor(a, c1, b), key_id: b.keyId })
      expect(otherKey.statusCode).toBe(403)
      const c2 = await requestChallenge(r.app, a.did)
      const later = new Date(Date.parse(c2.expires_at) + 3_600_000).toISOString()
      const tampered = await postJson(r.app, '/auth/token', { ...tokenRequestFor(a, c2), expires_at: later })
      expect(tampered.statusCode).toBe(403)
    })

    it('answers 502 for a transient DID failure and 403 for a permanent one', async () => {
      const r = await startAuth()
      const down = didWebProducer('did:web:down.example')
      r.dids.answer(down.did, 'unreachable')
      const transient = await postJson(
        r.app,
        '/auth/token',
        tokenRequestFor(down, await requestChallenge(r.app, down.did)),
      )
      expect(transient.statusCode).toBe(502)
      expect(transient.json().error.code).toBe('key_resolution_unreachable')

      const error500 = didWebProducer('did:web:error.example')
      r.dids.answer(error500.did, { status: 500, body: new Uint8Array() })
      const c500 = await requestChallenge(r.app, error500.did)
      expect((await postJson(r.app, '/auth/token', tokenRequestFor(error500, c500))).statusCode).toBe(502)

      const gone = didWebProducer('did:web:gone.example')
      const notJson = didWebProducer('did:web:notjson.example')
      r.dids.answer(notJson.did, { status: 200, body: new TextEncoder().encode('<html>') })
      const unasserted = didWebProducer('did:web:unasserted.example')
      r.dids.host([unasserted], { assert: false })
      for (const p of [gone, notJson, unasserted]) {
        const res = await postJson(r.app, '/auth/token', tokenRequestFor(p, await requestChallenge(r.app, p.did)))
        expect(res.statusCode).toBe(403)
        expect(res.json().error.code).toBe('not_authorized')
      }
    })

    it('follows a did:web key rotation with one fresh fetch; a rate-limited refetch is 502', async () => {
      const dids = new FakeDidWeb()
      const clock = new TestClock()
      const r = await start({
        openDatabase: target.open,
        config: authConfig(),
        dids,
        clock,
        deps: {
          resolver: new DidResolver({
            fetchDidDocument: dids.fetchDidDocument,
            clock: () => clock.nowMs,
            minRefetchIntervalMs: 60_000,
            failureCacheMs: 0,
          }),
        },
      })
      const did = 'did:web:rotating.example'
      const old = didWebProducer(did, 'ed25519', 'key-1')
      const rotated = didWebProducer(did, 'ed25519', 'key-2')
      dids.host([old])
      await login(r.app, old)
      dids.host([rotated])
      const limited = await postJson(r.app, '/auth/token', tokenRequestFor(rotated, await requestChallenge(r.app, did)))
      expect(limited.statusCode).toBe(502)
      expect(limited.json().error.code).toBe('key_resolution_unreachable')
      clock.advance(60_000)
      expect(await login(r.app, rotated)).toMatch(/^ey/)
      // Once a fresh fetch confirms the old key is gone, it is a permanent refusal.
      clock.advance(60_000)
      const retired = await postJson(r.app, '/auth/token', tokenRequestFor(old, await requestChallenge(r.app, did)))
      expect(retired.statusCode).toBe(403)
    })

    it('refuses a challenge for a DID method it does not accept', async () => {
      const r = await startAuth({ did_methods: ['did:web'] })
      const res = await postJson(r.app, '/auth/challenge', { agent_id: didKeyProducer().did })
      expect(res.statusCode).toBe(403)
      expect((await postJson(r.app, '/auth/challenge', { agent_id: 'mailto:x@example.com' })).statusCode).toBe(403)
    })

    it('limits challenges per agent with 429 and Retry-After', async () => {
      const r = await startAuth()
      await r.close()
      const limited = await start({
        openDatabase: target.open,
        config: { ...authConfig(), limits: { challenge_rate_per_minute: 2 } },
      })
      const p = didKeyProducer()
      await requestChallenge(limited.app, p.did)
      await requestChallenge(limited.app, p.did)
      const third = await postJson(limited.app, '/auth/challenge', { agent_id: p.did })
      expect(third.statusCode).toBe(429)
      expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect((await postJson(limited.app, '/auth/challenge', { agent_id: didKeyProducer().did })).statusCode).toBe(200)
    })

    it('limits /auth/* per client IP and globally with 429 before reading the body', async () => {
      const r = await start({
        openDatabase: target.open,
        config: { ...authConfig(), rate_limit: { per_ip_per_minute: 2, global_per_minute: 3 } },
      })
      const from = (remoteAddress: string) =>
        r.app.inject({
          method: 'POST',
          url: '/auth/challenge',
          remoteAddress,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ agent_id: didKeyProducer().did }),
        })
      expect((await from('203.0.113.1')).statusCode).toBe(200)
      expect((await from('203.0.113.1')).statusCode).toBe(200)
      const perIp = await from('203.0.113.1')
      expect(perIp.statusCode).toBe(429)
      expect(perIp.json().error.code).toBe('rate_limited')
      expect(Number(perIp.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      // An unparseable body is still refused by the limit, not parsed.
      const garbage = await r.app.inject({
        method: 'POST',
        url: '/auth/token',
        remoteAddress: '203.0.113.1',
        payload: '{',
      })
      expect(garbage.statusCode).toBe(429)
      expect((await from('203.0.113.2')).statusCode).toBe(200)
      expect((await from('203.0.113.3')).statusCode).toBe(429)
      r.clock.advance(60_000)
      expect((await from('203.0.113.3')).statusCode).toBe(200)
    })

    it.each([
      ['no Content-Type', undefined, '{"agent_id":"did:web:a.example"}', 415, 'unsupported_media_type'],
      ['text/plain', 'text/plain', '{"agent_id":"did:web:a.example"}', 415, 'unsupported_media_type'],
      ['malformed JSON', 'application/json', '{"agent_id":', 400, 'schema_violation'],
      ['wrong shape', 'application/json', '{"agent":"did:web:a.example"}', 400, 'schema_violation'],
      ['extra member', 'application/json', '{"agent_id":"did:web:a.example","x":1}', 400, 'schema_violation'],
      ['not an object', 'application/json', '["did:web:a.example"]', 400, 'schema_violation'],
    ])('POST /auth/* with %s', async (_what, type, payload, status, code) => {
      const r = await startAuth()
      for (const url of ['/auth/challenge', '/auth/token', '/auth/token/revoke']) {
        const res = await r.app.inject({
          method: 'POST',
          url,
          headers: type === undefined ? {} : { 'content-type': type },
          payload,
        })
        if (url !== '/auth/challenge' && code === 'schema_violation' && payload.startsWith('{"agent_id":"')) continue
        expect(res.statusCode).toBe(status)
        expect(res.json().error.code).toBe(code)
      }
    })

    it('answers 413 for an oversized /auth body', async () => {
      const r = await start({
        openDatabase: target.open,
        config: { ...authConfig(), limits: { max_payload_bytes: 1024 } },
      })
      const res = await postJson(r.app, '/auth/challenge', { agent_id: `did:web:${'a'.repeat(2000)}` })
      expect(res.statusCode).toBe(413)
      expect(res.json().error.code).toBe('payload_too_large')
    })
  })

  describe('JWKS and capabilities', () => {
    it('serves an empty key set for HS256 and advertises bearer_jwt', async () => {
      const r = await startAuth()
      const jwks = await r.app.inject({ url: '/.well-known/jwks.json' })
      expect(jwks.statusCode).toBe(200)
      expect(jwks.headers['cache-control']).toBe('public, max-age=300')
      expect(jwks.json()).toEqual({ keys: [] })
      const caps = (await r.app.inject({ url: '/.well-known/acdp.json' })).json()
      expect(caps.read_authentication_methods).toEqual(['bearer_jwt'])
    })

    it('publishes the EdDSA public key, and issued tokens verify against it', async () => {
      const r = await start({
        openDatabase: target.open,
        config: { auth: { enabled: true, jwt_signing_alg: 'EdDSA', jwt_private_key_pem: edKeyPem(), jwt_kid: 'k1' } },
      })
      const jwks = (await r.app.inject({ url: '/.well-known/jwks.json' })).json()
      expect(jwks.keys).toHaveLength(1)
      expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: 'k1', alg: 'EdDSA' })
      expect(jwks.keys[0].d).toBeUndefined()
      const p = didKeyProducer()
      const token = await login(r.app, p)
      const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
        currentDate: r.clock.now(),
      })
      expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: 'k1' })
      expect(payload.sub).toBe(p.did)
      expect((await publishWith(r, p, token)).statusCode).toBe(201)
    })

    it('omits read_authentication_methods and mounts no /auth routes with auth off', async () => {
      const r = await start({ openDatabase: target.open })
      const caps = (await r.app.inject({ url: '/.well-known/acdp.json' })).json()
      expect(caps.read_authentication_methods).toBeUndefined()
      expect((await postJson(r.app, '/auth/challenge', { agent_id: 'did:web:a.example' })).statusCode).toBe(404)
    })

    it('still serves the key set with auth off: empty, public, cached 300 s (registry spec lists it unconditionally)', async () => {
      const r = await start({ openDatabase: target.open })
      const jwks = await r.app.inject({ url: '/.well-known/jwks.json' })
      expect(jwks.statusCode).toBe(200)
      expect(jwks.headers['content-type']).toMatch(/^application\/json/)
      expect(jwks.headers['cache-control']).toBe('public, max-age=300')
      expect(jwks.json()).toEqual({ keys: [] })
    })
  })

  describe('publish with a bearer', () => {
    it('publishes with the agent’s own token', async () => {
      const r = await startAuth()
      const p = didKeyProducer()
      const res = await publishWith(r, p, await login(r.app, p))
      expect(res.statusCode).toBe(201)
    })

    it('refuses a publish without a bearer, or as another agent, and stores nothing', async () => {
      const r = await startAuth()
      const a = didKeyProducer()
      const b = didKeyProducer()
      const tokenA = await login(r.app, a)
      const before = await countRows(r.database)
      for (const res of [await publishWith(r, b), await publishWith(r, b, tokenA)]) {
        expect(res.statusCode).toBe(403)
        expect(res.json().error.code).toBe('not_authorized')
      }
      expect(await countRows(r.database)).toEqual(before)
    })

    it('refuses an expired token (past the leeway) and accepts one inside it', async () => {
      const r = await startAuth({ token_ttl_seconds: 60, token_leeway_seconds: 10 })
      const p = didKeyProducer()
      const token = await login(r.app, p)
      r.clock.advance(65_000)
      expect((await publishWith(r, p, token)).statusCode).toBe(201)
      r.clock.advance(10_000)
      await expectRefused(r, p, token)
    })

    it('refuses alg none and an HS256 token keyed with the EdDSA public key', async () => {
      const pem = edKeyPem()
      const r = await start({
        openDatabase: target.open,
        config: { auth: { enabled: true, jwt_signing_alg: 'EdDSA', jwt_private_key_pem: pem } },
      })
      const p = didKeyProducer()
      const now = Math.floor(r.clock.nowMs / 1000)
      const claims = { sub: p.did, jti: 'forged', iat: now, exp: now + 600 }
      const none = new UnsecuredJWT(claims).setIssuer(`did:web:${AUTHORITY}`).setAudience(AUTHORITY).encode()
      const jwks = (await r.app.inject({ url: '/.well-known/jwks.json' })).json()
      const publicX = Buffer.from(jwks.keys[0].x, 'base64url')
      const { createPublicKey, createPrivateKey } = await import('node:crypto')
      const publicPem = createPublicKey(createPrivateKey(pem)).export({ format: 'pem', type: 'spki' }).toString()
      const confused = []
      for (const keyBytes of [publicX, Buffer.from(publicPem)]) {
        confused.push(
          await new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256' })
            .setIssuer(`did:web:${AUTHORITY}`)
            .setAudience(AUTHORITY)
            .sign(keyBytes),
        )
      }
      const before = await countRows(r.database)
      for (const token of [none, ...confused]) {
        const res = await publishWith(r, p, token)
        expect(res.statusCode).toBe(403)
        expect(res.json().error.code).toBe('not_authorized')
      }
      expect(await countRows(r.database)).toEqual(before)
    })
  })

  describe('token times and key headers (attacks)', () => {
    /** A token signed with the registry's own HS256 secret, with any header and claims the attacker likes. */
    async function forge(
      r: TestRegistry,
      p: ReturnType<typeof didKeyProducer>,
      options: { header?: Record<string, unknown>; claims?: Record<string, unknown> } = {},
    ): Promise<string> {
      const now = Math.floor(r.clock.nowMs / 1000)
      return new SignJWT({ sub: p.did, jti: randomUUID(), iat: now, exp: now + 600, ...options.claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...options.header })
        .setIssuer(`did:web:${AUTHORITY}`)
        .setAudience(AUTHORITY)
        .sign(Buffer.from(SECRET, 'base64'))
    }

    it('refuses an iat or nbf beyond the leeway and accepts both inside it', async () => {
      const r = await startAuth({ token_leeway_seconds: 10 })
      const p = didKeyProducer()
      const now = Math.floor(r.clock.nowMs / 1000)
      await expectRefused(r, p, await forge(r, p, { claims: { iat: now + 3600 } }))
      await expectRefused(r, p, await forge(r, p, { claims: { iat: now + 11 } }))
      await expectRefused(r, p, await forge(r, p, { claims: { nbf: now + 11 } }))
      expect(
        (await publishWith(r, p, await forge(r, p, { claims: { iat: now + 10, nbf: now + 10 } }))).statusCode,
      ).toBe(201)
    })

    it('refuses a kid naming no key it holds, under HS256 and EdDSA', async () => {
      const r = await startAuth()
      const p = didKeyProducer()
      await expectRefused(r, p, await forge(r, p, { header: { kid: 'someone-elses-key' } }))

      const pem = edKeyPem()
      const ed = await start({
        openDatabase: target.open,
        config: { auth: { enabled: true, jwt_signing_alg: 'EdDSA', jwt_private_key_pem: pem, jwt_kid: 'k1' } },
      })
      const now = Math.floor(ed.clock.nowMs / 1000)
      const signed = (kid: string) =>
        new SignJWT({ sub: p.did, jti: randomUUID(), iat: now, exp: now + 600 })
          .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid })
          .setIssuer(`did:web:${AUTHORITY}`)
          .setAudience(AUTHORITY)
          .sign(createPrivateKey(pem))
      await expectRefused(ed, p, await signed('k2'))
      expect((await publishWith(ed, p, await signed('k1'))).statusCode).toBe(201)
    })

    it('never follows jku or x5u: a token pointing at a loopback server is refused and the server sees nothing', async () => {
      const server = await startRecordingServer()
      try {
        const r = await startAuth()
        const p = didKeyProducer()
        for (const header of [{ jku: `${server.base}/jwks` }, { x5u: `${server.base}/cert` }]) {
          await expectRefused(r, p, await forge(r, p, { header }))
        }
        // Absence shown by a later event: our own probe is the first request the server ever received.
        await fetch(`${server.base}/probe`)
        expect(server.seen).toEqual(['/probe'])
      } finally {
        await server.close()
      }
    })
  })

  describe('reads with a bearer', () => {
    it('serves a restricted context to its audience and the producer, 404 to others, on every read route', async () => {
      const r = await startAuth()
      const producer = didKeyProducer()
      const member = didKeyProducer()
      const outsider = didKeyProducer()
      const body = signRequest(
        producer,
        minimalUnsigned(producer, { visibility: 'restricted', audience: [member.did], title: 'Secret plan' }),
      )
      const published = await publish(r.app, body, bearer(await login(r.app, producer)))
      expect(published.statusCode).toBe(201)
      const { ctx_id, lineage_id } = published.json()
      const tokens = {
        producer: await login(r.app, producer),
        member: await login(r.app, member),
        outsider: await login(r.app, outsider),
      }
      const read = (url: string, token?: string) => r.app.inject({ url, headers: token ? bearer(token) : {} })
      for (const url of [`/contexts/${enc(ctx_id)}`, `/lineages/${enc(lineage_id)}/current`]) {
        expect((await read(url, tokens.producer)).statusCode).toBe(200)
        expect((await read(url, tokens.member)).statusCode).toBe(200)
        expect((await read(url, tokens.outsider)).statusCode).toBe(404)
        expect((await read(url)).statusCode).toBe(404)
      }
      const versions = async (token?: string) => (await read(`/lineages/${enc(lineage_id)}`, token)).json()
      expect(await versions(tokens.member)).toHaveLength(1)
      expect(await versions(tokens.outsider)).toEqual([])
      const search = async (token?: string) =>
        (await read('/contexts/search?q=secret', token)).json().matches.map((x: { ctx_id: string }) => x.ctx_id)
      expect(await search(tokens.member)).toEqual([ctx_id])
      expect(await search(tokens.outsider)).toEqual([])
      const bad = await read(`/contexts/${enc(ctx_id)}`, 'not-a-jwt')
      expect(bad.statusCode).toBe(403)
    })
  })

  describe('lifecycle with a bearer', () => {
    it('accepts the producer’s bearer beside the event signature and refuses an invalid one', async () => {
      const r = await start({
        openDatabase: target.open,
        config: { ...authConfig(), lifecycle: { enabled: true } },
      })
      const p = didKeyProducer()
      const token = await login(r.app, p)
      const published = await publish(
        r.app,
        signRequest(p, minimalUnsigned(p, { visibility: 'private' })),
        bearer(token),
      )
      const { ctx_id } = published.json()
      const event = (eventType: 'retracted' | 'republished') =>
        signLifecycleEvent(
          {
            event_id: randomUUID(),
            ctx_id,
            event_type: eventType,
            occurred_at: new Date(r.clock.nowMs).toISOString(),
            actor: p.did,
          },
          { algorithm: p.algorithm, keyId: p.keyId, privateKey: p.privateKey },
        )
      const post = (action: string, body: unknown, headers: Record<string, string>) =>
        postJson(r.app, `/contexts/${enc(ctx_id)}/${action}`, body, headers)
      const forged = await post('retract', { event: event('retracted') }, bearer('forged.token.value'))
      expect(forged.statusCode).toBe(403)
      expect((await r.store.findContext(ctx_id, 'default'))?.retracted).toBe(false)
      const retracted = await post('retract', { event: event('retracted') }, bearer(token))
      expect(retracted.statusCode).toBe(200)
      expect(retracted.json().registry_state.status).toBe('retracted')
    })
  })

  describe('revocation', () => {
    it('revokes the presented token; it is then refused everywhere', async () => {
      const r = await startAuth()
      const p = didKeyProducer()
      const token = await login(r.app, p)
      const revoked = await postJson(r.app, '/auth/token/revoke', {}, bearer(token))
      expect(revoked.statusCode).toBe(204)
      const before = await countRows(r.database)
      expect((await publishWith(r, p, token)).statusCode).toBe(403)
      expect((await r.app.inject({ url: '/contexts/search?q=x', headers: bearer(token) })).statusCode).toBe(403)
      expect((await postJson(r.app, '/auth/token/revoke', {}, bearer(token))).statusCode).toBe(403)
      expect(await countRows(r.database)).toEqual(before)
      expect((await publishWith(r, p, await login(r.app, p))).statusCode).toBe(201)
    })

    it('lets an admin revoke by jti, refuses revoking another agent’s token, validates the reason', async () => {
      const r = await startAuth()
      const a = didKeyProducer()
      const b = didKeyProducer()
      const tokenA = await login(r.app, a)
      const tokenB = await login(r.app, b)
      const other = await postJson(r.app, '/auth/token/revoke', { token: tokenB }, bearer(tokenA))
      expect(other.statusCode).toBe(403)
      const badReason = await postJson(r.app, '/auth/token/revoke', { reason: 'bored' }, bearer(tokenA))
      expect(badReason.statusCode).toBe(400)
      expect(badReason.json().error.code).toBe('schema_violation')
      expect((await postJson(r.app, '/auth/token/revoke', {})).statusCode).toBe(403)

      const jti = (await jwtVerify(tokenB, Buffer.from(SECRET, 'base64'), { currentDate: r.clock.now() })).payload
        .jti as string
      const admin = await postJson(r.app, '/auth/token/revoke', { jti, reason: 'security_incident' }, bearer(ADMIN))
      expect(admin.statusCode).toBe(204)
      expect((await publishWith(r, b, tokenB)).statusCode).toBe(403)
      expect((await publishWith(r, a, tokenA)).statusCode).toBe(201)
      expect((await postJson(r.app, '/auth/token/revoke', {}, bearer(ADMIN))).statusCode).toBe(400)
    })
  })

  it('shares challenges and revocations between two instances on one database', async () => {
    const r = await startAuth()
    const second = await buildApp(r.config, { ...r.deps, authStore: createAuthStore(r.database) })
    await second.ready()
    try {
      const p = didKeyProducer()
      const challenge = await requestChallenge(r.app, p.did)
      const issued = await postJson(second, '/auth/token', tokenRequestFor(p, challenge))
      expect(issued.statusCode).toBe(200)
      expect((await postJson(r.app, '/auth/token', tokenRequestFor(p, challenge))).statusCode).toBe(403)
      const token = issued.json().token as string
      expect((await postJson(r.app, '/auth/token/revoke', {}, bearer(token))).statusCode).toBe(204)
      expect((await publishWith({ ...r, app: second }, p, token)).statusCode).toBe(403)
    } finally {
      await second.close()
    }
  })
})

/** Rows of the auth tables (challenges outstanding, revoked tokens): a refused request must not change them. */
async function countAuthRows(r: TestRegistry): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of ['auth_challenge', 'auth_revoked_token'] as const) {
    const row = await r.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    out[table] = Number(row.n)
  }
  return out
}
