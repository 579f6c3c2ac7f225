/**
 * @noble/curves in a browser: imported with the bundle. The browser twin of `noble-curves-platform.ts`; the
 * package.json "browser" map swaps the build output.
 */
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'

/** @noble/curves' Ed25519. */
export function nobleEd25519(): typeof ed25519 {
  return ed25519
}

/** @noble/curves' P-256. */
export function nobleP256(): typeof p256 {
  return p256
}
