/**
 * `acdp-context-body.schema.json` and `acdp-registry-state.schema.json` (RFC-ACDP-0002, RFC-ACDP-0004 §3):
 * the immutable body as served on retrieval, and the registry's mutable state beside it. Both are OPEN —
 * consumers tolerate unknown members (RFC-ACDP-0001 §6) — unlike the closed publish request.
 */
import { type Static, Type } from 'typebox'
import {
  Anchors,
  ContentHash,
  ContextType,
  CtxId,
  DataPeriod,
  Did,
  Hostname,
  ifThen,
  LineageId,
  Signature,
  Status,
  Tag,
  Timestamp,
  Visibility,
} from './common.js'
import { DataRef } from './data-ref.js'

export const ContextBody = Type.Object(
  {
    ctx_id: CtxId,
    lineage_id: LineageId,
    version: Type.Integer({ minimum: 1 }),
    supersedes: Type.Union([CtxId, Type.Null()]),
    agent_id: Did,
    contributors: Type.Array(Did, { uniqueItems: true, maxItems: 100 }),
    origin_registry: Hostname,
    created_at: Timestamp,
    content_hash: ContentHash,
    signature: Signature,
    title: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    type: ContextType,
    domain: Type.Optional(Type.String({ maxLength: 200 })),
    schema_uri: Type.Optional(Type.String({ format: 'uri' })),
    data_refs: Type.Array(DataRef),
    derived_from: Type.Array(CtxId, { uniqueItems: true, maxItems: 1000 }),
    tags: Type.Optional(Type.Array(Tag, { uniqueItems: true, maxItems: 200 })),
    data_period: Type.Optional(DataPeriod),
    expires_at: Type.Optional(Timestamp),
    visibility: Visibility,
    audience: Type.Optional(Type.Array(Did, { uniqueItems: true, maxItems: 1000 })),
    summary: Type.Optional(Type.String({ maxLength: 1000 })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 })),
    acdp_version: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' })),
    anchors: Type.Optional(Anchors),
  },
  {
    additionalProperties: true,
    allOf: [
      ifThen(
        { properties: { visibility: { const: 'restricted' } } },
        { required: ['audience'], properties: { audience: { minItems: 1 } } },
      ),
      ifThen({ properties: { version: { const: 1 } } }, { properties: { supersedes: { type: 'null' } } }),
      ifThen(
        { properties: { version: { type: 'integer', minimum: 2 } } },
        { properties: { supersedes: { type: 'string' } } },
      ),
      ifThen(
        { properties: { visibility: { const: 'public' } } },
        { anyOf: [{ not: { required: ['audience'] } }, { properties: { audience: { maxItems: 0 } } }] },
      ),
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
