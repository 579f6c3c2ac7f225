/**
 * RFC-ACDP-0012 §9.1 and §9.2 on the wire objects of `GET /log/proof`: checkpoint verification, the binding
 * checks between proof and checkpoint, then the RFC 9162 algorithms of `merkle/`.
 */
import { ProtocolError } from '../errors.js'
import { parseSha256 } from '../hash/index.js'
import { verifyConsistencyProof } from '../merkle/consistency-proof.js'
import { verifyInclusionProof } from '../merkle/inclusion-proof.js'
import { assertWireShape, type LogCheckpoint, LogConsistency, LogInclusion } from '../wire/log.js'
import { type CheckpointVerificationContext, type VerifiedCheckpoint, verifyCheckpoint } from './verify-checkpoint.js'

/**
 * RFC-ACDP-0012 §9.1 steps 3–6 for a `log_inclusion` object (or an inclusion-mode `/log/proof` response).
 * `leafHash` MUST come from steps 1–2: the leaf rebuilt from verified body and receipt material
 * (`buildLogLeaf` + `computeLogLeafHash`), never the echoed `leaf`.
 *
 * Throws ProtocolError `invalid_structure` (`schema_violation`) or `verification_failed` with
 * `details.reason`: any `verifyCheckpoint` reason, `tree_size_mismatch`, `log_id_mismatch`, or any
 * `verifyInclusionProof` reason (`root_mismatch` for a tampered path, log-002). Surfaced as `invalid_log_proof`.
 */
export async function verifyLogInclusion(
  inclusion: unknown,
  leafHash: Uint8Array,
  context: CheckpointVerificationContext,
): Promise<VerifiedCheckpoint> {
  assertWireShape(LogInclusion, inclusion, 'log_inclusion')
  const verified = await verifyCheckpoint(inclusion.log_checkpoint, context)
  if (inclusion.tree_size !== verified.checkpoint.tree_size)
    fail('tree_size_mismatch', 'proof tree_size differs from the checkpoint')
  if (inclusion.log_id !== verified.checkpoint.log_id)
    fail('log_id_mismatch', 'proof log_id differs from the checkpoint')
  verifyInclusionProof({
    leafHash,
    leafIndex: inclusion.leaf_index,
    treeSize: inclusion.tree_size,
    inclusionPath: inclusion.inclusion_path.map(parseSha256),
    rootHash: verified.rootHash,
  })
  return verified
}

/**
 * RFC-ACDP-0012 §9.2 for a consistency-mode `/log/proof` response against `retained`, a checkpoint of the
 * same log the verifier verified and kept earlier. Verifies the response's checkpoint (§9.3), requires one
 * `log_id` throughout (a different `log_id` is a log reset, §7.4, never provable) and the sizes to match the
 * two checkpoints, then runs the RFC 9162 §2.1.4.2 algorithm.
 *
 * Returns the newly verified checkpoint (the verifier's next retained head). Throws ProtocolError
 * `invalid_structure` (`schema_violation`) or `verification_failed` with `details.reason`: any
 * `verifyCheckpoint` reason, `log_id_mismatch`, `tree_size_mismatch`, or any `verifyConsistencyProof` reason.
 * A failure between two signature-valid checkpoints is evidence of a history rewrite: keep both and the path.
 */
export async function verifyLogConsistency(
  consistency: unknown,
  retained: Pick<LogCheckpoint, 'log_id' | 'tree_size' | 'root_hash'>,
  context: CheckpointVerificationContext,
): Promise<VerifiedCheckpoint> {
  assertWireShape(LogConsistency, consistency, 'log_consistency')
  const verified = await verifyCheckpoint(consistency.log_checkpoint, context)
  const second = verified.checkpoint
  if (consistency.log_id !== second.log_id || retained.log_id !== second.log_id) {
    fail('log_id_mismatch', 'consistency proof spans different log instantiations')
  }
  if (consistency.second_tree_size !== second.tree_size || consistency.first_tree_size !== retained.tree_size) {
    fail('tree_size_mismatch', 'consistency proof sizes differ from the checkpoints')
  }
  verifyConsistencyProof({
    firstTreeSize: retained.tree_size,
    secondTreeSize: second.tree_size,
    firstRootHash: parseSha256(retained.root_hash),
    secondRootHash: verified.rootHash,
    consistencyPath: consistency.consistency_path.map(parseSha256),
  })
  return verified
}

function fail(reason: string, message: string): never {
  throw new ProtocolError('verification_failed', message, { details: { reason } })
}
