/**
 * RFC-ACDP-0010 §5 steps 3–4 and §8 step 1: signing and verifying the ASCII bytes of a receipt-hash string.
 * The bytes are exactly those of a producer signature over `content_hash` (RFC-ACDP-0001 §5.8), so this
 * module delegates to `signContentHash` / `verifyContentSignature` instead of framing its own.
 */
import { isProtocolError, ProtocolError } from '../errors.js'
import type { PublicKeyMaterial } from '../keys/index.js'
import type { SignatureAlgorithm } from '../signature/algorithm.js'
import { signContentHash, signContentHashAsync, verifyContentSignature } from '../signature/content-signature.js'
import type { Signature } from '../wire/common.js'

/**
 * A private key and the DID URL it is published under: the registry receipt signing key (RFC-ACDP-0010 §2,
 * also used for head receipts, checkpoints and registry lifecycle events) or a witness key (RFC-ACDP-0015 §5).
 * `privateKey` is a 32-byte Ed25519 seed or P-256 scalar; never log or return it.
 */
export interface SigningKey {
  readonly algorithm: SignatureAlgorithm
  /** DID URL written to `signature.key_id`, e.g. `did:web:registry.example.com#receipt-key-1`. */
  readonly keyId: string
  readonly privateKey: Uint8Array
}

/**
 * Resolves `signature.key_id` to public key material (RFC-ACDP-0001 §5.11: DID document, SSRF-guarded; or
 * did:key). Verifiers call it only after the key id passed the object's binding checks, so an attacker
 * cannot make them fetch arbitrary DIDs. Throws ProtocolError `key_resolution_failed` /
 * `key_resolution_unreachable`, which verifiers let through unchanged.
 */
export type ResolveVerificationKey = (keyId: string) => PublicKeyMaterial | Promise<PublicKeyMaterial>

/**
 * RFC-ACDP-0010 §5 steps 3–4: signs the ASCII bytes of `receiptHash` (`sha256:` included) and returns the
 * RFC-ACDP-0001 §5.8 `signature` object. Deterministic for both algorithms (RFC 8032, RFC 6979).
 * Throws ProtocolError `invalid_hash_format` for a malformed hash; `TypeError` for a bad private key.
 */
export function signReceiptHash(receiptHash: string, key: SigningKey): Signature {
  const value = signContentHash({ algorithm: key.algorithm, privateKey: key.privateKey, contentHash: receiptHash })
  return { algorithm: key.algorithm, key_id: key.keyId, value }
}

/** {@link signReceiptHash} with Ed25519 signing on libuv's thread pool; same signature object. */
export async function signReceiptHashAsync(receiptHash: string, key: SigningKey): Promise<Signature> {
  const value = await signContentHashAsync({
    algorithm: key.algorithm,
    privateKey: key.privateKey,
    contentHash: receiptHash,
  })
  return { algorithm: key.algorithm, key_id: key.keyId, value }
}

/**
 * RFC-ACDP-0010 §8 step 1 (signature part): verifies `signature.value` over the ASCII bytes of the
 * recomputed `receiptHash` under `key`, strictly (Ed25519 small-order / non-canonical encodings refused).
 *
 * Throws ProtocolError `verification_failed` with `details.reason` one of `algorithm_mismatch` (the
 * signature names a different algorithm than the resolved key), `unsupported_algorithm`,
 * `signature_encoding_invalid`, `public_key_invalid`, `signature_invalid`.
 */
export function verifyReceiptSignature(receiptHash: string, signature: Signature, key: PublicKeyMaterial): void {
  if (signature.algorithm !== key.algorithm) {
    fail('algorithm_mismatch', 'signature algorithm differs from the resolved key', {
      signature_algorithm: signature.algorithm.slice(0, 64),
      key_algorithm: key.algorithm,
    })
  }
  let isValid: boolean
  try {
    isValid = verifyContentSignature({
      algorithm: signature.algorithm,
      publicKey: key.publicKey,
      contentHash: receiptHash,
      signature: signature.value,
    })
  } catch (error) {
    if (!isProtocolError(error)) throw error
    const reason = ENCODING_REASONS[error.code]
    if (reason === undefined) throw error
    fail(reason, error.message, {}, error)
  }
  if (!isValid) fail('signature_invalid', 'signature does not verify over the recomputed hash')
}

const ENCODING_REASONS: Partial<Record<ProtocolError['code'], string>> = {
  unsupported_algorithm: 'unsupported_algorithm',
  invalid_signature_encoding: 'signature_encoding_invalid',
  invalid_public_key: 'public_key_invalid',
}

function fail(reason: string, message: string, details: Record<string, unknown> = {}, cause?: unknown): never {
  throw new ProtocolError('verification_failed', message, { details: { reason, ...details }, cause })
}
