/**
 * RFC-ACDP-0010 §5 steps 1–2, the one signing construction of the trust layer: remove `signature`,
 * JCS-canonicalize the rest (RFC 8785), and hash to `"sha256:" + lowercase_hex`. RFC-ACDP-0011 §5 (head
 * receipts), 0012 §6 (checkpoints), 0013 §5 (lifecycle events) and 0015 §5 (cosignatures) reuse it verbatim;
 * their modules call these functions rather than framing bytes of their own.
 */
import { sha256String } from '../hash/index.js'
import { canonicalBytes } from '../jcs/index.js'

/**
 * The receipt preimage (RFC-ACDP-0010 §2): the JCS bytes of `object` without its `signature` member.
 * Throws ProtocolError `not_canonicalizable` for values JCS refuses; `TypeError` for a non-object.
 */
export function computeReceiptPreimage(object: object): Uint8Array {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw new TypeError('a signed ACDP object must be a JSON object')
  }
  const { signature: _signature, ...unsigned } = object as Record<string, unknown>
  return canonicalBytes(unsigned)
}

/**
 * The receipt hash (RFC-ACDP-0010 §2, §5 step 2): `"sha256:" + lowercase_hex(SHA-256(preimage))` — the
 * string whose ASCII bytes the registry signs. Accepts the object with or without `signature`.
 * Throws as {@link computeReceiptPreimage}.
 */
export function computeReceiptHash(object: object): string {
  return sha256String(computeReceiptPreimage(object))
}
