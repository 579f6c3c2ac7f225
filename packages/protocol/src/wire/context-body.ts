/**
 * `acdp-context-body.schema.json` and `acdp-registry-state.schema.json` (RFC-ACDP-0002, RFC-ACDP-0004 §3):
 * the immutable body as served on retrieval, and the registry's mutable state beside it. Both are OPEN —
 * consumers tolerate unknown members (RFC-ACDP-0001 §6) — unlike the closed publish request.
 */
import { type Static, Type } from 'typebox'
import { CtxId, Hostname, ifThen, LineageId, Status, Timestamp } from './common.js'
import {
  authorshipFields,
  contentFields,
  laterVersionSupersedes,
  protocolVersionFields,
  publicHasNoAudience,
  restrictedNeedsAudience,
} from './context-fields.js'

export const ContextBody = Type.Object(
  {
    ctx_id: CtxId,
    lineage_id: LineageId,
    ...authorshipFields,
    origin_registry: Hostname,
    created_at: Timestamp,
    ...contentFields,
    ...protocolVersionFields,
  },
  {
    additionalProperties: true,
    allOf: [
      restrictedNeedsAudience,
      ifThen({ properties: { version: { const: 1 } } }, { properties: { supersedes: { type: 'null' } } }),
      laterVersionSupersedes,
      publicHasNoAudience,
    ],
  },
)
export type ContextBody = Static<typeof ContextBody>

/**
 * Registry state: `status` is derived at read time (RFC-ACDP-0004 §4, precedence retracted > superseded >
 * expired > active); `lifecycle_events` appears only on lifecycle-profile registries and never as `[]`.
 */
export const RegistryState = Type.Object(
  {
    status: Status,
    lifecycle_events: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1 })),
  },
  { additionalProperties: true },
)
export type RegistryState = Static<typeof RegistryState>

/** Full retrieval envelope (`acdp-context.schema.json`): open, so receipts and proofs can sit beside `body`. */
export const ContextEnvelope = Type.Object(
  {
    body: ContextBody,
    registry_state: RegistryState,
    registry_receipt: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
)
export type ContextEnvelope = Static<typeof ContextEnvelope>
