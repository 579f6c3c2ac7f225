/**
 * RFC-ACDP-0015 §4–§5 witness cosignatures (`acdp-cosig/1`): the cosignature hash and signing. The
 * construction is RFC-ACDP-0010 §5 verbatim, keyed by the WITNESS's own key, never the registry's.
 */
import { ProtocolError } from '../errors.js'
import { computeReceiptHash } from '../receipt/receipt-hash.js'
import { type SigningKey, signReceiptHash } from '../receipt/receipt-signature.js'
import { didOfKeyId } from '../receipt/registry-binding.js'
import { assertWireShape, type LogCheckpoint, LogCosignature } from '../wire/log.js'

/** A cosignature before signing. */
export type UnsignedLogCosignature = Omit<LogCosignature, 'signature'>

/**
 * The cosignature hash (§5 steps 1–2): `"sha256:" + hex(SHA-256(JCS(cosignature minus signature)))`.
 */
export function computeCosignatureHash(cosignature: UnsignedLogCosignature | LogCosignature): string {
  return computeReceiptHash(cosignature)
}

/** Input of {@link cosignCheckpoint}. */
export interface CosignCheckpointInput {
  /** A checkpoint the witness has verified (RFC-ACDP-0012 §9.3) and found consistent with its retained head (§7). */
  readonly checkpoint: Pick<LogCheckpoint, 'log_id' | 'tree_size' | 'root_hash' | 'timestamp'>
  /** The witness's DID (`did:web` or `did:key`). */
  readonly witnessId: string
  /** The witness clock at observation; truncated to milliseconds. */
  readonly witnessedAt: Date
  /** The witness's own assertionMethod key; `keyId` must be a DID URL under `witnessId`. */
  readonly key: SigningKey
}

/**
 * RFC-ACDP-0015 §7 step 3 and §5: copies `{log_id, tree_size, root_hash, timestamp}` verbatim into
 * `witnessed_checkpoint`, stamps `witnessed_at`, and signs the cosignature hash with the witness key.
 * Callers MUST have run the §7 checks first (see `decideCosignature`).
 * Throws ProtocolError `invalid_structure` (`key_id_not_under_witness_id`, `schema_violation`).
 */
export function cosignCheckpoint(input: CosignCheckpointInput): LogCosignature {
  const { checkpoint, witnessId, witnessedAt, key } = input
  if (didOfKeyId(key.keyId) !== witnessId) {
    throw new ProtocolError('invalid_structure', 'the signing key is not a DID URL under witness_id', {
      details: { reason: 'key_id_not_under_witness_id' },
    })
  }
  if (Number.isNaN(witnessedAt.getTime())) throw new TypeError('witnessedAt is an invalid Date')
  const unsigned: UnsignedLogCosignature = {
    cosignature_version: 'acdp-cosig/1',
    witness_id: witnessId,
    witnessed_checkpoint: {
      log_id: checkpoint.log_id,
      tree_size: checkpoint.tree_size,
      root_hash: checkpoint.root_hash,
      timestamp: checkpoint.timestamp,
    },
    witnessed_at: witnessedAt.toISOString(),
  }
  const cosignature: LogCosignature = { ...unsigned, signature: signReceiptHash(computeCosignatureHash(unsigned), key) }
  assertWireShape(LogCosignature, cosignature, 'log_cosignature')
  return cosignature
}
