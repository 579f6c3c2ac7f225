/**
 * Wire schemas of the trust layer as TypeBox: registry receipts (RFC-ACDP-0010, `acdp-registry-receipt`),
 * lineage-head receipts (RFC-ACDP-0011, `acdp-lineage-head-receipt`), the transparency log's leaf, checkpoint,
 * inclusion and consistency proofs and entries page (RFC-ACDP-0012, `acdp-log-*`), witness cosignatures
 * (RFC-ACDP-0015, `acdp-log-cosignature`) and lifecycle events (RFC-ACDP-0013, `acdp-lifecycle-event`).
 *
 * Every signed object here is CLOSED (`additionalProperties: false`): each member is covered by the signature,
 * so an unknown member would change the preimage. Patterns are copied from the spec schemas.
 */
import { type Static, type TSchema, Type } from 'typebox'
import { ProtocolError } from '../errors.js'
import { CONTENT_HASH_PATTERN, CtxId, Did, Hostname, LineageId, Signature, STATUS_PATTERN } from './common.js'
import { compiledValidator } from './compiled-validator.js'

/** RFC-ACDP-0001 §5.3 canonical form, pinned exactly: milliseconds, `Z`. Used for every registry-minted time. */
export const MILLISECOND_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$'
export const MillisecondTimestamp = Type.String({ format: 'date-time', pattern: MILLISECOND_TIMESTAMP_PATTERN })

/** Any `sha256:<64 lowercase hex>` value (root, leaf, receipt, path element, fingerprint). */
export const Sha256Hash = Type.String({ pattern: CONTENT_HASH_PATTERN })

/** RFC-ACDP-0012 §6: `<registry did:web>/log/<instance>`, instance `[a-z0-9-]{1,32}`. */
export const LOG_ID_PATTERN = '^did:web:[a-zA-Z0-9.%:-]+/log/[a-z0-9-]{1,32}$'
export const LogId = Type.String({ pattern: LOG_ID_PATTERN })

/** RFC-ACDP-0015 §4: a witness is identified by a `did:web` or `did:key` DID. */
export const WITNESS_ID_PATTERN = '^did:(web:[a-zA-Z0-9.%:-]+|key:z[1-9A-HJ-NP-Za-km-z]+)$'

// ---------- RFC-ACDP-0010 registry receipt ----------

/** RFC-ACDP-0010 §4 registry receipt (closed; `signature.key_id` under `registry_did`). */
export const RegistryReceipt = Type.Object(
  {
    registry_did: Did,
    ctx_id: CtxId,
    lineage_id: LineageId,
    origin_registry: Hostname,
    created_at: MillisecondTimestamp,
    content_hash: Sha256Hash,
    key_fingerprint: Sha256Hash,
    signature: Signature,
  },
  { additionalProperties: false },
)
export type RegistryReceipt = Static<typeof RegistryReceipt>

// ---------- RFC-ACDP-0011 lineage-head receipt ----------

/** `head_status`: the open status pattern minus `superseded` and `retracted` (RFC-ACDP-0011 §4, RFC-ACDP-0013 §8.3). */
export const HEAD_STATUS_PATTERN = `^(?!(?:superseded|retracted)$)${STATUS_PATTERN.slice(1)}`

/** RFC-ACDP-0011 §4 lineage-head receipt (closed). */
export const LineageHeadReceipt = Type.Object(
  {
    receipt_version: Type.Literal('acdp-lhr/1'),
    registry_did: Did,
    lineage_id: LineageId,
    head_ctx_id: CtxId,
    head_version: Type.Integer({ minimum: 1 }),
    head_status: Type.String({ pattern: HEAD_STATUS_PATTERN, minLength: 1, maxLength: 64 }),
    as_of: MillisecondTimestamp,
    signature: Signature,
  },
  { additionalProperties: false },
)
export type LineageHeadReceipt = Static<typeof LineageHeadReceipt>

// ---------- RFC-ACDP-0012 transparency log ----------

/** RFC-ACDP-0012 §4 log leaf (closed); its JCS bytes are the leaf encoding. */
export const LogLeaf = Type.Object(
  {
    leaf_version: Type.Literal('acdp-log-leaf/1'),
    ctx_id: CtxId,
    lineage_id: LineageId,
    origin_registry: Hostname,
    created_at: MillisecondTimestamp,
    content_hash: Sha256Hash,
    key_fingerprint: Sha256Hash,
    receipt_hash: Sha256Hash,
  },
  { additionalProperties: false },
)
export type LogLeaf = Static<typeof LogLeaf>

/** RFC-ACDP-0012 §6 signed tree head (closed); the bare body of `GET /log/checkpoint`. */
export const LogCheckpoint = Type.Object(
  {
    checkpoint_version: Type.Literal('acdp-log/1'),
    log_id: LogId,
    tree_size: Type.Integer({ minimum: 0 }),
    root_hash: Sha256Hash,
    timestamp: MillisecondTimestamp,
    signature: Signature,
  },
  { additionalProperties: false },
)
export type LogCheckpoint = Static<typeof LogCheckpoint>

