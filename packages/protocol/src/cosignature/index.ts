// Public surface of cosignature/: re-exports only.
export {
  type CosignCheckpointInput,
  computeCosignatureHash,
  cosignCheckpoint,
  type UnsignedLogCosignature,
} from './cosignature.js'
export {
  type CosignatureVerificationContext,
  type CosignedTuple,
  countWitnesses,
  type VerifiedCosignature,
  verifyCosignature,
  type WitnessCount,
} from './verify-cosignature.js'
export {
  type CheckpointTuple,
  type CosignatureDecision,
  type CosignatureDecisionInput,
  type CosignatureRefusalEvidence,
  decideCosignature,
} from './witness-decision.js'
