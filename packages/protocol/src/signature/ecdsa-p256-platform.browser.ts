/**
 * ECDSA P-256 verification in a browser: @noble/curves, the browser twin of `ecdsa-p256-platform.ts` (same export;
 * the package.json "browser" map swaps the build output). High-S is accepted, as on Node (see `ecdsa-p256.ts`).
 */
import { p256 } from '@noble/curves/nist.js'
import { decompressP256PublicKey } from '../keys/p256-point.js'

/** noble's verdict on an IEEE 1363 r ‖ s signature over SHA-256(`message`); false for an invalid key. */
export function verifyP1363Signature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const uncompressed = decompressP256PublicKey(publicKey)
    return p256.verify(signature, message, uncompressed, { prehash: true, lowS: false, format: 'compact' })
  } catch {
    return false
  }
}
