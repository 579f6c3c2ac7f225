/**
 * RFC-ACDP-0012 §6 checkpoints (signed tree heads): construction, the checkpoint hash and signing. The
 * signing construction is RFC-ACDP-0010 §5 verbatim with the registry receipt signing key.
 */
import { ProtocolError } from '../errors.js'
import { formatSha256 } from '../hash/index.js'
import { computeReceiptHash } from '../receipt/receipt-hash.js'
import { type SigningKey, signReceiptHash } from '../receipt/receipt-signature.js'
import { didOfKeyId } from '../receipt/registry-binding.js'
import { assertWireShape, LogCheckpoint } from '../wire/log.js'
import { registryDidOfLogId } from './log-id.js'

/** A checkpoint before signing: every §6 member except `signature`. */
export type UnsignedLogCheckpoint = Omit<LogCheckpoint, 'signature'>

/** Input of {@link buildCheckpoint}. */
export interface CheckpointInput {
  readonly logId: string
  readonly treeSize: number
  /** Raw 32-byte `MTH(D[treeSize])` (e.g. `MemoryMerkleTree.computeRoot()` or `computeTreeRoot`). */
  readonly rootHash: Uint8Array
  /** The registry clock at evaluation; truncated to milliseconds by `toISOString` (RFC-ACDP-0001 §5.3). */
  readonly timestamp: Date
}

/**
 * The unsigned §6 checkpoint `{checkpoint_version: "acdp-log/1", log_id, tree_size, root_hash, timestamp}`.
 * Throws `TypeError` for a bad root length or an invalid date (caller misuse).
 */
export function buildCheckpoint(input: CheckpointInput): UnsignedLogCheckpoint {
  if (Number.isNaN(input.timestamp.getTime())) throw new TypeError('checkpoint timestamp is an invalid Date')
  return {
    checkpoint_version: 'acdp-log/1',
    log_id: input.logId,
    tree_size: input.treeSize,
    root_hash: formatSha256(input.rootHash),
    timestamp: input.timestamp.toISOString(),
  }
}

/**
 * The checkpoint hash (§6 steps 1–2): `"sha256:" + hex(SHA-256(JCS(checkpoint minus signature)))` — the
 * string whose ASCII bytes the registry signs.
 */
export function computeCheckpointHash(checkpoint: UnsignedLogCheckpoint | LogCheckpoint): string {
  return computeReceiptHash(checkpoint)
}

/**
 * Signs a checkpoint with the registry receipt signing key (§6 steps 3–4) after checking the key id is a
 * DID URL under the registry DID embedded in `log_id`, and validates the closed result.
 * Throws ProtocolError `invalid_structure` (`key_id_not_under_registry_did`, `schema_violation`).
 */
export function signCheckpoint(unsigned: UnsignedLogCheckpoint, key: SigningKey): LogCheckpoint {
  if (didOfKeyId(key.keyId) !== registryDidOfLogId(unsigned.log_id)) {
    throw new ProtocolError('invalid_structure', 'the signing key is not a DID URL under the log_id registry DID', {
      details: { reason: 'key_id_not_under_registry_did' },
    })
  }
  const checkpoint: LogCheckpoint = { ...unsigned, signature: signReceiptHash(computeCheckpointHash(unsigned), key) }
  assertWireShape(LogCheckpoint, checkpoint, 'log_checkpoint')
  return checkpoint
}
