/**
 * verifyContentSignatureAsync (Ed25519 on libuv's pool) must answer exactly like the synchronous
 * verifyContentSignature: same boolean for every signature, same ProtocolError code for every malformed input.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isProtocolError } from '../errors.js'
import {
  ed25519PublicKeyFromSeed,
  encodeBase64,
  SMALL_ORDER_ENCODINGS,
  signContentHash,
  verifyContentSignature,
  verifyContentSignatureAsync,
} from './index.js'
import { littleEndian, readLittleEndian } from '../../test/support/little-endian.js'

const L = 2n ** 252n + 27742317777372353535851937790883648493n
const seed = new Uint8Array(32).fill(9)
const publicKey = ed25519PublicKeyFromSeed(seed)
const contentHash = `sha256:${'ab'.repeat(32)}`
const signature = signContentHash({ algorithm: 'ed25519', privateKey: seed, contentHash })
const signatureBytes = new Uint8Array(Buffer.from(signature, 'base64'))

/** `{ valid }` or `{ code }` of the protocol's synchronous verifier. */
function expected(key: Uint8Array, hash: string, value: string) {
  try {
    return {
      valid: verifyContentSignature({ algorithm: 'ed25519', publicKey: key, contentHash: hash, signature: value }),
    }
  } catch (error) {
    return { code: isProtocolError(error) ? error.code : 'other' }
  }
}

async function actual(key: Uint8Array, hash: string, value: string) {
  try {
    return {
      valid: await verifyContentSignatureAsync({
        algorithm: 'ed25519',
        publicKey: key,
        contentHash: hash,
        signature: value,
      }),
    }
  } catch (error) {
    return { code: isProtocolError(error) ? error.code : 'other' }
  }
}

const withS = (s: bigint) => {
  const out = new Uint8Array(signatureBytes)
  out.set(littleEndian(s), 32)
  return encodeBase64(out)
}
const withR = (r: Uint8Array) => {
  const out = new Uint8Array(signatureBytes)
  out.set(r, 0)
  return encodeBase64(out)
}

describe('verifyContentSignatureAsync', () => {
  it.each([
    ['a valid signature', publicKey, contentHash, signature, { valid: true }],
    ['another message', publicKey, `sha256:${'cd'.repeat(32)}`, signature, { valid: false }],
    [
      'the S + L malleated twin',
      publicKey,
      contentHash,
      withS(readLittleEndian(signatureBytes.subarray(32)) + L),
      { valid: false },
    ],
    [
      'the identity forgery (A = R = identity, S = 0)',
      SMALL_ORDER_ENCODINGS[0]!,
      contentHash,
      withS(0n),
      { valid: false },
    ],
    ['a small-order R', publicKey, contentHash, withR(SMALL_ORDER_ENCODINGS[3]!), { valid: false }],
    [
      'a 64-character signature',
      publicKey,
      contentHash,
      signature.slice(0, 64),
      { code: 'invalid_signature_encoding' },
    ],
    [
      'non-zero trailing base64 bits',
      publicKey,
      contentHash,
      `${signature.slice(0, 85)}B==`,
      { code: 'invalid_signature_encoding' },
    ],
    ['url-safe base64', publicKey, contentHash, `-${signature.slice(1)}`, { code: 'invalid_signature_encoding' }],
    ['a 31-byte public key', publicKey.subarray(1), contentHash, signature, { code: 'invalid_public_key' }],
    ['a malformed content_hash', publicKey, 'sha256:XYZ', signature, { code: 'invalid_hash_format' }],
  ])('answers %s like the synchronous verifier', async (_name, key, hash, value, answer) => {
    expect(expected(key, hash, value)).toEqual(answer)
    expect(await actual(key, hash, value)).toEqual(answer)
  })

  it('refuses every small-order public key, as the synchronous verifier does', async () => {
    for (const key of SMALL_ORDER_ENCODINGS) {
      expect(await actual(key, contentHash, signature)).toEqual({ valid: false })
      expect(expected(key, contentHash, signature)).toEqual({ valid: false })
    }
  })

  it('agrees with the synchronous verifier on arbitrary byte flips of key, signature and message', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('key', 'signature', 'hash'),
        fc.nat({ max: 63 }),
        fc.integer({ min: 1, max: 255 }),
        async (target, index, mask) => {
          let key = publicKey
          let value = signature
          let hash = contentHash
          if (target === 'key') {
            key = new Uint8Array(publicKey)
            key[index % 32]! ^= mask
          } else if (target === 'signature') {
            const bytes = new Uint8Array(signatureBytes)
            bytes[index]! ^= mask
            value = encodeBase64(bytes)
          } else {
            const hex = [...hash.slice(7)]
            hex[index] = hex[index] === 'a' ? 'b' : 'a'
            hash = `sha256:${hex.join('')}`
          }
          expect(await actual(key, hash, value)).toEqual(expected(key, hash, value))
        },
      ),
      { numRuns: 300 },
    )
  })
})
