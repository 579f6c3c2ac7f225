/**
 * SHA-256 and the `sha256:<64 lowercase hex>` string form used for `content_hash`, key
 * fingerprints, receipt and root hashes (RFC-ACDP-0001 §5.7, RFC-ACDP-0010 §6).
 */
import { ProtocolError } from '../errors.js'
import { digestSha256, digestSha256Hex } from './sha256-platform.js'

const SHA256_STRING = /^sha256:[0-9a-f]{64}$/
const PREFIX = 'sha256:'

/** SHA-256 digest (32 bytes) of `bytes`, or of the UTF-8 encoding of a string. */
export function sha256(bytes: Uint8Array | string): Uint8Array {
  return digestSha256(bytes)
}

/**
 * Formats a 32-byte digest as `sha256:<lowercase hex>`.
 *
 * @throws TypeError when `digest` is not 32 bytes (caller misuse).
 */
export function formatSha256(digest: Uint8Array): string {
  if (digest.length !== 32) throw new TypeError(`a SHA-256 digest is 32 bytes, got ${digest.length}`)
  return PREFIX + Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('hex')
}

/** `sha256:` + lowercase hex of SHA-256(input); strings are hashed as UTF-8. */
export function sha256String(input: Uint8Array | string): string {
  return PREFIX + digestSha256Hex(input)
}

/** True when `value` is a string of exactly the form `sha256:` + 64 lowercase hex characters. */
export function isSha256String(value: unknown): boolean {
  return typeof value === 'string' && value.length === 71 && SHA256_STRING.test(value)
}

/**
 * Parses `sha256:<64 lowercase hex>` into its 32 digest bytes. Uppercase hex, other prefixes,
 * whitespace and any other length are refused: the string form is hashed and signed as-is, so only
 * one spelling can be valid.
 *
 * @throws ProtocolError `invalid_hash_format` for anything else (attacker-controlled input).
 */
export function parseSha256(value: string): Uint8Array {
  if (!isSha256String(value)) {
    throw new ProtocolError('invalid_hash_format', 'expected "sha256:" followed by 64 lowercase hex characters')
  }
  return new Uint8Array(Buffer.from(value.slice(PREFIX.length), 'hex'))
}
