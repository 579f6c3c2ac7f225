import { createPublicKey, verify as opensslVerify } from 'node:crypto'
import { ed25519 } from '@noble/curves/ed25519.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ed25519PublicKeyFromSeed, findEd25519Weakness, signEd25519, verifyEd25519 } from './ed25519.js'
import {
  isNonCanonicalY,
  isSmallOrderEncoding,
  SMALL_ORDER_ENCODINGS,
  SMALL_ORDER_Y_VALUES,
} from './ed25519-small-order.js'
import { littleEndian, readLittleEndian } from '../../test/support/little-endian.js'

const P = 2n ** 255n - 19n
const L = 2n ** 252n + 27742317777372353535851937790883648493n
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

function withS(signature: Uint8Array, s: bigint): Uint8Array {
  const out = new Uint8Array(signature)
  out.set(littleEndian(s), 32)
  return out
}

const seed = new Uint8Array(32).fill(7)
const publicKey = ed25519PublicKeyFromSeed(seed)
const message = new TextEncoder().encode('sha256:' + 'ab'.repeat(32))
const signature = signEd25519(seed, message)

describe('Ed25519 small-order table (derived in ed25519-small-order.ts)', () => {
  it('derives 5 distinct y values and 14 distinct encodings', () => {
    expect(new Set(SMALL_ORDER_Y_VALUES).size).toBe(5)
    expect(new Set(SMALL_ORDER_ENCODINGS.map(hex)).size).toBe(14)
  })

  it('covers exactly the 8-element torsion subgroup, checked with an independent curve implementation', () => {
    const points = new Map<string, InstanceType<typeof ed25519.Point>>()
    for (const encoding of SMALL_ORDER_ENCODINGS) {
      const y = readLittleEndian(encoding) & ((1n << 255n) - 1n)
      const x0 = encoding[31]! >> 7
      const reducedY = y >= P ? y - P : y
      // The x = 0 points have no valid "negative" spelling; every other spelling must decode.
      const xIsZero = reducedY === 1n || reducedY === P - 1n
      if (xIsZero && x0 === 1) continue
      const canonical = littleEndian(reducedY)
      if (x0) canonical[31]! |= 0x80
      const point = ed25519.Point.fromBytes(canonical)
      expect(point.isSmallOrder(), hex(encoding)).toBe(true)
      expect(point.multiply(8n).is0() || point.is0()).toBe(true)
      points.set(point.toHex(), point)
    }
    expect(points.size).toBe(8)
  })

  it('lists the published order-8 encodings (cross-check against the literature)', () => {
    const listed = new Set(SMALL_ORDER_ENCODINGS.map(hex))
    // The canonical order-8 encodings as printed in e.g. libsodium's blocklist.
    for (const known of [
      '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
      'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
    ]) {
      expect(listed.has(known)).toBe(true)
    }
  })

  it('flags non-canonical y exactly at y >= p', () => {
    expect(isNonCanonicalY(littleEndian(P - 1n))).toBe(false)
    expect(isNonCanonicalY(littleEndian(P))).toBe(true)
    expect(isNonCanonicalY(littleEndian(2n ** 255n - 1n))).toBe(true)
    const signed = littleEndian(P)
    signed[31]! |= 0x80
    expect(isNonCanonicalY(signed)).toBe(true)
  })
})

