/**
 * SHA-256 on Node: node:crypto (native speed on the hot paths: content hashes, Merkle nodes). `sha256.ts` builds the
 * protocol's string forms on top; a browser bundle swaps in `sha256-platform.browser.ts` (package.json "browser"
 * map), which exports the same functions.
 */
import { hash } from 'node:crypto'

/**
 * SHA-256 digest (32 bytes) of `input`; strings are hashed as UTF-8. One-shot `crypto.hash` skips the Hash object
 * `createHash` builds per call (a Merkle proof or append hashes dozens of 65-byte inputs).
 */
export function digestSha256(input: Uint8Array | string): Uint8Array {
  const digest = hash('sha256', input, 'buffer')
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)
}

/** Lowercase hex of SHA-256(`input`); strings are hashed as UTF-8. */
export function digestSha256Hex(input: Uint8Array | string): string {
  return hash('sha256', input, 'hex')
}
