/**
 * Key fingerprints (RFC-ACDP-0010 §6, fixture fp-001).
 */
import { sha256String } from '../hash/sha256.js'
import { type PublicKeyMaterial, rawKeyBytesForFingerprint } from './public-key.js'

/**
 * `sha256:` + lowercase hex of SHA-256 over the raw key bytes: the 32-byte Ed25519 key, or the
 * 33-byte SEC1 compressed P-256 point (an uncompressed key is compressed first). No multicodec,
 * SPKI, JWK or base64 framing.
 *
 * @throws ProtocolError `invalid_public_key` for malformed key bytes (wrong length, small-order or
 *   non-canonical Ed25519, off-curve uncompressed P-256).
 * @throws ProtocolError `unsupported_algorithm` for an unknown algorithm.
 */
export function computeKeyFingerprint(key: PublicKeyMaterial): string {
  return sha256String(rawKeyBytesForFingerprint(key))
}