/** RFC-ACDP-0012 §8.2 inclusion mode / §10 `log_inclusion` (closed; `leaf` only echoed to authorized requesters). */
export const LogInclusion = Type.Object(
  {
    log_id: LogId,
    leaf_index: Type.Integer({ minimum: 0 }),
    tree_size: Type.Integer({ minimum: 1 }),
    inclusion_path: Type.Array(Sha256Hash),
    log_checkpoint: LogCheckpoint,
    leaf: Type.Optional(LogLeaf),
  },
  { additionalProperties: false },
)
export type LogInclusion = Static<typeof LogInclusion>

/** RFC-ACDP-0012 §8.2 consistency-mode response (no spec schema; closed like the inclusion object). */
export const LogConsistency = Type.Object(
  {
    log_id: LogId,
    first_tree_size: Type.Integer({ minimum: 1 }),
    second_tree_size: Type.Integer({ minimum: 1 }),
    consistency_path: Type.Array(Sha256Hash),
    log_checkpoint: LogCheckpoint,
  },
  { additionalProperties: false },
)
export type LogConsistency = Static<typeof LogConsistency>

/** One `GET /log/entries` entry: `leaf` absent (never null) when the requester may not retrieve the context. */
export const LogEntry = Type.Object(
  { leaf_index: Type.Integer({ minimum: 0 }), leaf_hash: Sha256Hash, leaf: Type.Optional(LogLeaf) },
  { additionalProperties: false },
)
export type LogEntry = Static<typeof LogEntry>

/** RFC-ACDP-0012 §8.3 `GET /log/entries` response. */
export const LogEntries = Type.Object(
  { log_id: LogId, start: Type.Integer({ minimum: 0 }), entries: Type.Array(LogEntry) },
  { additionalProperties: false },
)
export type LogEntries = Static<typeof LogEntries>

// ---------- RFC-ACDP-0015 witness cosignature ----------

/** RFC-ACDP-0015 §4 `witnessed_checkpoint`: the checkpoint tuple the witness observed, copied verbatim (closed). */
export const WitnessedCheckpoint = Type.Object(
  {
    log_id: LogId,
    tree_size: Type.Integer({ minimum: 0 }),
    root_hash: Sha256Hash,
    timestamp: MillisecondTimestamp,
  },
  { additionalProperties: false },
)
export type WitnessedCheckpoint = Static<typeof WitnessedCheckpoint>

/** RFC-ACDP-0015 §4 cosignature (closed; signed by the witness's own key). */
export const LogCosignature = Type.Object(
  {
    cosignature_version: Type.Literal('acdp-cosig/1'),
    witness_id: Type.String({ pattern: WITNESS_ID_PATTERN }),
    witnessed_checkpoint: WitnessedCheckpoint,
    witnessed_at: MillisecondTimestamp,
    signature: Signature,
  },
  { additionalProperties: false },
)
export type LogCosignature = Static<typeof LogCosignature>

/** RFC-ACDP-0015 §6.1 `GET /log/checkpoint` envelope when a registry aggregates cosignatures. */
export const WitnessedLogCheckpoint = Type.Object(
  { log_checkpoint: LogCheckpoint, witness_signatures: Type.Array(LogCosignature, { minItems: 1 }) },
  { additionalProperties: true },
)
export type WitnessedLogCheckpoint = Static<typeof WitnessedLogCheckpoint>

// ---------- RFC-ACDP-0013 lifecycle event ----------

/** RFC-ACDP-0013 §4 lifecycle event (closed; `signature` required on producer-initiated events, §5). */
export const LifecycleEvent = Type.Object(
  {
    event_id: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }),
    ctx_id: CtxId,
    event_type: Type.String({ pattern: STATUS_PATTERN, minLength: 1, maxLength: 64 }),
    occurred_at: MillisecondTimestamp,
    actor: Did,
    reason: Type.Optional(Type.String({ maxLength: 1024 })),
    signature: Type.Optional(Signature),
  },
  { additionalProperties: false },
)
export type LifecycleEvent = Static<typeof LifecycleEvent>

// ---------- closed-shape parsing ----------

/**
 * Checks attacker-controlled `value` against one of the closed schemas above (RFC-ACDP-0010 §8, 0011 §7
 * step 1, 0012 §9.3 step 1, 0015 §8 step 1: "schema-closed parse") and narrows its type.
 * Throws ProtocolError `invalid_structure` with `details.reason = 'schema_violation'`, the object name and
 * every failing `{ path, message }` (never the offending values).
 */
export function assertWireShape<T extends TSchema>(
  schema: T,
  value: unknown,
  objectName: string,
): asserts value is Static<T> {
  const validator = compiledValidator(schema)
  if (validator.Check(value)) return
  const errors = validator.Errors(value).map((error) => ({ path: error.instancePath || '/', message: error.message }))
  throw new ProtocolError('invalid_structure', `${objectName} does not match its closed schema`, {
    details: { reason: 'schema_violation', object: objectName, errors },
  })
}
