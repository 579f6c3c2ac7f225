/**
 * Strict Ed25519 (RFC 8032 §5.1) for producer signatures, receipts and cosignatures.
 *
 * Verification runs the byte-level strictness rules (`ed25519-strictness.ts`) first, then the platform's curve
 * arithmetic (`ed25519-platform.ts`: OpenSSL through node:crypto; in a browser bundle `ed25519-platform.browser.ts`:
 * @noble/curves). The rules do not depend on the curve implementation: Node 20's OpenSSL accepted the identity-key
 * forgery (A = R = identity, S = 0 verifies every message), and a verifier must refuse it whatever it links.
 */
import {
  derivePublicKey,
  signMessage,
  signMessageOffThread,
  verifySignature,
  verifySignatureOffThread,
} from './ed25519-platform.js'
import { findEd25519Weakness } from './ed25519-strictness.js'

export { type Ed25519Weakness, findEd25519Weakness } from './ed25519-strictness.js'

/**
 * Strict Ed25519 verification of `signature` (R ‖ S, 64 bytes) over `message` under a raw 32-byte
 * public key. Returns false for any malformed input, any {@link findEd25519Weakness} finding, and
 * any signature the curve arithmetic does not accept. Never throws for bad data.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (findEd25519Weakness(publicKey, signature) !== null) return false
  return verifySignature(publicKey, message, signature)
}

/**
 * {@link verifyEd25519} with the curve arithmetic off the caller's thread where the platform allows it (Node:
 * libuv's thread pool, so a server keeps serving other requests meanwhile and a second core can share the work).
 * The same strictness rules run first, synchronously. Resolves false where {@link verifyEd25519} returns false;
 * never rejects.
 */
export function verifyEd25519Async(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (findEd25519Weakness(publicKey, signature) !== null) return Promise.resolve(false)
  return verifySignatureOffThread(publicKey, message, signature)
}

/**
 * Deterministic Ed25519 signature (RFC 8032) of `message` with a 32-byte private seed.
 *
 * @throws TypeError when `seed` is not 32 bytes (caller misuse).
 */
export function signEd25519(seed: Uint8Array, message: Uint8Array): Uint8Array {
  assertSeed(seed)
  return signMessage(seed, message)
}

/**
 * {@link signEd25519} off the caller's thread where the platform allows it (Node: libuv's thread pool; a registry
 * signs a receipt per publish and this keeps that work off its event loop). Same bytes as the synchronous signer.
 *
 * @throws TypeError synchronously when `seed` is not 32 bytes (caller misuse); rejects only on a platform failure.
 */
export function signEd25519Async(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  assertSeed(seed)
  return signMessageOffThread(seed, message)
}

/**
 * Raw 32-byte public key of a 32-byte Ed25519 seed.
 *
 * @throws TypeError when `seed` is not 32 bytes (caller misuse).
 */
export function ed25519PublicKeyFromSeed(seed: Uint8Array): Uint8Array {
  assertSeed(seed)
  return derivePublicKey(seed)
}

function assertSeed(seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes')
}
