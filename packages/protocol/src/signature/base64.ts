/**
 * Standard base64 (RFC 4648 §4) as used by `signature.value` (RFC-ACDP-0001 §5.8): the `+/`
 * alphabet, `=` padding, one canonical spelling per byte string.
 */
import { ProtocolError } from '../errors.js'

const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * Decodes attacker-controlled standard base64, refusing every non-canonical spelling: missing or
 * extra padding, whitespace, the url-safe alphabet (`-_`), and non-zero bits in the final
 * character's unused low bits (which would let many strings name one signature).
 *
 * @throws ProtocolError `invalid_signature_encoding`.
 */
export function decodeBase64Strict(value: string): Uint8Array {
  if (typeof value !== 'string' || !PADDED_BASE64.test(value)) {
    throw new ProtocolError('invalid_signature_encoding', 'not canonical padded standard base64', {
      details: { reason: 'invalid_base64' },
    })
  }
  const bytes = Buffer.from(value, 'base64')
  // Node ignores unused trailing bits; re-encoding exposes them.
  if (bytes.toString('base64') !== value) {
    throw new ProtocolError('invalid_signature_encoding', 'base64 has non-zero trailing bits', {
      details: { reason: 'non_canonical_base64' },
    })
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Encodes bytes as padded standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}
