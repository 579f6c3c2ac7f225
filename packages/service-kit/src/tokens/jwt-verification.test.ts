import { generateKeyPairSync } from 'node:crypto'
import { type JWTPayload, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { type JwtCheck, JwtRefusal, verifyJwt } from './jwt-verification.js'

const { privateKey, publicKey } = generateKeyPairSync('ed25519')
const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef')
const now = new Date('2026-12-04T12:00:00Z')
const nowS = Math.floor(now.getTime() / 1000)

const check: JwtCheck = {
  algorithm: 'EdDSA',
  issuer: 'did:web:reg.example',
  audience: 'reg.example',
  requiredClaims: ['sub', 'jti', 'exp'],
  leewaySeconds: 30,
  now,
  expectedKid: 'k1',
  acceptsTenant: (tenant) => /^[a-z]+$/.test(tenant),
}

const base: JWTPayload = {
  iss: 'did:web:reg.example',
  aud: 'reg.example',
  sub: 'did:key:z6Mk',
  jti: 'j1',
  iat: nowS,
  exp: nowS + 300,
}

function sign(claims: JWTPayload, header: Record<string, unknown> = { alg: 'EdDSA', kid: 'k1' }): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', ...header }).sign(privateKey)
}

describe('verifyJwt', () => {
  it('returns the claims, header and tenant of a good token', async () => {
    const checked = await verifyJwt(await sign({ ...base, tenant: 'acme' }), publicKey, check)
    expect(checked.claims).toMatchObject({ sub: 'did:key:z6Mk', jti: 'j1', exp: nowS + 300 })
    expect(checked.header).toEqual({ alg: 'EdDSA', kid: 'k1' })
    expect(checked.tenant).toBe('acme')
  })

  it('refuses another issuer, another audience, an expired token and a missing jti', async () => {
    await expect(verifyJwt(await sign({ ...base, iss: 'did:web:evil' }), publicKey, check)).rejects.toThrow(/iss/)
    await expect(verifyJwt(await sign({ ...base, aud: 'evil' }), publicKey, check)).rejects.toThrow(/aud/)
    await expect(verifyJwt(await sign({ ...base, exp: nowS - 31 }), publicKey, check)).rejects.toThrow(/exp/)
    const { jti: _jti, ...noJti } = base
    await expect(verifyJwt(await sign(noJti), publicKey, check)).rejects.toThrow(/jti/)
  })

  it('honours the leeway for exp and refuses an iat beyond it', async () => {
    await expect(verifyJwt(await sign({ ...base, exp: nowS - 29 }), publicKey, check)).resolves.toBeDefined()
    await expect(verifyJwt(await sign({ ...base, iat: nowS + 31 }), publicKey, check)).rejects.toThrow(
      new JwtRefusal('issued_in_future'),
    )
  })

  it('refuses a kid other than the key’s and a key-reference header', async () => {
    await expect(verifyJwt(await sign(base, { kid: 'k2' }), publicKey, check)).rejects.toThrow('unknown_kid')
    await expect(
      verifyJwt(await sign(base, { kid: 'k1', jku: 'https://evil.example/jwks' }), publicKey, check),
    ).rejects.toThrow('key_reference_header')
  })

  it('pins the algorithm: an HS256 token is refused where EdDSA is expected', async () => {
    const hs = await new SignJWT(base).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(secret)
    await expect(verifyJwt(hs, publicKey, check)).rejects.toThrow()
    const hsCheck = { ...check, algorithm: 'HS256', expectedKid: undefined }
    const plain = await new SignJWT(base).setProtectedHeader({ alg: 'HS256' }).sign(secret)
    await expect(verifyJwt(plain, secret, hsCheck)).resolves.toBeDefined()
  })

  it('refuses a sub of the wrong type and a tenant the server would not sign', async () => {
    await expect(verifyJwt(await sign({ ...base, tenant: 'ACME!' }), publicKey, check)).rejects.toThrow('tenant')
    await expect(verifyJwt(await sign({ ...base, tenant: 7 }), publicKey, check)).rejects.toThrow('tenant')
    await expect(
      verifyJwt(await sign({ ...base, sub: 5 } as unknown as JWTPayload), publicKey, check),
    ).rejects.toThrow()
  })
})
