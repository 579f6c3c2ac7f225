import { randomBytes } from 'node:crypto'
import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../core/config.js'
import { BearerTokens, loadTokenSigningKeys } from './bearer-tokens.js'

async function tokensAt(clock: { ms: number }) {
  const config = resolveConfig({
    registry: { authority: 'registry.example.com' },
    auth: { enabled: true, jwt_secret: Buffer.alloc(32, 5).toString('base64'), token_ttl_seconds: 60 },
  })
  const keys = await loadTokenSigningKeys(config.auth, (n) => new Uint8Array(randomBytes(n)))
  return new BearerTokens({
    keys,
    issuer: 'did:web:registry.example.com',
    audience: 'registry.example.com',
    ttlSeconds: 60,
    leewaySeconds: 30,
    clock: () => new Date(clock.ms),
    random: (n) => new Uint8Array(randomBytes(n)),
  })
}

describe('BearerTokens verification cache', () => {
  it('serves a token verified before until exp + leeway, then refuses it', async () => {
    const clock = { ms: Date.parse('2026-05-01T12:00:00.000Z') }
    const tokens = await tokensAt(clock)
    const issued = await tokens.issue('did:key:z6MkAgent', 'did:key:z6MkAgent#z6MkAgent')
    const first = await tokens.verify(issued.token)
    expect(first.jti).toBe(issued.jti)
    clock.ms += (60 + 29) * 1000
    expect(await tokens.verify(issued.token)).toEqual(first)
    clock.ms += 1000
    await expect(tokens.verify(issued.token)).rejects.toMatchObject({ code: 'not_authorized' })
    // And stays refused (the entry is gone, the full check refuses it too).
    await expect(tokens.verify(issued.token)).rejects.toMatchObject({ code: 'not_authorized' })
  })

  it('never serves a different text from the cache: a tampered signature is checked and refused', async () => {
    const clock = { ms: Date.parse('2026-05-01T12:00:00.000Z') }
    const tokens = await tokensAt(clock)
    const issued = await tokens.issue('did:key:z6MkAgent', 'did:key:z6MkAgent#z6MkAgent')
    await tokens.verify(issued.token)
    const [header, payload, signature] = issued.token.split('.') as [string, string, string]
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'AB' : 'AA'}`
    await expect(tokens.verify(`${header}.${payload}.${flipped}`)).rejects.toMatchObject({ code: 'not_authorized' })
    // A payload swapped under the cached token's signature is refused as well.
    const otherPayload = Buffer.from(JSON.stringify({ sub: 'did:key:z6MkOther' })).toString('base64url')
    await expect(tokens.verify(`${header}.${otherPayload}.${signature}`)).rejects.toMatchObject({
      code: 'not_authorized',
    })
  })
})

describe('HS256 issuance', () => {
  it('signs exactly the token jose would sign for the same claims', async () => {
    const secretB64 = Buffer.alloc(32, 5).toString('base64')
    const config = resolveConfig({
      registry: { authority: 'registry.example.com' },
      auth: { enabled: true, jwt_secret: secretB64 },
    })
    const fixedRandom = (n: number) => new Uint8Array(n).fill(7)
    const nowMs = Date.parse('2026-05-01T12:00:00.000Z')
    const tokens = new BearerTokens({
      keys: await loadTokenSigningKeys(config.auth, fixedRandom),
      issuer: 'did:web:registry.example.com',
      audience: 'registry.example.com',
      ttlSeconds: 3600,
      leewaySeconds: 30,
      clock: () => new Date(nowMs),
      random: fixedRandom,
    })
    const issued = await tokens.issue('did:key:z6MkAgent', 'did:key:z6MkAgent#z6MkAgent')
    const iat = nowMs / 1000
    const expected = await new SignJWT({
      acdp: { registry: 'registry.example.com', key_id: 'did:key:z6MkAgent#z6MkAgent' },
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('did:web:registry.example.com')
      .setSubject('did:key:z6MkAgent')
      .setAudience('registry.example.com')
      .setJti(Buffer.from(fixedRandom(16)).toString('base64url'))
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(Buffer.from(secretB64, 'base64'))
    expect(issued.token).toBe(expected)
    expect(issued.expiresAt).toBe('2026-05-01T13:00:00Z')
    expect((await tokens.verify(issued.token)).subject).toBe('did:key:z6MkAgent')
  })
})
