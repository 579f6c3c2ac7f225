/**
 * ECDSA over P-256 with SHA-256 (FIPS 186-4), wire form IEEE 1363 r ‖ s (64 bytes), per
 * registries/signature-algorithms.md "ecdsa-p256 wire form". DER signatures are refused.
 *
 * High-S: the registry document states no low-S rule and producers may use any conformant signer,
 * so verification accepts both s and n − s (ECDSA's inherent malleability). That is harmless here:
 * ACDP identifies content by `content_hash`, never by signature bytes. Signing emits low-S, which
 * every verifier accepts.
 */
import { nobleP256 } from '../keys/noble-curves-platform.js'
import { verifyP1363Signature } from './ecdsa-p256-platform.js'

/** Group order n of P-256, big-endian. */
const N_BYTES = Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex')

/**
 * Verifies an IEEE 1363 r ‖ s signature (64 bytes) over SHA-256(`message`) under a SEC1 public key
 * (33-byte compressed or 65-byte uncompressed). Returns false for any other signature length (so
 * DER is refused), r or s outside [1, n − 1], an invalid or off-curve key, or a signature that does
 * not verify. Never throws for bad data.
 */
export function verifyEcdsaP256(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false
  if (!isScalarInRange(signature, 0) || !isScalarInRange(signature, 32)) return false
  return verifyP1363Signature(publicKey, message, signature)
}

/**
 * Deterministic (RFC 6979, HMAC-SHA-256) low-S ECDSA P-256 signature of SHA-256(`message`),
 * returned as 64-byte r ‖ s. Reproduces the sig-002 golden vector byte for byte.
 *
 * @throws TypeError when `privateKey` is not a 32-byte scalar in [1, n − 1] (caller misuse).
 */
export function signEcdsaP256(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  assertPrivateKey(privateKey)
  return nobleP256().sign(message, privateKey, { prehash: true, lowS: true, format: 'compact' })
}

/**
 * SEC1 public key of a 32-byte P-256 private scalar; compressed (33 bytes) by default.
 *
 * @throws TypeError when `privateKey` is not a 32-byte scalar in [1, n − 1] (caller misuse).
 */
export function p256PublicKeyFromPrivate(privateKey: Uint8Array, compressed = true): Uint8Array {
  assertPrivateKey(privateKey)
  return nobleP256().getPublicKey(privateKey, compressed)
}

function assertPrivateKey(privateKey: Uint8Array): void {
  if (
    !(privateKey instanceof Uint8Array) ||
    privateKey.length !== 32 ||
    !nobleP256().utils.isValidSecretKey(privateKey)
  ) {
    throw new TypeError('a P-256 private key is a 32-byte scalar in [1, n - 1]')
  }
}

/** 0 < the big-endian 32-byte integer at `offset` < n. */
function isScalarInRange(signature: Uint8Array, offset: number): boolean {
  let zero = true
  for (let i = 0; i < 32; i++) {
    if (signature[offset + i] !== 0) {
      zero = false
      break
    }
  }
  if (zero) return false
  for (let i = 0; i < 32; i++) {
    const v = signature[offset + i] as number
    const n = N_BYTES[i] as number
    if (v !== n) return v < n
  }
  return false
}
