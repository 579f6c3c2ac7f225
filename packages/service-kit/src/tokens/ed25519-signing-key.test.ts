import { generateKeyPairSync } from 'node:crypto'
import { calculateJwkThumbprint, exportJWK, jwtVerify, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { loadEd25519SigningKey, tokenHeader } from './ed25519-signing-key.js'

const { privateKey } = generateKeyPairSync('ed25519')
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()

describe('loadEd25519SigningKey', () => {
  it('names an unconfigured key by its RFC 7638 SHA-256 thumbprint', async () => {
    const key = await loadEd25519SigningKey(pem, '')
    const publicJwk = await exportJWK(key.publicKey)
    expect(key.kid).toBe(await calculateJwkThumbprint(publicJwk, 'sha256'))
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('uses the configured kid and publishes the public JWK only', async () => {
    const key = await loadEd25519SigningKey(pem, 'k-2026')
    expect(key.kid).toBe('k-2026')
    expect(key.jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: key.jwk.x, kid: 'k-2026', alg: 'EdDSA', use: 'sig' })
    expect(key.jwk).not.toHaveProperty('d')
    expect(Buffer.from(key.rawPublicKey).toString('base64url')).toBe(key.jwk.x)
    expect(key.rawPublicKey.byteLength).toBe(32)
  })

  it('signs tokens its public half verifies', async () => {
    const key = await loadEd25519SigningKey(pem, '')
    const token = await new SignJWT({ sub: 'a' }).setProtectedHeader(tokenHeader('EdDSA', key.kid)).sign(key.privateKey)
    const { protectedHeader, payload } = await jwtVerify(token, key.publicKey, { algorithms: ['EdDSA'] })
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })
    expect(payload.sub).toBe('a')
  })

  it('refuses a PEM that holds no private key', async () => {
    const publicPem = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString()
    await expect(loadEd25519SigningKey(publicPem, '')).rejects.toThrow()
  })
})

describe('tokenHeader', () => {
  it('carries kid only when there is one', () => {
    expect(tokenHeader('HS256', undefined)).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(tokenHeader('EdDSA', 'k')).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: 'k' })
  })
})
