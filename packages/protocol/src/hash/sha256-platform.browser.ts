/**
 * SHA-256 in a browser: @noble/hashes (synchronous, unlike WebCrypto's digest, so every verifier keeps one call
 * shape). The browser twin of `sha256-platform.ts`; the package.json "browser" map swaps the build output.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/** SHA-256 digest (32 bytes) of `input`; strings are hashed as UTF-8. */
export function digestSha256(input: Uint8Array | string): Uint8Array {
  return sha256(typeof input === 'string' ? utf8ToBytes(input) : input)
}

/** Lowercase hex of SHA-256(`input`); strings are hashed as UTF-8. */
export function digestSha256Hex(input: Uint8Array | string): string {
  return bytesToHex(digestSha256(input))
}
