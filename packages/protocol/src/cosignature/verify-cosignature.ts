/**
 * RFC-ACDP-0015 §8 consumer verification of one cosignature, and the N-witnessed quorum count.
 */
import { isProtocolError, ProtocolError } from '../errors.js'
import { DEFAULT_MAX_FUTURE_SKEW_MS } from '../receipt/lineage-head-receipt.js'
import { type ResolveVerificationKey, verifyReceiptSignature } from '../receipt/receipt-signature.js'
import { didOfKeyId } from '../receipt/registry-binding.js'
import { assertWireShape, type LogCheckpoint, LogCosignature } from '../wire/log.js'
import { computeCosignatureHash } from './cosignature.js'

/** The checkpoint tuple a cosignature must cover (§8 step 4); `timestamp` is deliberately not compared. */
export type CosignedTuple = Pick<LogCheckpoint, 'log_id' | 'tree_size' | 'root_hash'>

/** Consumer context shared by {@link verifyCosignature} and {@link countWitnesses}. */
export interface CosignatureVerificationContext {
  /** The checkpoint being evaluated — verified per RFC-ACDP-0012 §9.3 by the caller. */
  readonly checkpoint: CosignedTuple
  /** Resolves `signature.key_id` in the WITNESS's DID document (or did:key); assertionMethod for current keys. */
  readonly resolveKey: ResolveVerificationKey
  /** Trust policy (§8 step 3, §13): witnesses the consumer trusts. Untrusted witnesses are never resolved. */
  readonly isTrustedWitness: (witnessId: string) => boolean
  /** The consumer's clock (injected). */
  readonly now: Date
  /** Allowed witness clock lead for `witnessed_at`; default 120 s (§8 step 5). */
  readonly maxFutureSkewMs?: number
}

/** A cosignature that passed §8, with its hash and `now − witnessed_at` for the freshness policy (§8.1). */
export interface VerifiedCosignature {
  readonly cosignature: LogCosignature
  readonly cosignatureHash: string
  readonly ageMs: number
}

/**
 * RFC-ACDP-0015 §8 steps 1–5 for one cosignature: closed parse with `cosignature_version` `"acdp-cosig/1"`,
 * witness binding (`key_id` DID = `witness_id`, witness trusted) and checkpoint binding before any key is
 * resolved, the witness signature over the recomputed cosignature hash, and `witnessed_at` skew.
 *
 * Throws ProtocolError `invalid_structure` (`schema_violation`) or `verification_failed` with
 * `details.reason`: `key_id_not_under_witness_id`, `witness_not_trusted`, `checkpoint_mismatch`, the
 * `verifyReceiptSignature` reasons (`signature_invalid` for a wrong witness key, wit-004),
 * `witnessed_at_in_future`. Surfaced as `invalid_witness_cosignature`; it fails this cosignature only,
 * never the checkpoint.
 */
export async function verifyCosignature(
  cosignature: unknown,
  context: CosignatureVerificationContext,
): Promise<VerifiedCosignature> {
  assertWireShape(LogCosignature, cosignature, 'log_cosignature')
  if (didOfKeyId(cosignature.signature.key_id) !== cosignature.witness_id) {
    fail('key_id_not_under_witness_id', 'signature.key_id is not a DID URL under witness_id')
  }
  if (!context.isTrustedWitness(cosignature.witness_id))
    fail('witness_not_trusted', 'witness_id is not a trusted witness')
  const observed = cosignature.witnessed_checkpoint
  const expected = context.checkpoint
  if (
    observed.log_id !== expected.log_id ||
    observed.tree_size !== expected.tree_size ||
    observed.root_hash !== expected.root_hash
  ) {
    fail('checkpoint_mismatch', 'cosignature covers a different (log_id, tree_size, root_hash)')
  }
  const cosignatureHash = computeCosignatureHash(cosignature)
  verifyReceiptSignature(cosignatureHash, cosignature.signature, await context.resolveKey(cosignature.signature.key_id))

  const maxFutureSkewMs = context.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS
  const witnessedAtMs = Date.parse(cosignature.witnessed_at)
  if (witnessedAtMs > context.now.getTime() + maxFutureSkewMs) {
    fail('witnessed_at_in_future', 'witnessed_at is beyond the allowed clock skew')
  }
  return { cosignature, cosignatureHash, ageMs: context.now.getTime() - witnessedAtMs }
}

/** Result of {@link countWitnesses}. */
export interface WitnessCount {
  /** N of "N-witnessed": distinct trusted `witness_id`s with a valid cosignature over the tuple. */
  readonly count: number
  /** Those witness DIDs, in first-seen order. */
  readonly witnessIds: readonly string[]
  /** Every cosignature that failed §8, by position — each an `invalid_witness_cosignature` verdict. */
  readonly failures: readonly { readonly index: number; readonly error: ProtocolError }[]
}

/**
 * RFC-ACDP-0015 §8: verifies every cosignature and counts DISTINCT `witness_id`s among the valid ones
 * (several cosignatures from one witness count once). A failing cosignature is reported in `failures` and
 * simply does not count; non-protocol errors (bugs) propagate. Quorum and freshness thresholds are the
 * consumer's policy (§8.1): compare `count` with its minimum.
 */
export async function countWitnesses(
  cosignatures: readonly unknown[],
  context: CosignatureVerificationContext,
): Promise<WitnessCount> {
  const witnessIds: string[] = []
  const failures: { index: number; error: ProtocolError }[] = []
  for (const [index, cosignature] of cosignatures.entries()) {
    try {
      const verified = await verifyCosignature(cosignature, context)
      if (!witnessIds.includes(verified.cosignature.witness_id)) witnessIds.push(verified.cosignature.witness_id)
    } catch (error) {
      if (!isProtocolError(error)) throw error
      failures.push({ index, error })
    }
  }
  return { count: witnessIds.length, witnessIds, failures }
}

function fail(reason: string, message: string): never {
  throw new ProtocolError('verification_failed', message, { details: { reason } })
}
