/**
 * RFC-ACDP-0012 §8.2 / §9.1 inclusion proofs over raw digests: generation from stored perfect-subtree hashes
 * (RFC 6962 §2.1.1 `PATH`) and verification by the RFC 9162 §2.1.3.2 folding algorithm.
 */
import { ProtocolError } from '../errors.js'
import { type MerkleNodeReader, readProof } from './node-reader.js'
import { planInclusionProof } from './proof-plan.js'
import { computeNodeHash, equalHashes, MERKLE_HASH_BYTES } from './tree-hash.js'

/**
 * The audit path `PATH(leafIndex, D[treeSize])` read from `reader` in one batch: raw digests ordered from the
 * lowest level upward. `treeSize` may be any size the store has reached (historical proofs included).
 * Throws ProtocolError `invalid_structure` (`tree_size_invalid`, `leaf_index_out_of_range`) for bad arguments.
 */
export async function generateInclusionProof(
  reader: MerkleNodeReader,
  leafIndex: number,
  treeSize: number,
): Promise<Uint8Array[]> {
  return readProof(reader, planInclusionProof(leafIndex, treeSize))
}

/** Input of {@link verifyInclusionProof}; every field may be attacker-controlled. */
export interface InclusionProofInput {
  /** The leaf hash the verifier computed itself (RFC-ACDP-0012 §9.1 steps 1–2), never an echoed value. */
  readonly leafHash: Uint8Array
  readonly leafIndex: number
  readonly treeSize: number
  readonly inclusionPath: readonly Uint8Array[]
  /** The root from a checkpoint the verifier has already verified (§9.3). */
  readonly rootHash: Uint8Array
}

/**
 * RFC-ACDP-0012 §9.1 steps 5–6 (RFC 9162 §2.1.3.2): folds `inclusionPath` over `leafHash` and requires the
 * result to equal `rootHash` with the path consumed exactly.
 *
 * Throws ProtocolError `verification_failed` with `details.reason` one of `tree_size_invalid`,
 * `leaf_index_out_of_range`, `malformed_hash`, `inclusion_path_too_long`, `inclusion_path_too_short`,
 * `root_mismatch`. Servers report it as `invalid_log_proof`.
 */
export function verifyInclusionProof(input: InclusionProofInput): void {
  const { leafHash, leafIndex, treeSize, inclusionPath, rootHash } = input
  // Attacker-controlled numbers: reject anything that is not a safe integer before doing arithmetic on it.
  if (!Number.isSafeInteger(treeSize) || treeSize < 1) fail('tree_size_invalid', { tree_size: treeSize })
  if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= treeSize) {
    fail('leaf_index_out_of_range', { leaf_index: leafIndex, tree_size: treeSize })
  }
  if ([leafHash, rootHash, ...inclusionPath].some((hash) => hash.length !== MERKLE_HASH_BYTES)) fail('malformed_hash')

  let fn = leafIndex
  let sn = treeSize - 1
  let r = leafHash
  for (const p of inclusionPath) {
    if (sn === 0) fail('inclusion_path_too_long', { path_length: inclusionPath.length })
    if (fn % 2 === 1 || fn === sn) {
      r = computeNodeHash(p, r)
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2)
        sn = Math.floor(sn / 2)
      }
    } else {
      r = computeNodeHash(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  if (sn !== 0) fail('inclusion_path_too_short', { path_length: inclusionPath.length })
  if (!equalHashes(r, rootHash)) fail('root_mismatch')
}

function fail(reason: string, details: Record<string, unknown> = {}): never {
  throw new ProtocolError('verification_failed', `inclusion proof does not verify: ${reason}`, {
    details: { reason, ...details },
  })
}
