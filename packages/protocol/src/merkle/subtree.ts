/**
 * Perfect-subtree arithmetic for the RFC-ACDP-0012 §5.2 Merkle tree (RFC 9162 §2.1.1).
 *
 * A perfect subtree is addressed by `(level, index)` and covers the leaves
 * `[index · 2^level, (index + 1) · 2^level)`; level 0 nodes are leaf hashes. Every hash that appears in a
 * root, an inclusion proof or a consistency proof is the Merkle tree hash of an *aligned* leaf range, and the
 * hash of an aligned range is the right fold of the perfect subtrees that tile it. A store that keeps the hash
 * of every perfect subtree therefore answers every proof with O(log n) reads (see `docs/protocol/log.md`).
 *
 * Sizes and indexes are plain numbers up to 2^53 − 1; the arithmetic below uses division, never the 32-bit
 * bitwise operators, so trees larger than 2^31 leaves stay correct.
 */
import { ProtocolError } from '../errors.js'

/** The position of one perfect subtree: leaves `[index · 2^level, (index + 1) · 2^level)`. */
export interface MerkleNodeAddress {
  readonly level: number
  readonly index: number
}

/** A half-open leaf range `[start, end)`. */
export interface LeafRange {
  readonly start: number
  readonly end: number
}

/**
 * The largest power of two strictly less than `n` (the split point `k` of RFC-ACDP-0012 §5.2).
 * Requires `n ≥ 2`; throws `TypeError` otherwise (caller misuse, never data).
 */
export function largestPowerOfTwoBelow(n: number): number {
  if (!Number.isSafeInteger(n) || n < 2) throw new TypeError(`largestPowerOfTwoBelow needs an integer ≥ 2, got ${n}`)
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** True when `n` is 2^k for some k ≥ 0. */
export function isPowerOfTwo(n: number): boolean {
  if (!Number.isSafeInteger(n) || n < 1) return false
  let k = 1
  while (k < n) k *= 2
  return k === n
}

/**
 * The perfect subtrees that tile `[start, end)`, left to right, each as large as its alignment allows.
 *
 * For the aligned ranges that occur in RFC 6962 trees (start a multiple of a power of two ≥ the range
 * length) this is the binary decomposition of the length, largest subtree first, so the range's Merkle tree
 * hash is `node(P1, node(P2, … Pk))` — see `foldRangeHashes`.
 */
export function decomposeRange(start: number, end: number): MerkleNodeAddress[] {
  const out: MerkleNodeAddress[] = []
  let at = start
  while (at < end) {
    let level = 0
    let width = 1
    while (at % (width * 2) === 0 && at + width * 2 <= end) {
      width *= 2
      level += 1
    }
    out.push({ level, index: at / width })
    at += width
  }
  return out
}

/**
 * Validates an attacker- or caller-supplied tree size: a safe integer ≥ `min`.
 * Throws ProtocolError `invalid_structure` with `details.reason = 'tree_size_invalid'` otherwise.
 */
export function assertTreeSize(value: unknown, name: string, min = 0): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ProtocolError('invalid_structure', `${name} must be an integer ≥ ${min}`, {
      details: { reason: 'tree_size_invalid', field: name, value: typeof value === 'number' ? value : String(value) },
    })
  }
}
