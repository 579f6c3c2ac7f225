/**
 * `acdp-publish-request.schema.json` (RFC-ACDP-0003 §2): the CLOSED body of `POST /contexts`, plus the
 * RFC-ACDP-0016 `anchors` member (acdp 0.5.0). Registry-assigned fields (`ctx_id`, `origin_registry`,
 * `created_at`, and `lineage_id` on a first version) are rejected by the closed shape (pub-012..014, pub-004).
 *
 * What JSON Schema cannot say is checked at runtime by the registry: metadata depth and canonical size
 * (RFC-ACDP-0002 §3.3), embedded decoded size and hash, `data_period` order, DID-method rules, anchors vs
 * the body's `acdp_version`, key-revocation metadata, and the signature value length (→ `invalid_signature`).
 */
import { type Static, Type } from 'typebox'
import {
  Anchors,
  ContentHash,
  ContextType,
  CtxId,
  DataPeriod,
  Did,
  ifThen,
  LineageId,
  Signature,
  Tag,
  Timestamp,
  Visibility,
} from './common.js'
import { DataRef } from './data-ref.js'

export const PublishRequest = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    supersedes: Type.Union([CtxId, Type.Null()]),
    agent_id: Did,
    contributors: Type.Array(Did, { uniqueItems: true, maxItems: 100 }),
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
    lineage_id: Type.Optional(LineageId),
    acdp_version: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' })),
    anchors: Type.Optional(Anchors),
  },
  {
    additionalProperties: false,
    allOf: [
      // RFC-ACDP-0003 §2.1 step 11 and RFC-ACDP-0002 §7.
      ifThen(
        { properties: { visibility: { const: 'restricted' } } },
        { required: ['audience'], properties: { audience: { minItems: 1 } } },
      ),
      ifThen(
        { properties: { visibility: { const: 'public' } } },
        { anyOf: [{ not: { required: ['audience'] } }, { properties: { audience: { maxItems: 0 } } }] },
      ),
      // A private context's audience is optional, but never present-and-empty (RFC-ACDP-0002 §7).
      ifThen({ properties: { visibility: { const: 'private' } } }, { properties: { audience: { minItems: 1 } } }),
      // Version 1 starts a lineage: `supersedes` is null and `lineage_id` absent (pub-004).
      ifThen(
        { properties: { version: { const: 1 } } },
        { properties: { supersedes: { type: 'null' } }, not: { required: ['lineage_id'] } },
      ),
      ifThen(
        { properties: { version: { type: 'integer', minimum: 2 } } },
        { properties: { supersedes: { type: 'string' } } },
      ),
    ],
  },
)

/** A schema-valid publish request. Unknown members are impossible here; DataRef and anchor extras are kept. */
export type PublishRequest = Static<typeof PublishRequest>
