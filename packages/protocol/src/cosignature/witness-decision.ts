/**
 * RFC-ACDP-0015 §7 witness obligations: whether a witness may cosign a presented checkpoint given its
 * retained head — the refusal on a failed consistency proof is the entire point of witnessing (wit-002).
 */
import { isProtocolError } from '../errors.js'
import { formatSha256, parseSha256 } from '../hash/index.js'
import { verifyConsistencyProof } from '../merkle/consistency-proof.js'
import { computeEmptyTreeHash } from '../merkle/tree-hash.js'
import type { LogCheckpoint } from '../wire/log.js'

const EMPTY_TREE_ROOT_HASH = formatSha256(computeEmptyTreeHash())

/** The identity-bearing checkpoint fields a witness compares. */
export type CheckpointTuple = Pick<LogCheckpoint, 'log_id' | 'tree_size' | 'root_hash'>

/** Input of {@link decideCosignature}. */
export interface CosignatureDecisionInput {
  /** The checkpoint presented for cosigning, whose own signature the witness already verified (§7 step 1). */
  readonly presented: CheckpointTuple
  /** The witness's retained head for the same `log_id`, if it has one (§7 step 2). */
  readonly retainedHead?: CheckpointTuple | undefined
  /**
   * The RFC-ACDP-0012 consistency proof from the smaller to the larger of the two tree sizes, as fetched from
   * `GET /log/proof?first=…&second=…` (raw digests). Ignored when there is no retained head.
   */
  readonly consistencyPath: readonly Uint8Array[]
}

/** What a refusing witness MUST persist (§7, RFC-ACDP-0012 §15): both checkpoints and the failing proof. */
export interface CosignatureRefusalEvidence {
  readonly retained_head: CheckpointTuple
  readonly presented_checkpoint: CheckpointTuple
  readonly consistency_path: readonly string[]
  /** `details` of the failed verification (e.g. `{ reason: 'second_root_mismatch' }`). */
  readonly failure: Readonly<Record<string, unknown>>
}

/** The witness's verdict. On `cosign`, the presented checkpoint SHOULD become the retained head when it is newer. */
export type CosignatureDecision =
  | { readonly action: 'cosign'; readonly reason: 'first_observation' | 'consistent_with_retained_head' }
  | {
      readonly action: 'refuse'
      readonly reason: 'consistency_proof_failed_against_retained_head' | 'log_id_mismatch'
      readonly evidence: CosignatureRefusalEvidence
    }

/**
 * RFC-ACDP-0015 §7 step 2. With no retained head the checkpoint anchors the witness (cosign, proving no
 * consistency yet). Otherwise the consistency proof between the retained head and the presented checkpoint
 * (in whichever direction their sizes give) must verify against both roots; if it does not, the witness
 * MUST NOT cosign and gets the evidence to persist. A retained head of another `log_id` is refused too:
 * consistency exists only within one log instantiation (RFC-ACDP-0012 §7.4).
 * Never throws for attacker data; a malformed `root_hash` is a refusal.
 */
export function decideCosignature(input: CosignatureDecisionInput): CosignatureDecision {
  const { presented, retainedHead, consistencyPath } = input
  if (retainedHead === undefined) return { action: 'cosign', reason: 'first_observation' }
  const evidence = (failure: Record<string, unknown>): CosignatureRefusalEvidence => ({
    retained_head: retainedHead,
    presented_checkpoint: presented,
    consistency_path: consistencyPath.map((hash) => (hash.length === 32 ? formatSha256(hash) : '<malformed>')),
    failure,
  })
  if (retainedHead.log_id !== presented.log_id) {
    return { action: 'refuse', reason: 'log_id_mismatch', evidence: evidence({ reason: 'log_id_mismatch' }) }
  }
  const [older, newer] =
    retainedHead.tree_size <= presented.tree_size ? [retainedHead, presented] : [presented, retainedHead]
  // An empty tree is a prefix of every tree (RFC-ACDP-0012 §9.2 step 2): nothing to prove beyond its root.
  if (older.tree_size === 0) {
    return older.root_hash === EMPTY_TREE_ROOT_HASH
      ? { action: 'cosign', reason: 'consistent_with_retained_head' }
      : {
          action: 'refuse',
          reason: 'consistency_proof_failed_against_retained_head',
          evidence: evidence({ reason: 'empty_tree_root_mismatch' }),
        }
  }
  try {
    verifyConsistencyProof({
      firstTreeSize: older.tree_size,
      secondTreeSize: newer.tree_size,
      firstRootHash: parseSha256(older.root_hash),
      secondRootHash: parseSha256(newer.root_hash),
      consistencyPath,
    })
  } catch (error) {
    if (!isProtocolError(error)) throw error
    return {
      action: 'refuse',
      reason: 'consistency_proof_failed_against_retained_head',
      evidence: evidence({ code: error.code, ...(error.details ?? {}) }),
    }
  }
  return { action: 'cosign', reason: 'consistent_with_retained_head' }
}
