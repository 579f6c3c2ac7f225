/**
 * Producer content signatures (RFC-ACDP-0001 §5.8): the signed bytes are the ASCII bytes of the
 * full `content_hash` string, `sha256:` prefix included, never the raw digest.
 */
import { ProtocolError } from '../errors.js'
import { isSha256String } from '../hash/sha256.js'
import {
  isSignatureAlgorithm,
  SIGNATURE_BASE64_LENGTH,
  SIGNATURE_LENGTH,
  type SignatureAlgorithm,
} from './algorithm.js'
import { decodeBase64Strict, encodeBase64 } from './base64.js'
import { signEcdsaP256, verifyEcdsaP256 } from './ecdsa-p256.js'
import { signEd25519, signEd25519Async, verifyEd25519, verifyEd25519Async } from './ed25519.js'

export type VerifyContentSignatureInput = {
  /** `signature.algorithm` from the wire (attacker-controlled). */
  algorithm: string
  /** Resolved public key: Ed25519 raw 32 bytes; P-256 SEC1 33 or 65 bytes. */
  publicKey: Uint8Array
  /** `content_hash` string, already checked against the recomputed hash by the caller. */
  contentHash: string
  /** `signature.value` from the wire (attacker-controlled), padded standard base64. */
  signature: string
}

/**
 * Verifies a producer signature over a `content_hash` string.
 *
 * Returns false only for a well-formed signature that does not verify (including Ed25519
 * strictness refusals: small-order or non-canonical points, S ≥ L).
 *
 * @throws ProtocolError `unsupported_algorithm` when `algorithm` is not `ed25519` or `ecdsa-p256`.
 * @throws ProtocolError `invalid_signature_encoding` when `signature` is not canonical padded base64
 *   of exactly 64 bytes (88 characters); a 70-byte DER ECDSA signature lands here (sig-002).
 * @throws ProtocolError `invalid_hash_format` when `contentHash` is not `sha256:<64 lowercase hex>`.
 * @throws ProtocolError `invalid_public_key` when the key length does not fit the algorithm.
 */
export function verifyContentSignature(input: VerifyContentSignatureInput): boolean {
  const { algorithm, publicKey, message, signature } = checkContentSignatureInput(input)
  return algorithm === 'ed25519'
    ? verifyEd25519(publicKey, message, signature)
    : verifyEcdsaP256(publicKey, message, signature)
}

/**
 * {@link verifyContentSignature} with Ed25519's curve arithmetic on libuv's thread pool (see
 * `verifyEd25519Async`); ECDSA P-256 verifies synchronously. Input errors throw synchronously, as there.
 *
 * @throws ProtocolError the same codes as {@link verifyContentSignature}, before any verification work.
 */
export function verifyContentSignatureAsync(input: VerifyContentSignatureInput): Promise<boolean> {
  const { algorithm, publicKey, message, signature } = checkContentSignatureInput(input)
  return algorithm === 'ed25519'
    ? verifyEd25519Async(publicKey, message, signature)
    : Promise.resolve(verifyEcdsaP256(publicKey, message, signature))
}

/** The input checks both verifiers share, in the order RFC-ACDP-0001 §5.8 errors are reported. */
function checkContentSignatureInput(input: VerifyContentSignatureInput): {
  algorithm: SignatureAlgorithm
  publicKey: Uint8Array
  message: Uint8Array
  signature: Uint8Array
} {
  const { algorithm, publicKey, contentHash, signature } = input
  if (!isSignatureAlgorithm(algorithm)) {
    throw new ProtocolError('unsupported_algorithm', 'unsupported signature algorithm', {
      details: { algorithm: String(algorithm).slice(0, 64) },
    })
  }
  if (!isSha256String(contentHash)) {
    throw new ProtocolError(
      'invalid_hash_format',
      'content_hash must be "sha256:" followed by 64 lowercase hex characters',
    )
  }
  if (typeof signature !== 'string' || signature.length !== SIGNATURE_BASE64_LENGTH) {
    throw new ProtocolError(
      'invalid_signature_encoding',
      `signature value must be ${SIGNATURE_BASE64_LENGTH} base64 characters`,
      {
        details: { reason: 'invalid_length', length: typeof signature === 'string' ? signature.length : null },
      },
    )
  }
  const bytes = decodeBase64Strict(signature)
  if (bytes.length !== SIGNATURE_LENGTH) {
    throw new ProtocolError('invalid_signature_encoding', `signature must be ${SIGNATURE_LENGTH} bytes`, {
      details: { reason: 'invalid_length', length: bytes.length },
    })
  }
  assertPublicKeyLength(algorithm, publicKey)
  return { algorithm, publicKey, message: Buffer.from(contentHash, 'latin1'), signature: bytes }
}

export type SignContentHashInput = {
  algorithm: SignatureAlgorithm
  /** Ed25519: 32-byte seed. ECDSA P-256: 32-byte private scalar. */
  privateKey: Uint8Array
  contentHash: string
}

/**
 * Signs the ASCII bytes of a `content_hash` string; returns padded standard base64 (88 chars).
 * Ed25519 and (RFC 6979) ECDSA P-256 are both deterministic, so goldens reproduce byte for byte.
 *
 * @throws ProtocolError `invalid_hash_format` when `contentHash` is malformed.
 * @throws ProtocolError `unsupported_algorithm` for an algorithm outside {@link SignatureAlgorithm}.
 * @throws TypeError when the private key has the wrong size (caller misuse).
 */
export function signContentHash(input: SignContentHashInput): string {
  const message = signingMessage(input)
  if (input.algorithm === 'ed25519') return encodeBase64(signEd25519(input.privateKey, message))
  return encodeBase64(signEcdsaP256(input.privateKey, message))
}

/**
 * {@link signContentHash} with Ed25519 signing on libuv's thread pool (see `signEd25519Async`); ECDSA P-256
 * signs synchronously. Same output; input errors throw synchronously, as there.
 */
export function signContentHashAsync(input: SignContentHashInput): Promise<string> {
  const message = signingMessage(input)
  if (input.algorithm === 'ed25519') return signEd25519Async(input.privateKey, message).then(encodeBase64)
  return Promise.resolve(encodeBase64(signEcdsaP256(input.privateKey, message)))
}

/** The checks both signers share; returns the ASCII bytes to sign. */
function signingMessage(input: SignContentHashInput): Buffer {
  const { algorithm, contentHash } = input
  if (!isSha256String(contentHash)) {
    throw new ProtocolError(
      'invalid_hash_format',
      'content_hash must be "sha256:" followed by 64 lowercase hex characters',
    )
  }
  if (algorithm !== 'ed25519' && algorithm !== 'ecdsa-p256') {
    throw new ProtocolError('unsupported_algorithm', 'unsupported signature algorithm', {
      details: { algorithm: String(algorithm) },
    })
  }
  return Buffer.from(contentHash, 'latin1')
}

function assertPublicKeyLength(algorithm: SignatureAlgorithm, publicKey: Uint8Array): void {
  const ok =
    publicKey instanceof Uint8Array &&
    (algorithm === 'ed25519' ? publicKey.length === 32 : publicKey.length === 33 || publicKey.length === 65)
  if (!ok) {
    throw new ProtocolError('invalid_public_key', `public key length does not fit ${algorithm}`, {
      details: { reason: 'invalid_length', algorithm },
    })
  }
}
