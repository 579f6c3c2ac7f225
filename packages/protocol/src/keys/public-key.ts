/**
 * Public key material as ACDP handles it: raw Ed25519 (32 bytes) or SEC1 compressed P-256
 * (33 bytes), the forms RFC-ACDP-0010 §6 fingerprints and did:key carries.
 */
import { nobleEd25519 } from './noble-curves-platform.js'
import { ProtocolError } from '../errors.js'
import type { SignatureAlgorithm } from '../signature/algorithm.js'
import { isNonCanonicalY, isSmallOrderEncoding } from '../signature/ed25519-small-order.js'
import { compressP256PublicKey } from './p256-point.js'

/** A public key and the algorithm it verifies. Ed25519: raw 32 bytes; P-256: SEC1, normalized to compressed (33 bytes). */
export type PublicKeyMaterial = { algorithm: SignatureAlgorithm; publicKey: Uint8Array }

/**
 * Validates key material taken from outside (DID documents, did:key, configuration) and returns it
 * in canonical form: Ed25519 must be 32 bytes, a canonical encoding, on the curve and not of small
 * order (such a key would accept forged signatures); P-256 must be a valid curve point and is
 * returned compressed.
 *
 * @throws ProtocolError `invalid_public_key` (details.reason: `invalid_length`, `small_order`,
 *   `non_canonical`, `not_on_curve`, `invalid_encoding`).
 * @throws ProtocolError `unsupported_algorithm` for an algorithm outside {@link SignatureAlgorithm}.
 */
export function normalizePublicKey(key: PublicKeyMaterial): PublicKeyMaterial {
  const { algorithm, publicKey } = key
  if (!(publicKey instanceof Uint8Array)) throw new TypeError('publicKey must be a Uint8Array')
  if (algorithm === 'ed25519') {
    assertEd25519Shape(publicKey)
    if (!nobleEd25519().utils.isValidPublicKey(publicKey, false)) {
      throw invalidKey('Ed25519 public key is not a point on the curve', 'not_on_curve')
    }
    return { algorithm, publicKey: new Uint8Array(publicKey) }
  }
  if (algorithm === 'ecdsa-p256') return { algorithm, publicKey: compressP256PublicKey(publicKey) }
  throw new ProtocolError('unsupported_algorithm', 'unsupported key algorithm', {
    details: { algorithm: String(algorithm) },
  })
}

/**
 * The bytes RFC-ACDP-0010 §6 fingerprints, with byte-level checks only (no curve arithmetic for
 * Ed25519 or already-compressed P-256, so it is cheap on hot paths). Uncompressed P-256 is
 * validated and compressed.
 */
export function rawKeyBytesForFingerprint(key: PublicKeyMaterial): Uint8Array {
  const { algorithm, publicKey } = key
  if (algorithm === 'ed25519') {
    assertEd25519Shape(publicKey)
    return publicKey
  }
  if (algorithm === 'ecdsa-p256') {
    if (publicKey.length === 33 && (publicKey[0] === 0x02 || publicKey[0] === 0x03)) return publicKey
    return compressP256PublicKey(publicKey)
  }
  throw new ProtocolError('unsupported_algorithm', 'unsupported key algorithm', {
    details: { algorithm: String(algorithm) },
  })
}

function assertEd25519Shape(publicKey: Uint8Array): void {
  if (publicKey.length !== 32) throw invalidKey('an Ed25519 public key is 32 bytes', 'invalid_length')
  if (isSmallOrderEncoding(publicKey)) throw invalidKey('Ed25519 public key has small order', 'small_order')
  if (isNonCanonicalY(publicKey)) throw invalidKey('Ed25519 public key encoding is not canonical', 'non_canonical')
}

function invalidKey(message: string, reason: string): ProtocolError {
  return new ProtocolError('invalid_public_key', message, { details: { reason } })
}
