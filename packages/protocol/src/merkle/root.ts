/**
 * RFC-ACDP-0012 §5.2 Merkle tree hash over a list of leaf hashes held in memory — the literal recursive
 * definition, used by verifiers holding `GET /log/entries` leaf hashes and as the reference the stored-node
 * code is tested against. Registries compute roots from stored nodes instead (`computeTreeRoot`).
 */
import { type MerkleNodeReader, readProof } from './node-reader.js'
import { planTreeRoot } from './proof-plan.js'
import { largestPowerOfTwoBelow } from './subtree.js'
import { computeEmptyTreeHash, computeNodeHash, MERKLE_HASH_BYTES } from './tree-hash.js'

/**
 * `MTH(D[n])` for the ordered leaf hashes `leafHashes` (RFC-ACDP-0012 §5.2): `SHA-256("")` for no leaves, the
 * leaf hash itself for one, otherwise `node(MTH(D[0:k]), MTH(D[k:n]))` with `k` the largest power of two
 * below `n`. O(n) hashes, recursion depth ⌈log2 n⌉. Throws `TypeError` if any leaf hash is not 32 bytes.
 */
export function computeMerkleRoot(leafHashes: readonly Uint8Array[]): Uint8Array {
  for (const hash of leafHashes) {
    if (hash.length !== MERKLE_HASH_BYTES) throw new TypeError('computeMerkleRoot needs 32-byte leaf hashes')
  }
  if (leafHashes.length === 0) return computeEmptyTreeHash()
  return hashRange(leafHashes, 0, leafHashes.length)
}

// MTH(D[start:end]) for end − start ≥ 1.
function hashRange(leafHashes: readonly Uint8Array[], start: number, end: number): Uint8Array {
  if (end - start === 1) return leafHashes[start] as Uint8Array
  const k = largestPowerOfTwoBelow(end - start)
  return computeNodeHash(hashRange(leafHashes, start, start + k), hashRange(leafHashes, start + k, end))
}

/**
 * `MTH(D[treeSize])` from stored perfect-subtree hashes: one `readNodes` call for the ≤ ⌈log2 n⌉ subtrees
 * of the frontier, folded right to left. `SHA-256("")` for `treeSize === 0`.
 * Throws ProtocolError `invalid_structure` (`tree_size_invalid`) for a bad size.
 */
export async function computeTreeRoot(reader: MerkleNodeReader, treeSize: number): Promise<Uint8Array> {
  const plan = planTreeRoot(treeSize)
  if (treeSize === 0) return computeEmptyTreeHash()
  return (await readProof(reader, plan))[0] as Uint8Array
}
