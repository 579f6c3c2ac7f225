/**
 * The members the publish request (RFC-ACDP-0003 §2) and the served context body (RFC-ACDP-0002 §3) share, and
 * the audience and version rules both state. Internal to wire/: each schema spreads these groups in its own
 * member order beside its own members, and keeps its own openness (the request closed, the body open).
 */
import { Type } from 'typebox'
import {
  Anchors,
  ContentHash,
  ContextType,
  CtxId,
  DataPeriod,
  Did,
  ifThen,
  Signature,
  Tag,
  Timestamp,
  Visibility,
} from './common.js'
import { DataRef } from './data-ref.js'

/** Who published which version: `version`, `supersedes`, `agent_id`, `contributors`. */
export const authorshipFields = {
  version: Type.Integer({ minimum: 1 }),
  supersedes: Type.Union([CtxId, Type.Null()]),
  agent_id: Did,
  contributors: Type.Array(Did, { uniqueItems: true, maxItems: 100 }),
}

/** The signed content and its description, `content_hash` through `metadata`. */
export const contentFields = {
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
}

/** The protocol version the body was written for and its RFC-ACDP-0016 anchors. */
export const protocolVersionFields = {
  acdp_version: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' })),
  anchors: Type.Optional(Anchors),
}

/** A restricted context names at least one audience member (RFC-ACDP-0002 §7). */
export const restrictedNeedsAudience = ifThen(
  { properties: { visibility: { const: 'restricted' } } },
  { required: ['audience'], properties: { audience: { minItems: 1 } } },
)

/** A public context has no audience, or an empty one (RFC-ACDP-0002 §7). */
export const publicHasNoAudience = ifThen(
  { properties: { visibility: { const: 'public' } } },
  { anyOf: [{ not: { required: ['audience'] } }, { properties: { audience: { maxItems: 0 } } }] },
)

/** Version 2 and later name the version they supersede. */
export const laterVersionSupersedes = ifThen(
  { properties: { version: { type: 'integer', minimum: 2 } } },
  { properties: { supersedes: { type: 'string' } } },
)
