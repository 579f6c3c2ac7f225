/**
 * RFC-ACDP-0012 §9.3 checkpoint verification.
 */
import { ProtocolError } from '../errors.js'
import { formatSha256, parseSha256 } from '../hash/index.js'
import { computeEmptyTreeHash } from '../merkle/tree-hash.js'
import { DEFAULT_MAX_FUTURE_SKEW_MS } from '../receipt/lineage-head-receipt.js'
import { type ResolveVerificationKey, verifyReceiptSignature } from '../receipt/receipt-signature.js'
import { assertRegistryBinding } from '../receipt/registry-binding.js'
import { assertWireShape, LogCheckpoint } from '../wire/log.js'
import { computeCheckpointHash } from './checkpoint.js'
import { registryDidOfLogId } from './log-id.js'

/** Where and when a checkpoint is being verified; shared by the §9.1–§9.3 procedures. */
export interface CheckpointVerificationContext {
  /** The authority the checkpoint was fetched from (`host` or `host:port`). */
  readonly authority: string
  /** `capabilities.registry_did`, when known; must agree with the DID in `log_id`. */
  readonly capabilitiesRegistryDid?: string | undefined
  /** Resolves the registry receipt key named by `signature.key_id` (RFC-ACDP-0010 §9 lifecycle). */
  readonly resolveKey: ResolveVerificationKey
  /** The verifier's clock (injected). */
  readonly now: Date
  /** Allowed registry clock lead for `timestamp`; default 120 s (RECOMMENDED, §9.3 step 4). */
  readonly maxFutureSkewMs?: number
}

/** A checkpoint that passed §9.3, with its hash and raw root for the proof procedures. */
export interface VerifiedCheckpoint {
  readonly checkpoint: LogCheckpoint
  readonly checkpointHash: string
  readonly rootHash: Uint8Array
}

/**
 * RFC-ACDP-0012 §9.3: closed parse with `checkpoint_version` `"acdp-log/1"` (step 1), registry binding of the
 * DID in `log_id` and of `signature.key_id` before any key is resolved (step 3), signature over the
 * recomputed checkpoint hash (step 2), and form: `timestamp` not beyond the skew allowance (step 4).
 *
 * Throws ProtocolError `invalid_structure` (`schema_violation`) or `verification_failed` with
 * `details.reason`: the `assertRegistryBinding` reasons, the `verifyReceiptSignature` reasons,
 * `timestamp_in_future`, or `empty_tree_root_mismatch` (`tree_size` 0 with a root other than
 * `SHA-256("")`). Key-resolution errors pass through. Surfaced as `invalid_log_proof`.
 */
export async function verifyCheckpoint(
  checkpoint: unknown,
  context: CheckpointVerificationContext,
): Promise<VerifiedCheckpoint> {
  assertWireShape(LogCheckpoint, checkpoint, 'log_checkpoint')
  assertRegistryBinding({
    registryDid: registryDidOfLogId(checkpoint.log_id) as string,
    keyId: checkpoint.signature.key_id,
    authority: context.authority,
    capabilitiesRegistryDid: context.capabilitiesRegistryDid,
  })
  const checkpointHash = computeCheckpointHash(checkpoint)
  verifyReceiptSignature(checkpointHash, checkpoint.signature, await context.resolveKey(checkpoint.signature.key_id))

  const maxFutureSkewMs = context.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS
  if (Date.parse(checkpoint.timestamp) > context.now.getTime() + maxFutureSkewMs) {
    throw new ProtocolError('verification_failed', 'checkpoint timestamp is beyond the allowed clock skew', {
      details: { reason: 'timestamp_in_future', max_future_skew_ms: maxFutureSkewMs },
    })
  }
  // §5.2: a tree of no leaves has exactly one root; any other value cannot be the MTH of an empty log.
  if (checkpoint.tree_size === 0 && checkpoint.root_hash !== formatSha256(computeEmptyTreeHash())) {
    throw new ProtocolError('verification_failed', 'an empty log must carry the empty-tree root', {
      details: { reason: 'empty_tree_root_mismatch' },
    })
  }
  return { checkpoint, checkpointHash, rootHash: parseSha256(checkpoint.root_hash) }
}
