/**
 * Signature algorithm identifiers this library implements (registries/signature-algorithms.md,
 * RFC-ACDP-0001 §5.10): `ed25519` (mandatory) and `ecdsa-p256` (optional).
 */

/** A signature algorithm identifier this library can sign and verify with. */
export type SignatureAlgorithm = 'ed25519' | 'ecdsa-p256'

/** Every {@link SignatureAlgorithm}, in registry order. */
export const SIGNATURE_ALGORITHMS: readonly SignatureAlgorithm[] = ['ed25519', 'ecdsa-p256']

/** Both registered algorithms produce 64 signature bytes: 88 base64 characters with padding. */
export const SIGNATURE_LENGTH = 64
export const SIGNATURE_BASE64_LENGTH = 88

/** True when `value` names an algorithm this library implements (case-sensitive, as on the wire). */
export function isSignatureAlgorithm(value: unknown): value is SignatureAlgorithm {
  return value === 'ed25519' || value === 'ecdsa-p256'
}
