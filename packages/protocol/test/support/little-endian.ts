/**
 * Test support: little-endian integers as Ed25519 encodes them (RFC 8032 §5.1.2), for building non-canonical
 * and malleable encodings by hand.
 */

/** `value` as `length` little-endian bytes (32 by default: a field element or scalar). */
export function littleEndian(value: bigint, length = 32): Uint8Array {
  const out = new Uint8Array(length)
  let rest = value
  for (let i = 0; i < length; i++) {
    out[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return out
}

/** The unsigned integer `bytes` encode, least significant byte first. */
export function readLittleEndian(bytes: Uint8Array): bigint {
  let value = 0n
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] as number)
  return value
}
