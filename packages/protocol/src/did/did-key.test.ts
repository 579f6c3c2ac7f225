import { p256 } from '@noble/curves/nist.js'
import { base58 } from '@scure/base'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ed25519PublicKeyFromSeed } from '../signature/ed25519.js'
import { SMALL_ORDER_ENCODINGS } from '../signature/ed25519-small-order.js'
import { decodeMultibaseKey, didKeyKeyId, encodeDidKey, parseDidKey } from './did-key.js'
import { protocolErrorReasonOf as reason } from '../../test/support/rejection.js'

const didKeyOf = (bytes: number[] | Uint8Array) => `did:key:z${base58.encode(Uint8Array.from(bytes))}`
const edKey = ed25519PublicKeyFromSeed(new Uint8Array(32).fill(1))
const p256Compressed = p256.getPublicKey(new Uint8Array(32).fill(1), true)

describe('did:key', () => {
  it('encodes Ed25519 keys as z6Mk… and P-256 keys as zDn…', () => {
    expect(encodeDidKey({ algorithm: 'ed25519', publicKey: edKey })).toMatch(/^did:key:z6Mk/)
    expect(encodeDidKey({ algorithm: 'ecdsa-p256', publicKey: p256Compressed })).toMatch(/^did:key:zDn/)
  })

  it('encodes an uncompressed P-256 key as its compressed form', () => {
    const uncompressed = p256.getPublicKey(new Uint8Array(32).fill(1), false)
    expect(encodeDidKey({ algorithm: 'ecdsa-p256', publicKey: uncompressed })).toBe(
      encodeDidKey({ algorithm: 'ecdsa-p256', publicKey: p256Compressed }),
    )
  })

  it('round-trips any Ed25519 or P-256 key (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), (seed, useP256) => {
        const key = useP256
          ? {
              algorithm: 'ecdsa-p256' as const,
              publicKey: p256.getPublicKey(
                p256.utils.randomSecretKey(new Uint8Array([...seed, ...seed.subarray(0, 16)])),
                true,
              ),
            }
          : { algorithm: 'ed25519' as const, publicKey: ed25519PublicKeyFromSeed(seed) }
        const parsed = parseDidKey(encodeDidKey(key))
        expect(parsed.algorithm).toBe(key.algorithm)
        expect(Buffer.from(parsed.publicKey).equals(Buffer.from(key.publicKey))).toBe(true)
      }),
      { numRuns: 60 },
    )
  })

  it('builds the key_id whose fragment repeats the identifier', () => {
    const did = encodeDidKey({ algorithm: 'ed25519', publicKey: edKey })
    expect(didKeyKeyId(did)).toBe(`${did}#${did.slice(8)}`)
  })

  it.each([
    ['another DID method', 'did:web:example.com', 'invalid_did:not_did_key'],
    [
      'base64 multibase ("m")',
      `did:key:m${Buffer.from([0xed, 1, ...edKey]).toString('base64')}`,
      'invalid_did:unsupported_multibase',
    ],
    [
      'base58 without the z prefix',
      `did:key:${base58.encode(Uint8Array.from([0xed, 1, ...edKey]))}`,
      'invalid_did:unsupported_multibase',
    ],
    [
      'a character outside base58btc (0)',
      `did:key:z0${base58.encode(Uint8Array.from([0xed, 1, ...edKey])).slice(1)}`,
      'invalid_did:invalid_base58',
    ],
    ['an empty identifier', 'did:key:z', 'invalid_did:unsupported_multicodec'],
    [
      'the big-endian P-256 code 0x1200',
      didKeyOf([0x12, 0x00, ...p256Compressed]),
      'invalid_did:unsupported_multicodec',
    ],
    ['secp256k1-pub (0xe7 0x01)', didKeyOf([0xe7, 0x01, ...p256Compressed]), 'invalid_did:unsupported_multicodec'],
    ['x25519-pub (0xec 0x01)', didKeyOf([0xec, 0x01, ...edKey]), 'invalid_did:unsupported_multicodec'],
    ['a 31-byte Ed25519 key', didKeyOf([0xed, 0x01, ...edKey.subarray(1)]), 'invalid_did:invalid_key_length'],
    ['a 33-byte Ed25519 key', didKeyOf([0xed, 0x01, ...edKey, 0]), 'invalid_did:invalid_key_length'],
    [
      'an uncompressed P-256 key',
      didKeyOf([0x80, 0x24, ...p256.getPublicKey(new Uint8Array(32).fill(1), false)]),
      'invalid_did:invalid_key_length',
    ],
    [
      'a small-order Ed25519 key',
      didKeyOf([0xed, 0x01, ...SMALL_ORDER_ENCODINGS[0]!]),
      'invalid_did:invalid_public_key',
    ],
    [
      'an off-curve P-256 x',
      didKeyOf([0x80, 0x24, 0x02, ...new Uint8Array(32).fill(0xff)]),
      'invalid_did:invalid_public_key',
    ],
    ['an overlong identifier', `did:key:z${'1'.repeat(200)}`, 'invalid_did:too_long'],
  ])('refuses %s', (_name, did, expected) => {
    expect(reason(() => parseDidKey(did))).toBe(expected)
  })

  it('treats a leading "1" as a zero byte, so a padded spelling is a different (refused) key', () => {
    const canonical = `z${base58.encode(Uint8Array.from([0xed, 1, ...edKey]))}`
    expect(decodeMultibaseKey(canonical).algorithm).toBe('ed25519')
    expect(reason(() => decodeMultibaseKey(`z1${canonical.slice(1)}`))).toBe('invalid_did:unsupported_multicodec')
  })
})
