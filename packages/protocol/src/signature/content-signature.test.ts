import { describe, expect, it } from 'vitest'
import { sha256String } from '../hash/sha256.js'
import { SIGNATURE_ALGORITHMS } from './algorithm.js'
import { encodeBase64 } from './base64.js'
import { signContentHash, verifyContentSignature } from './content-signature.js'
import { generateSigningKey } from './generate-signing-key.js'
import { protocolErrorCodeOf as code } from '../../test/support/rejection.js'

const contentHash = sha256String('{"title":"x"}')

describe.each(SIGNATURE_ALGORITHMS)('content signatures with %s', (algorithm) => {
  const key = generateSigningKey(algorithm)
  const signature = signContentHash({ algorithm, privateKey: key.privateKey, contentHash })

  it('generates a fresh key pair of the documented shape', () => {
    expect(key.algorithm).toBe(algorithm)
    expect(key.privateKey.length).toBe(32)
    expect(key.publicKey.length).toBe(algorithm === 'ed25519' ? 32 : 33)
    expect(Buffer.from(generateSigningKey(algorithm).privateKey).equals(Buffer.from(key.privateKey))).toBe(false)
  })

  it('signs the ASCII content_hash string and verifies it', () => {
    expect(signature).toHaveLength(88)
    expect(verifyContentSignature({ algorithm, publicKey: key.publicKey, contentHash, signature })).toBe(true)
  })

  it('returns false for a well-formed signature over another hash', () => {
    const other = sha256String('other')
    expect(verifyContentSignature({ algorithm, publicKey: key.publicKey, contentHash: other, signature })).toBe(false)
  })

  it('returns false under another key', () => {
    const stranger = generateSigningKey(algorithm).publicKey
    expect(verifyContentSignature({ algorithm, publicKey: stranger, contentHash, signature })).toBe(false)
  })

  it.each([
    ['86 characters', (s: string) => s.slice(0, 86)],
    ['87 characters', (s: string) => s.slice(0, 87)],
    ['89 characters', (s: string) => `${s}=`],
    ['92 characters', (s: string) => `${s.slice(0, 86)}AAAAAA`],
    ['url-safe alphabet', (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/^./, '-')],
    ['non-zero trailing bits', (s: string) => s.slice(0, 85) + String.fromCharCode(s.charCodeAt(85) ^ 1) + '=='],
    ['wrong padding', (s: string) => `${s.slice(0, 86)}A=`],
    ['whitespace', (s: string) => ` ${s.slice(1)}`],
    ['empty', () => ''],
  ])('throws invalid_signature_encoding for %s', (_name, mangle) => {
    const mangled = mangle(signature)
    expect(
      code(() => verifyContentSignature({ algorithm, publicKey: key.publicKey, contentHash, signature: mangled })),
    ).toBe('invalid_signature_encoding')
  })

  it('throws invalid_signature_encoding for 63 or 65 signature bytes', () => {
    for (const length of [63, 65, 66]) {
      const text = encodeBase64(new Uint8Array(length))
      expect(
        code(() => verifyContentSignature({ algorithm, publicKey: key.publicKey, contentHash, signature: text })),
      ).toBe('invalid_signature_encoding')
    }
  })

  it('throws invalid_hash_format for a malformed content_hash', () => {
    for (const bad of ['sha256:' + 'A'.repeat(64), contentHash.slice(7), `${contentHash} `]) {
      expect(
        code(() => verifyContentSignature({ algorithm, publicKey: key.publicKey, contentHash: bad, signature })),
      ).toBe('invalid_hash_format')
      expect(code(() => signContentHash({ algorithm, privateKey: key.privateKey, contentHash: bad }))).toBe(
        'invalid_hash_format',
      )
    }
  })

  it('throws invalid_public_key for a key of the wrong length', () => {
    expect(
      code(() => verifyContentSignature({ algorithm, publicKey: new Uint8Array(31), contentHash, signature })),
    ).toBe('invalid_public_key')
  })
})

describe('algorithm handling', () => {
  it.each(['ED25519', 'rsa', 'ecdsa-p384', 'ed448', ''])('throws unsupported_algorithm for %j', (algorithm) => {
    const signature = 'A'.repeat(86) + '=='
    expect(
      code(() => verifyContentSignature({ algorithm, publicKey: new Uint8Array(32), contentHash, signature })),
    ).toBe('unsupported_algorithm')
  })

  it('does not accept an ed25519 signature as ecdsa-p256 or the reverse', () => {
    const ed = generateSigningKey('ed25519')
    const edSig = signContentHash({ algorithm: 'ed25519', privateKey: ed.privateKey, contentHash })
    const ec = generateSigningKey('ecdsa-p256')
    expect(
      verifyContentSignature({ algorithm: 'ecdsa-p256', publicKey: ec.publicKey, contentHash, signature: edSig }),
    ).toBe(false)
    expect(
      code(() =>
        verifyContentSignature({ algorithm: 'ecdsa-p256', publicKey: ed.publicKey, contentHash, signature: edSig }),
      ),
    ).toBe('invalid_public_key')
  })

  it('throws unsupported_algorithm when generating or signing with an unknown algorithm', () => {
    expect(code(() => generateSigningKey('rsa' as 'ed25519'))).toBe('unsupported_algorithm')
    expect(
      code(() => signContentHash({ algorithm: 'rsa' as 'ed25519', privateKey: new Uint8Array(32), contentHash })),
    ).toBe('unsupported_algorithm')
  })
})
