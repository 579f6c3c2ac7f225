/**
 * RFC-ACDP-0012 §8.2 / §9.2 consistency proofs over raw digests: generation from stored perfect-subtree
 * hashes (RFC 6962 §2.1.2 `PROOF`) and verification by the RFC 9162 §2.1.4.2 algorithm.
 */
import { ProtocolError } from '../errors.js'
import { type MerkleNodeReader, readProof } from './node-reader.js'
import { planConsistencyProof } from './proof-plan.js'
import { isPowerOfTwo } from './subtree.js'
import { computeNodeHash, equalHashes, MERKLE_HASH_BYTES } from './tree-hash.js'

/**
 * The consistency proof `PROOF(first, D[second])` read from `reader` in one batch (empty when
 * `first === second`). Requires `0 < first ≤ second` (RFC-ACDP-0012 §8.2).
 * Throws ProtocolError `invalid_structure` (`tree_size_invalid`) for bad sizes.
 */
export async function generateConsistencyProof(
  reader: MerkleNodeReader,
  first: number,
  second: number,
): Promise<Uint8Array[]> {
  return readProof(reader, planConsistencyProof(first, second))
}

/** Input of {@link verifyConsistencyProof}; every field may be attacker-controlled. */
export interface ConsistencyProofInput {
  readonly firstTreeSize: number
  readonly secondTreeSize: number
  /** The root of the checkpoint the verifier retained at `firstTreeSize`. */
  readonly firstRootHash: Uint8Array
  /** The root of the (verified) checkpoint at `secondTreeSize`. */
  readonly secondRootHash: Uint8Array
  readonly consistencyPath: readonly Uint8Array[]
}

/**
 * RFC-ACDP-0012 §9.2 (RFC 9162 §2.1.4.2): proves the tree of `firstTreeSize` leaves is a prefix of the tree
 * of `secondTreeSize` leaves.
 *
 * Throws ProtocolError `verification_failed` with `details.reason` one of `tree_size_invalid`,
 * `malformed_hash`, `consistency_path_not_empty`, `consistency_path_empty`, `consistency_path_too_long`,
 * `consistency_path_too_short`, `first_root_mismatch`, `second_root_mismatch`, `root_mismatch`.
 * Between two signature-valid checkpoints of one `log_id` this failure is evidence of a history rewrite
 * (§9.2, §15): callers should keep both checkpoints and the path. Servers report it as `invalid_log_proof`.
 */
export function verifyConsistencyProof(input: ConsistencyProofInput): void {
  const { firstTreeSize: first, secondTreeSize: second, firstRootHash, secondRootHash, consistencyPath } = input
  // Attacker-controlled numbers: reject anything that is not a safe integer before doing arithmetic on it.
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || second < 0) {
    fail('tree_size_invalid', { first_tree_size: first, second_tree_size: second })
  }
  if ([firstRootHash, secondRootHash, ...consistencyPath].some((hash) => hash.length !== MERKLE_HASH_BYTES)) {
    fail('malformed_hash')
  }
  // Step 1: equal sizes prove nothing but equality.
  if (first === second) {
    if (consistencyPath.length !== 0) fail('consistency_path_not_empty', { path_length: consistencyPath.length })
    if (!equalHashes(firstRootHash, secondRootHash)) fail('root_mismatch')
    return
  }
  // Step 2: the empty tree is never proven; a shrinking tree is never consistent.
  if (first === 0 || first > second) fail('tree_size_invalid', { first_tree_size: first, second_tree_size: second })
  if (consistencyPath.length === 0) fail('consistency_path_empty')

  // Step 3: a power-of-two first tree is itself a node of the second tree; the proof omits it.
  const path = isPowerOfTwo(first) ? [firstRootHash, ...consistencyPath] : consistencyPath
  let fn = first - 1
  let sn = second - 1
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  let fr = path[0] as Uint8Array
  let sr = fr
  for (let i = 1; i < path.length; i++) {
    const c = path[i] as Uint8Array
    if (sn === 0) fail('consistency_path_too_long', { path_length: consistencyPath.length })
    if (fn % 2 === 1 || fn === sn) {
      fr = computeNodeHash(c, fr)
      sr = computeNodeHash(c, sr)
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2)
        sn = Math.floor(sn / 2)
      }
    } else {
      sr = computeNodeHash(sr, c)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  if (sn !== 0) fail('consistency_path_too_short', { path_length: consistencyPath.length })
  if (!equalHashes(fr, firstRootHash)) fail('first_root_mismatch')
  if (!equalHashes(sr, secondRootHash)) fail('second_root_mismatch')
}

function fail(reason: string, details: Record<string, unknown> = {}): never {
  throw new ProtocolError('verification_failed', `consistency proof does not verify: ${reason}`, {
    details: { reason, ...details },
  })
}
