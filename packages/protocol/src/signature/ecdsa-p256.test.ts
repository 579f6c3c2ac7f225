import { p256 } from '@noble/curves/nist.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decompressP256PublicKey } from '../keys/p256-point.js'
import { p256PublicKeyFromPrivate, signEcdsaP256, verifyEcdsaP256 } from './ecdsa-p256.js'

const N = p256.Point.CURVE().n
const toBytes32 = (value: bigint) => Buffer.from(value.toString(16).padStart(64, '0'), 'hex')
const fromBytes = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`)

const privateKey = new Uint8Array(32).fill(0x11)
const compressed = p256PublicKeyFromPrivate(privateKey)
const uncompressed = p256PublicKeyFromPrivate(privateKey, false)
const message = new TextEncoder().encode('sha256:' + 'cd'.repeat(32))
const signature = signEcdsaP256(privateKey, message)

function withRS(r: bigint, s: bigint): Uint8Array {
  return new Uint8Array(Buffer.concat([toBytes32(r), toBytes32(s)]))
}

describe('ECDSA P-256', () => {
  it('derives compressed and uncompressed public keys of the same point', () => {
    expect(compressed.length).toBe(33)
    expect(uncompressed.length).toBe(65)
    expect(Buffer.from(decompressP256PublicKey(compressed)).equals(Buffer.from(uncompressed))).toBe(true)
  })

  it('signs deterministically (RFC 6979) and low-S', () => {
    expect(Buffer.from(signEcdsaP256(privateKey, message)).equals(Buffer.from(signature))).toBe(true)
    expect(fromBytes(signature.subarray(32)) <= N / 2n).toBe(true)
  })

  it('verifies under the compressed and the uncompressed key', () => {
    expect(verifyEcdsaP256(compressed, message, signature)).toBe(true)
    expect(verifyEcdsaP256(uncompressed, message, signature)).toBe(true)
  })

  it('accepts the high-S twin (no low-S rule in registries/signature-algorithms.md)', () => {
    const r = fromBytes(signature.subarray(0, 32))
    const s = fromBytes(signature.subarray(32))
    expect(verifyEcdsaP256(compressed, message, withRS(r, N - s))).toBe(true)
  })

  it('refuses a DER-encoded signature of the same r and s', () => {
    const der = p256.Signature.fromBytes(signature, 'compact').toBytes('der')
    expect(der.length).not.toBe(64)
    expect(verifyEcdsaP256(compressed, message, der)).toBe(false)
  })

  it.each([
    ['r = 0', 0n, 1n],
    ['s = 0', 1n, 0n],
    ['r = n', N, 1n],
    ['s = n', 1n, N],
    ['r = n + 1', N + 1n, 1n],
    ['s = 2^256 - 1', 1n, 2n ** 256n - 1n],
  ])('refuses %s', (_name, r, s) => {
    expect(verifyEcdsaP256(compressed, message, withRS(r, s))).toBe(false)
  })

  it.each([
    ['empty key', new Uint8Array(0)],
    ['raw 64-byte x||y', uncompressed.subarray(1)],
    ['wrong prefix', Uint8Array.from([0x05, ...compressed.subarray(1)])],
    ['off-curve uncompressed point', Uint8Array.from([...uncompressed.subarray(0, 64), uncompressed[64]! ^ 1])],
  ])('returns false for %s', (_name, key) => {
    expect(verifyEcdsaP256(key, message, signature)).toBe(false)
  })

  it('round-trips for any key and message (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: N - 1n }), fc.uint8Array({ maxLength: 200 }), (scalar, m) => {
        const key = new Uint8Array(toBytes32(scalar))
        const sig = signEcdsaP256(key, m)
        expect(verifyEcdsaP256(p256PublicKeyFromPrivate(key), m, sig)).toBe(true)
        expect(p256.verify(sig, m, p256PublicKeyFromPrivate(key), { lowS: true })).toBe(true)
      }),
      { numRuns: 50 },
    )
  })

  it('fails for any single bit flip in the message or the signature (property)', () => {
    fc.assert(
      fc.property(fc.nat(message.length * 8 - 1), fc.nat(signature.length * 8 - 1), (messageBit, signatureBit) => {
        const m = new Uint8Array(message)
        m[messageBit >> 3]! ^= 1 << (messageBit & 7)
        expect(verifyEcdsaP256(compressed, m, signature)).toBe(false)
        const s = new Uint8Array(signature)
        s[signatureBit >> 3]! ^= 1 << (signatureBit & 7)
        expect(verifyEcdsaP256(compressed, message, s)).toBe(false)
      }),
      { numRuns: 200 },
    )
  })

  it.each([
    ['zero scalar', new Uint8Array(32)],
    ['scalar n', new Uint8Array(toBytes32(N))],
    ['short key', new Uint8Array(31).fill(1)],
  ])('refuses a %s private key as caller misuse', (_name, key) => {
    expect(() => signEcdsaP256(key, message)).toThrow(TypeError)
    expect(() => p256PublicKeyFromPrivate(key)).toThrow(TypeError)
  })
})
