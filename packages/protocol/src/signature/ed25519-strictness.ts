/**
 * The byte-level strictness rules of Ed25519 verification (RFC 8032 §5.1.7 plus the small-order refusals), as a
 * pure function shared by both platform verifiers: `ed25519.ts` (OpenSSL through node:crypto) and
 * `ed25519.browser.ts` (@noble/curves), so the two can never disagree on which encodings are refused.
 */
import { isNonCanonicalY, isSmallOrderEncoding } from './ed25519-small-order.js'

/** Group order L = 2²⁵² + 27742317777372353535851937790883648493, little-endian. */
const L_BYTES = littleEndian(2n ** 252n + 27742317777372353535851937790883648493n)

/** Why a (public key, signature) pair is refused before any curve arithmetic. */
export type Ed25519Weakness =
  | 'invalid_public_key_length'
  | 'invalid_signature_length'
  | 'non_canonical_public_key'
  | 'small_order_public_key'
  | 'non_canonical_r'
  | 'small_order_r'
  | 'non_canonical_s'

/**
 * The strictness rules, as a pure function (no OpenSSL): returns the first rule the pair breaks,
 * or null. Rules: A and R must not encode a small-order point in any spelling (14 encodings, see
 * `ed25519-small-order.ts`), A and R must encode y < p, and S must be < L (RFC 8032 §5.1.7 step 1;
 * this also refuses the S + L malleated twin of a valid signature).
 */
export function findEd25519Weakness(publicKey: Uint8Array, signature: Uint8Array): Ed25519Weakness | null {
  if (publicKey.length !== 32) return 'invalid_public_key_length'
  if (signature.length !== 64) return 'invalid_signature_length'
  if (isSmallOrderEncoding(publicKey)) return 'small_order_public_key'
  if (isNonCanonicalY(publicKey)) return 'non_canonical_public_key'
  if (isSmallOrderEncoding(signature, 0)) return 'small_order_r'
  if (isNonCanonicalY(signature, 0)) return 'non_canonical_r'
  if (!isScalarBelowL(signature)) return 'non_canonical_s'
  return null
}

/** S (signature bytes 32..63, little-endian) < L, compared from the most significant byte. */
function isScalarBelowL(signature: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const s = signature[32 + i] as number
    const l = L_BYTES[i] as number
    if (s !== l) return s < l
  }
  return false
}

function littleEndian(value: bigint): Uint8Array {
  const bytes = new Uint8Array(32)
  let rest = value
  for (let i = 0; i < 32; i++) {
    bytes[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return bytes
}
