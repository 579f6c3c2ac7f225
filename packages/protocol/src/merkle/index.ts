// Public surface of merkle/: re-exports only.
export { buildAppendedNodes, planAppend, type StoredMerkleNode } from './append.js'
export { type ConsistencyProofInput, generateConsistencyProof, verifyConsistencyProof } from './consistency-proof.js'
export { generateInclusionProof, type InclusionProofInput, verifyInclusionProof } from './inclusion-proof.js'
export { buildLogLeaf, computeLogLeafHash, encodeLogLeaf, encodeMintedLogLeaf } from './log-leaf.js'
export { MemoryMerkleTree } from './memory-tree.js'
export { type MerkleNodeReader, readProof } from './node-reader.js'
export {
  assembleProof,
  foldRangeHashes,
  type MerkleProofElementPlan,
  type MerkleProofPlan,
  planConsistencyProof,
  planInclusionProof,
  planTreeRoot,
} from './proof-plan.js'
export { computeMerkleRoot, computeTreeRoot } from './root.js'
export {
  decomposeRange,
  isPowerOfTwo,
  type LeafRange,
  largestPowerOfTwoBelow,
  type MerkleNodeAddress,
} from './subtree.js'
export { computeEmptyTreeHash, computeLeafHash, computeNodeHash, equalHashes, MERKLE_HASH_BYTES } from './tree-hash.js'
