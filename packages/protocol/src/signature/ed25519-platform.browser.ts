/**
 * Ed25519 curve arithmetic in a browser: @noble/curves, the browser twin of `ed25519-platform.ts` (same exports; the
 * package.json "browser" map swaps the build output). `ed25519.ts` has already applied the strictness rules, and
 * noble's verify runs with `zip215: false` (RFC 8032 strict decoding) so both layers refuse what OpenSSL refuses.
 */
import { ed25519 } from '@noble/curves/ed25519.js'

/** noble's strict RFC 8032 verdict; false for anything it cannot decode. */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false })
  } catch {
    return false
  }
}

/** A browser has no worker pool to borrow here: {@link verifySignature}, resolved. */
export function verifySignatureOffThread(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  return Promise.resolve(verifySignature(publicKey, message, signature))
}

/** RFC 8032 signature of `message` with a 32-byte seed (checked by the caller). */
export function signMessage(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seed)
}

/** {@link signMessage}; a browser has no thread pool to hand it to. */
export function signMessageOffThread(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  return Promise.resolve(signMessage(seed, message))
}

/** Raw public key of a 32-byte seed (checked by the caller). */
export function derivePublicKey(seed: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(seed)
}
