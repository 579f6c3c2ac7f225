// Public surface of checkpoint/: re-exports only.
export {
  buildCheckpoint,
  type CheckpointInput,
  computeCheckpointHash,
  signCheckpoint,
  type UnsignedLogCheckpoint,
} from './checkpoint.js'
export { formatLogId, registryDidOfLogId } from './log-id.js'
export { type CheckpointVerificationContext, type VerifiedCheckpoint, verifyCheckpoint } from './verify-checkpoint.js'
export { verifyLogConsistency, verifyLogInclusion } from './verify-log-proofs.js'
