/**
 * SEC1 point forms for P-256 public keys (SEC 1 v2 §2.3.3–2.3.4). ACDP fingerprints and did:key use
 * the 33-byte compressed form (RFC-ACDP-0010 §6, RFC-ACDP-0001 §5.11.1); DID documents publish
 * the uncompressed (x, y) pair (registries/signature-algorithms.md).
 */
import { nobleP256 } from './noble-curves-platform.js'
import { ProtocolError } from '../errors.js'

/**
 * Validates a SEC1 P-256 public key (33-byte compressed or 65-byte uncompressed) and returns the
 * 33-byte compressed form. The point must lie on the curve and must not be the point at infinity.
 *
 * @throws ProtocolError `invalid_public_key` for any other length, prefix, or an off-curve point.
 */
export function compressP256PublicKey(publicKey: Uint8Array): Uint8Array {
  return decodePoint(publicKey).toBytes(true)
}

/**
 * Validates a SEC1 P-256 public key (33 or 65 bytes) and returns the 65-byte uncompressed form
 * `0x04 ‖ x ‖ y`. Decompression recovers y from x and the parity prefix; an x with no curve point
 * is refused.
 *
 * @throws ProtocolError `invalid_public_key` for any other length, prefix, or an off-curve point.
 */
export function decompressP256PublicKey(publicKey: Uint8Array): Uint8Array {
  return decodePoint(publicKey).toBytes(false)
}

function decodePoint(publicKey: Uint8Array) {
  const prefix = publicKey[0]
  const shapeOk =
    (publicKey.length === 33 && (prefix === 0x02 || prefix === 0x03)) || (publicKey.length === 65 && prefix === 0x04)
  if (!shapeOk) {
    throw new ProtocolError(
      'invalid_public_key',
      'a P-256 public key is a 33-byte compressed or 65-byte uncompressed SEC1 point',
      {
        details: { reason: 'invalid_encoding', length: publicKey.length },
      },
    )
  }
  try {
    const point = nobleP256().Point.fromBytes(publicKey)
    point.assertValidity()
    return point
  } catch (cause) {
    throw new ProtocolError('invalid_public_key', 'P-256 public key is not a point on the curve', {
      details: { reason: 'not_on_curve' },
      cause,
    })
  }
}
