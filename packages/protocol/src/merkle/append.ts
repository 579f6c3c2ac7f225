/**
 * Appending a leaf to a store of perfect-subtree hashes (RFC-ACDP-0012 §7.1, §5.3).
 *
 * Appending leaf `i` completes the level-0 node `(0, i)` and, for every trailing 1-bit of `i`, one more
 * perfect subtree above it. So a store writes amortized 2 rows per leaf (1 + 1/2 + 1/4 + …) and reads the
 * left siblings of the completed nodes — already stored, and on average one row — in one batch.
 */
import { assertTreeSize, type MerkleNodeAddress } from './subtree.js'
import { computeNodeHash, MERKLE_HASH_BYTES } from './tree-hash.js'

/** A perfect-subtree hash to persist, keyed by its address. */
export interface StoredMerkleNode extends MerkleNodeAddress {
  readonly hash: Uint8Array
}

/**
 * The stored nodes that appending leaf number `leafIndex` (= the tree size before the append) combines
 * with, bottom-up: `(0, i − 1)`, then the left sibling at each level while the index there is odd.
 * Throws ProtocolError `invalid_structure` (`tree_size_invalid`) for a bad index.
 */
export function planAppend(leafIndex: number): MerkleNodeAddress[] {
  assertTreeSize(leafIndex, 'leaf_index')
  const siblings: MerkleNodeAddress[] = []
  let level = 0
  let index = leafIndex
  while (index % 2 === 1) {
    siblings.push({ level, index: index - 1 })
    index = (index - 1) / 2
    level += 1
  }
  return siblings
}

/**
 * Every perfect subtree completed by appending `leafHash` at `leafIndex`, bottom-up, starting with the leaf
 * itself. `leftSiblingHashes` are the hashes read for `planAppend(leafIndex)`, same order.
 * Throws `TypeError` when the sibling count or a digest length is wrong (a store contract violation).
 */
export function buildAppendedNodes(
  leafIndex: number,
  leafHash: Uint8Array,
  leftSiblingHashes: readonly Uint8Array[],
): StoredMerkleNode[] {
  const siblings = planAppend(leafIndex)
  if (leftSiblingHashes.length !== siblings.length) {
    throw new TypeError(`expected ${siblings.length} left-sibling hashes, got ${leftSiblingHashes.length}`)
  }
  if (leafHash.length !== MERKLE_HASH_BYTES) throw new TypeError('leaf hash must be 32 bytes')
  const nodes: StoredMerkleNode[] = [{ level: 0, index: leafIndex, hash: leafHash }]
  let hash = leafHash
  siblings.forEach((sibling, i) => {
    hash = computeNodeHash(leftSiblingHashes[i] as Uint8Array, hash)
    nodes.push({ level: sibling.level + 1, index: sibling.index / 2, hash })
  })
  return nodes
}
