/**
 * Which stored node hashes a root, inclusion proof or consistency proof needs, and how to combine them.
 *
 * Planning is pure arithmetic on sizes and indexes, so a store can fetch every node a proof needs in ONE
 * query (the registry: `WHERE pos IN (…)` over each address's stored position), then {@link assembleProof}
 * folds the answers into proof elements.
 * Each proof element is the Merkle tree hash of an aligned leaf range (RFC 9162 §2.1.1 / RFC 6962 §2.1.2);
 * all but at most one of those ranges are perfect subtrees, so a plan reads O(log n) nodes.
 */
import { ProtocolError } from '../errors.js'
import {
  assertTreeSize,
  decomposeRange,
  type LeafRange,
  largestPowerOfTwoBelow,
  type MerkleNodeAddress,
} from './subtree.js'
import { computeNodeHash, MERKLE_HASH_BYTES } from './tree-hash.js'

/** One proof element: the leaf range it hashes and the perfect subtrees that tile that range, left to right. */
export interface MerkleProofElementPlan {
  readonly range: LeafRange
  readonly nodes: readonly MerkleNodeAddress[]
}

/** A proof (or root) to be assembled from stored perfect-subtree hashes. */
export interface MerkleProofPlan {
  /** Proof elements in wire order: lowest tree level first (RFC-ACDP-0012 §8.2). */
  readonly elements: readonly MerkleProofElementPlan[]
  /** Every node to read, element by element — the argument to `MerkleNodeReader.readNodes`. */
  readonly addresses: readonly MerkleNodeAddress[]
}

/**
 * Plans `PATH(leafIndex, D[treeSize])`, the RFC 6962 §2.1.1 audit path (RFC-ACDP-0012 §8.2 inclusion mode).
 * Throws ProtocolError `invalid_structure` (`tree_size_invalid`, `leaf_index_out_of_range`) for bad arguments.
 */
export function planInclusionProof(leafIndex: number, treeSize: number): MerkleProofPlan {
  assertTreeSize(treeSize, 'tree_size', 1)
  assertLeafIndex(leafIndex, treeSize)
  const ranges: LeafRange[] = []
  let start = 0
  let end = treeSize
  // Walks from the root down to the leaf; the audit path lists siblings from the leaf up, hence the reverse.
  while (end - start > 1) {
    const k = largestPowerOfTwoBelow(end - start)
    if (leafIndex < start + k) {
      ranges.push({ start: start + k, end })
      end = start + k
    } else {
      ranges.push({ start, end: start + k })
      start += k
    }
  }
  return planFromRanges(ranges.reverse())
}

/**
 * Plans `PROOF(first, D[second])`, the RFC 6962 §2.1.2 consistency proof (RFC-ACDP-0012 §8.2 consistency
 * mode). `0 < first ≤ second`; the plan is empty when `first === second`.
 * Throws ProtocolError `invalid_structure` (`tree_size_invalid`) for bad sizes.
 */
export function planConsistencyProof(first: number, second: number): MerkleProofPlan {
  assertTreeSize(first, 'first_tree_size', 1)
  assertTreeSize(second, 'second_tree_size', 1)
  if (first > second) {
    throw new ProtocolError('invalid_structure', 'first_tree_size must not exceed second_tree_size', {
      details: { reason: 'tree_size_invalid', first_tree_size: first, second_tree_size: second },
    })
  }
  // SUBPROOF(m, D[start:end], isWholeOldTree), unrolled: m is relative to `start`.
  const ranges: LeafRange[] = []
  let m = first
  let start = 0
  let end = second
  let isWholeOldTree = true
  for (;;) {
    if (m === end - start) {
      if (!isWholeOldTree) ranges.push({ start, end })
      break
    }
    const k = largestPowerOfTwoBelow(end - start)
    if (m <= k) {
      ranges.push({ start: start + k, end })
      end = start + k
    } else {
      ranges.push({ start, end: start + k })
      m -= k
      start += k
      isWholeOldTree = false
    }
  }
  return planFromRanges(ranges.reverse())
}

/**
 * Plans `MTH(D[treeSize])` as a single element over `[0, treeSize)`: the perfect subtrees for the set bits of
 * `treeSize` (the tree's "frontier"). Empty for `treeSize === 0` (the root is then `SHA-256("")`).
 */
export function planTreeRoot(treeSize: number): MerkleProofPlan {
  assertTreeSize(treeSize, 'tree_size')
  return planFromRanges(treeSize === 0 ? [] : [{ start: 0, end: treeSize }])
}

/**
 * Folds the hashes read for `plan.addresses` (same order) into proof elements: each element is the right
 * fold `node(P1, node(P2, … Pk))` of its subtree hashes. Throws `TypeError` when the reader broke its
 * contract (wrong count or a hash that is not 32 bytes).
 */
export function assembleProof(plan: MerkleProofPlan, hashes: readonly Uint8Array[]): Uint8Array[] {
  if (hashes.length !== plan.addresses.length) {
    throw new TypeError(`expected ${plan.addresses.length} node hashes, got ${hashes.length}`)
  }
  const proof: Uint8Array[] = []
  let at = 0
  for (const element of plan.elements) {
    const parts = hashes.slice(at, at + element.nodes.length)
    at += element.nodes.length
    proof.push(foldRangeHashes(parts))
  }
  return proof
}

/**
 * The Merkle tree hash of an aligned range from the hashes of the perfect subtrees tiling it, left to right:
 * `node(P1, node(P2, … Pk))`. Throws `TypeError` on an empty list or a digest that is not 32 bytes.
 */
export function foldRangeHashes(parts: readonly Uint8Array[]): Uint8Array {
  const last = parts[parts.length - 1]
  if (last === undefined) throw new TypeError('foldRangeHashes needs at least one hash')
  for (const part of parts) {
    if (part.length !== MERKLE_HASH_BYTES) throw new TypeError('node hashes must be 32 bytes')
  }
  let acc = last
  for (let i = parts.length - 2; i >= 0; i--) acc = computeNodeHash(parts[i] as Uint8Array, acc)
  return acc
}

function planFromRanges(ranges: readonly LeafRange[]): MerkleProofPlan {
  const elements = ranges.map((range) => ({ range, nodes: decomposeRange(range.start, range.end) }))
  return { elements, addresses: elements.flatMap((element) => element.nodes) }
}

function assertLeafIndex(leafIndex: unknown, treeSize: number): asserts leafIndex is number {
  if (typeof leafIndex !== 'number' || !Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= treeSize) {
    throw new ProtocolError('invalid_structure', 'leaf_index must be an integer in [0, tree_size)', {
      details: { reason: 'leaf_index_out_of_range', leaf_index: leafIndex, tree_size: treeSize },
    })
  }
}