describe('verifyEd25519 strictness', () => {
  it('accepts a genuine signature', () => {
    expect(verifyEd25519(publicKey, message, signature)).toBe(true)
  })

  it('refuses the identity-key forgery (A = R = identity, S = 0) that verifies every message mathematically', () => {
    const identity = new Uint8Array(32)
    identity[0] = 1
    const forged = new Uint8Array(64)
    forged[0] = 1
    const anyMessage = new TextEncoder().encode('any message at all')
    // It really is a valid signature under the permissive (ZIP-215) equation...
    expect(ed25519.verify(forged, anyMessage, identity, { zip215: true })).toBe(true)
    // ...and the strictness rules refuse it by themselves, with no OpenSSL involved.
    expect(findEd25519Weakness(identity, forged)).toBe('small_order_public_key')
    expect(verifyEd25519(identity, anyMessage, forged)).toBe(false)
  })

  it.each(SMALL_ORDER_ENCODINGS.map((e) => [hex(e)]))('refuses small-order public key %s', (encoding) => {
    const key = Buffer.from(encoding, 'hex')
    expect(findEd25519Weakness(key, signature)).toBe('small_order_public_key')
    expect(verifyEd25519(key, message, signature)).toBe(false)
  })

  it.each(SMALL_ORDER_ENCODINGS.map((e) => [hex(e)]))('refuses small-order R %s', (encoding) => {
    const forged = new Uint8Array(signature)
    forged.set(Buffer.from(encoding, 'hex'), 0)
    expect(findEd25519Weakness(publicKey, forged)).toBe('small_order_r')
    expect(verifyEd25519(publicKey, message, forged)).toBe(false)
  })

  it('refuses non-canonical spellings of A and R that are not small-order', () => {
    const nonCanonical = littleEndian(P + 2n)
    expect(findEd25519Weakness(nonCanonical, signature)).toBe('non_canonical_public_key')
    const forged = new Uint8Array(signature)
    forged.set(nonCanonical, 0)
    expect(findEd25519Weakness(publicKey, forged)).toBe('non_canonical_r')
  })

  it.each([
    ['S = 0', 0n, null],
    ['S = L - 1', L - 1n, null],
    ['S = L', L, 'non_canonical_s'],
    ['S = L + 1', L + 1n, 'non_canonical_s'],
    ['S = 2^256 - 1', 2n ** 256n - 1n, 'non_canonical_s'],
  ])('S boundary: %s', (_name, s, weakness) => {
    expect(findEd25519Weakness(publicKey, withS(signature, s))).toBe(weakness)
  })

  it('refuses the S + L malleated twin of a valid signature', () => {
    const twin = withS(signature, readLittleEndian(signature.subarray(32)) + L)
    expect(findEd25519Weakness(publicKey, twin)).toBe('non_canonical_s')
    expect(verifyEd25519(publicKey, message, twin)).toBe(false)
  })

  it.each([
    ['short key', new Uint8Array(31), signature],
    ['long key', new Uint8Array(33), signature],
    ['short signature', publicKey, signature.subarray(0, 63)],
    ['long signature', publicKey, new Uint8Array(65)],
  ])('returns false for %s', (_name, key, sig) => {
    expect(verifyEd25519(key, message, sig)).toBe(false)
  })

  it('returns false for a key that is not a curve point', () => {
    // y = 2 has no x on edwards25519 (x² = 3/(4d + 1) is not a square).
    const offCurve = littleEndian(2n)
    expect(ed25519.utils.isValidPublicKey(offCurve)).toBe(false)
    expect(verifyEd25519(offCurve, message, signature)).toBe(false)
  })

  it('matches raw OpenSSL on genuine signatures', () => {
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey])
    expect(opensslVerify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature)).toBe(
      true,
    )
  })

  it('round-trips sign and verify for any seed and message (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), (s, m) => {
        const pub = ed25519PublicKeyFromSeed(s)
        const sig = signEd25519(s, m)
        expect(hex(pub)).toBe(hex(ed25519.getPublicKey(s)))
        expect(hex(sig)).toBe(hex(ed25519.sign(m, s)))
        expect(verifyEd25519(pub, m, sig)).toBe(true)
      }),
      { numRuns: 100 },
    )
  })

  it('fails for any single bit flip in the message or the signature (property)', () => {
    fc.assert(
      fc.property(fc.nat(message.length * 8 - 1), fc.nat(signature.length * 8 - 1), (messageBit, signatureBit) => {
        const m = new Uint8Array(message)
        m[messageBit >> 3]! ^= 1 << (messageBit & 7)
        expect(verifyEd25519(publicKey, m, signature)).toBe(false)
        const s = new Uint8Array(signature)
        s[signatureBit >> 3]! ^= 1 << (signatureBit & 7)
        expect(verifyEd25519(publicKey, message, s)).toBe(false)
      }),
      { numRuns: 200 },
    )
  })

  it('detects small-order encodings only at the exact bytes', () => {
    const key = new Uint8Array(SMALL_ORDER_ENCODINGS[0]!)
    key[5] = 1
    expect(isSmallOrderEncoding(key)).toBe(false)
  })

  it('refuses a seed of the wrong size as caller misuse', () => {
    expect(() => signEd25519(new Uint8Array(31), message)).toThrow(TypeError)
    expect(() => ed25519PublicKeyFromSeed(new Uint8Array(33))).toThrow(TypeError)
  })
})

describe('signEd25519 private-key reuse', () => {
  it('signs with the bytes the seed array holds now, even after they changed', () => {
    const seed = new Uint8Array(32).fill(3)
    const message = new TextEncoder().encode('sha256:reuse')
    const first = signEd25519(seed, message)
    expect(signEd25519(seed, message)).toEqual(first)
    seed.fill(4)
    const second = signEd25519(seed, message)
    expect(second).not.toEqual(first)
    expect(verifyEd25519(ed25519PublicKeyFromSeed(seed), message, second)).toBe(true)
  })
})
