/**
 * RFC-ACDP-0012 §5.1–§5.2 hashing: the domain-separated leaf and interior-node hashes of RFC 6962 §2.1 and
 * the hash of the empty tree. All values are raw 32-byte SHA-256 digests; the wire form
 * (`"sha256:" + hex`) is applied only at the edges (`formatSha256` / `parseSha256`).
 */
import { sha256 } from '../hash/index.js'

/** Length in bytes of every Merkle hash (SHA-256). */
export const MERKLE_HASH_BYTES = 32

const LEAF_PREFIX = 0x00
const NODE_PREFIX = 0x01

// Reused scratch input for node hashes: SHA-256 consumes it synchronously and returns a fresh digest, and
// JavaScript runs one call at a time, so sharing it is safe and saves an allocation per node (the hot path
// of appends, proofs and verification).
const NODE_INPUT = new Uint8Array(1 + 2 * MERKLE_HASH_BYTES)
NODE_INPUT[0] = NODE_PREFIX

/**
 * RFC-ACDP-0012 §5.1: `SHA-256(0x00 ‖ leaf_bytes)`. The prefix stops chosen leaf bytes posing as an interior
 * node's 64-byte child concatenation, which would otherwise let an attacker forge proofs (RFC 6962 §2.1).
 * `leafBytes` is the leaf encoding — for ACDP logs `encodeLogLeaf(leaf)`, the JCS bytes of the leaf object.
 */
export function computeLeafHash(leafBytes: Uint8Array): Uint8Array {
  const input = new Uint8Array(leafBytes.length + 1)
  input[0] = LEAF_PREFIX
  input.set(leafBytes, 1)
  return sha256(input)
}

/**
 * RFC-ACDP-0012 §5.1: `SHA-256(0x01 ‖ left ‖ right)` over two raw 32-byte digests.
 * Throws `TypeError` when either child is not 32 bytes (callers parse wire hashes first).
 */
export function computeNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.length !== MERKLE_HASH_BYTES || right.length !== MERKLE_HASH_BYTES) {
    throw new TypeError('computeNodeHash needs two 32-byte digests')
  }
  NODE_INPUT.set(left, 1)
  NODE_INPUT.set(right, 1 + MERKLE_HASH_BYTES)
  return sha256(NODE_INPUT)
}

/**
 * RFC-ACDP-0012 §5.2: `MTH({}) = SHA-256("")`, the root of the empty tree
 * (`e3b0c442…b855`). Returns a fresh copy each call so callers may not alter the shared value.
 */
export function computeEmptyTreeHash(): Uint8Array {
  return sha256(new Uint8Array(0))
}

/** Byte equality of two digests. Merkle hashes are public, so no constant-time comparison is needed. */
export function equalHashes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
