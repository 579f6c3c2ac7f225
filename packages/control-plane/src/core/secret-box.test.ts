import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createSecretKeyring, isSealedWithCurrentKey, openSecret, sealSecret } from './secret-box.js'

const random = (size: number) => new Uint8Array(randomBytes(size))
const KEY_A = new Uint8Array(32).fill(1)
const KEY_B = new Uint8Array(32).fill(2)

describe('secret box', () => {
  it('round-trips a secret and never contains the plaintext', () => {
    const ring = createSecretKeyring(KEY_A)
    const sealed = sealSecret(ring, 'webhook-secret-value', 'registry-enrollment:reg.example', random)
    expect(sealed).toMatch(/^acdp-sealed:v1:[0-9a-f]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/)
    expect(sealed).not.toContain('webhook-secret-value')
    expect(openSecret(ring, sealed, 'registry-enrollment:reg.example')).toBe('webhook-secret-value')
  })

  it('uses a fresh IV each time, so equal secrets seal differently', () => {
    const ring = createSecretKeyring(KEY_A)
    expect(sealSecret(ring, 's', 'c', random)).not.toBe(sealSecret(ring, 's', 'c', random))
  })

  it('refuses a value sealed for another context (copied onto another row)', () => {
    const ring = createSecretKeyring(KEY_A)
    const sealed = sealSecret(ring, 'secret', 'registry-enrollment:a.example', random)
    expect(() => openSecret(ring, sealed, 'registry-enrollment:b.example')).toThrow(/failed authentication/)
  })

  it('refuses a tampered ciphertext', () => {
    const ring = createSecretKeyring(KEY_A)
    const sealed = sealSecret(ring, 'secret', 'c', random)
    const parts = sealed.split(':')
    const body = Buffer.from(parts[4] as string, 'base64url')
    body[0] = (body[0] as number) ^ 1
    parts[4] = body.toString('base64url')
    expect(() => openSecret(ring, parts.join(':'), 'c')).toThrow(/failed authentication/)
  })

  it.each([
    ['empty', ''],
    ['wrong prefix', 'x:v1:a:b:c'],
    ['too few parts', 'acdp-sealed:v1:abc'],
  ])('refuses a malformed value (%s)', (_name, value) => {
    expect(() => openSecret(createSecretKeyring(KEY_A), value, 'c')).toThrow(/malformed/)
  })

  it('opens values sealed with a previous key after rotation, and reports them for re-sealing', () => {
    const old = createSecretKeyring(KEY_A)
    const sealed = sealSecret(old, 'secret', 'c', random)
    const rotated = createSecretKeyring(KEY_B, [KEY_A])
    expect(openSecret(rotated, sealed, 'c')).toBe('secret')
    expect(isSealedWithCurrentKey(rotated, sealed)).toBe(false)
    expect(isSealedWithCurrentKey(rotated, sealSecret(rotated, 'secret', 'c', random))).toBe(true)
  })

  it('names the missing key when the sealing key was dropped from the ring', () => {
    const sealed = sealSecret(createSecretKeyring(KEY_A), 'secret', 'c', random)
    expect(() => openSecret(createSecretKeyring(KEY_B), sealed, 'c')).toThrow(/SECRETS_ENCRYPTION_KEY_PREVIOUS/)
  })

  it('refuses keys that are not 32 bytes', () => {
    expect(() => createSecretKeyring(new Uint8Array(16))).toThrow(TypeError)
  })
})
