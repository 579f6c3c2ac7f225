import { p256 } from '@noble/curves/nist.js'
import { describe, expect, it } from 'vitest'
import { isProtocolError } from '../errors.js'
import { sha256String } from '../hash/sha256.js'
import { ed25519PublicKeyFromSeed } from '../signature/ed25519.js'
import { SMALL_ORDER_ENCODINGS } from '../signature/ed25519-small-order.js'
import { computeKeyFingerprint } from './fingerprint.js'
import { compressP256PublicKey, decompressP256PublicKey } from './p256-point.js'
import { normalizePublicKey } from './public-key.js'

function reason(fn: () => unknown): unknown {
  try {
    fn()
    return undefined
  } catch (error) {
    if (isProtocolError(error)) return `${error.code}:${error.details?.['reason']}`
    throw error
  }
}

const edKey = ed25519PublicKeyFromSeed(new Uint8Array(32).fill(5))
const p256Compressed = p256.getPublicKey(new Uint8Array(32).fill(5), true)
const p256Uncompressed = p256.getPublicKey(new Uint8Array(32).fill(5), false)
/** Compressed encoding of the smallest x for which x³ − 3x + b has no square root (no curve point). */
const p256NoPoint = (() => {
  for (let x = 1; ; x++) {
    const candidate = Uint8Array.from([2, ...new Uint8Array(31), x])
    try {
      p256.Point.fromBytes(candidate)
    } catch {
      return candidate
    }
  }
})()

describe('normalizePublicKey', () => {
  it('keeps a valid Ed25519 key as a copy', () => {
    const out = normalizePublicKey({ algorithm: 'ed25519', publicKey: edKey })
    expect(out.publicKey).toEqual(edKey)
    expect(out.publicKey).not.toBe(edKey)
  })

  it('compresses an uncompressed P-256 key and keeps a compressed one', () => {
    expect(normalizePublicKey({ algorithm: 'ecdsa-p256', publicKey: p256Uncompressed }).publicKey).toEqual(
      p256Compressed,
    )
    expect(normalizePublicKey({ algorithm: 'ecdsa-p256', publicKey: p256Compressed }).publicKey).toEqual(p256Compressed)
  })

  it.each([
    ['short Ed25519 key', 'ed25519', new Uint8Array(31), 'invalid_public_key:invalid_length'],
    ['small-order Ed25519 key', 'ed25519', SMALL_ORDER_ENCODINGS[0]!, 'invalid_public_key:small_order'],
    [
      'non-canonical Ed25519 key',
      'ed25519',
      Uint8Array.from([0xef, ...new Uint8Array(30).fill(0xff), 0x7f]),
      'invalid_public_key:non_canonical',
    ],
    [
      'off-curve Ed25519 key',
      'ed25519',
      Uint8Array.from([2, ...new Uint8Array(31)]),
      'invalid_public_key:not_on_curve',
    ],
    ['raw x||y P-256 key', 'ecdsa-p256', p256Uncompressed.subarray(1), 'invalid_public_key:invalid_encoding'],
    ['P-256 x with no curve point', 'ecdsa-p256', p256NoPoint, 'invalid_public_key:not_on_curve'],
    ['unknown algorithm', 'rsa', edKey, 'unsupported_algorithm:undefined'],
  ] as const)('refuses a %s', (_name, algorithm, publicKey, expected) => {
    expect(reason(() => normalizePublicKey({ algorithm: algorithm as 'ed25519', publicKey }))).toBe(expected)
  })
})

describe('P-256 point forms', () => {
  it('compresses with the y-parity prefix and decompresses back', () => {
    const y = p256Uncompressed[64]!
    expect(p256Compressed[0]).toBe(y & 1 ? 0x03 : 0x02)
    expect(compressP256PublicKey(p256Uncompressed)).toEqual(p256Compressed)
    expect(decompressP256PublicKey(p256Compressed)).toEqual(p256Uncompressed)
  })

  it('refuses an off-curve uncompressed point', () => {
    const bad = new Uint8Array(p256Uncompressed)
    bad[64]! ^= 1
    expect(reason(() => compressP256PublicKey(bad))).toBe('invalid_public_key:not_on_curve')
  })
})

describe('computeKeyFingerprint', () => {
  it('hashes the raw key bytes only', () => {
    expect(computeKeyFingerprint({ algorithm: 'ed25519', publicKey: edKey })).toBe(sha256String(edKey))
  })

  it('gives the same fingerprint for the compressed and uncompressed P-256 forms', () => {
    const expected = sha256String(p256Compressed)
    expect(computeKeyFingerprint({ algorithm: 'ecdsa-p256', publicKey: p256Compressed })).toBe(expected)
    expect(computeKeyFingerprint({ algorithm: 'ecdsa-p256', publicKey: p256Uncompressed })).toBe(expected)
  })

  it('refuses a small-order Ed25519 key', () => {
    expect(reason(() => computeKeyFingerprint({ algorithm: 'ed25519', publicKey: SMALL_ORDER_ENCODINGS[3]! }))).toBe(
      'invalid_public_key:small_order',
    )
  })
})
