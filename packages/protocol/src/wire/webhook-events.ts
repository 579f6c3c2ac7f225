/**
 * The registry's webhook event envelopes (product spec registry.md "Events"): flat JSON
 * objects, the variant fields plus `event_id` (stable across delivery retries), `schema_version` "1.0" and
 * `type` (snake_case in the body; dotted in the `X-ACDP-Event` header). Three types are always delivered:
 * context_published, context_retrieved and search_executed; a registry running the lifecycle profile
 * (RFC-ACDP-0013) also delivers context_retracted and context_republished.
 *
 * The schemas are closed: a registry checks its own output against them exactly. A receiver (the control
 * plane) must stay lenient instead and accept unknown members from newer senders, so it validates only the
 * members it uses and never rejects a delivery with these closed schemas.
 */
import { type Static, Type } from 'typebox'
import { ContentHash, ContextType, CTX_ID_PATTERN, Did, LineageId, Timestamp, Visibility } from './common.js'
import { RegistryReceipt } from './log.js'

/** Value of `schema_version` in every envelope. */
export const WEBHOOK_EVENT_SCHEMA_VERSION = '1.0'

/** Body `type` → `X-ACDP-Event` header value. */
export const WEBHOOK_EVENT_HEADER_NAMES = {
  context_published: 'context.published',
  context_retrieved: 'context.retrieved',
  search_executed: 'search.executed',
  context_retracted: 'context.retracted',
  context_republished: 'context.republished',
} as const

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_HEADER_NAMES

/** A registry authority: lowercase host name, optionally with a port (local deployments). */
export const RegistryAuthority = Type.String({
  pattern: '^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::[0-9]{1,5})?$',
  minLength: 1,
  maxLength: 255,
})

/**
 * A ctx_id in the event form `<authority>/<id>` (product spec registry.md "Resources": the `acdp://` scheme is
 * dropped in events): the RFC-ACDP-0001 §5.5 grammar without its scheme.
 */
export const EVENT_CTX_ID_PATTERN = `^${CTX_ID_PATTERN.slice('^acdp://'.length)}`
export const EventCtxId = Type.String({ pattern: EVENT_CTX_ID_PATTERN })

/** Nullable DID of the caller; null for anonymous requests. */
const RequesterDid = Type.Union([Did, Type.Null()])

const envelope = {
  event_id: Type.String({ minLength: 1, maxLength: 128 }),
  schema_version: Type.Literal(WEBHOOK_EVENT_SCHEMA_VERSION),
  registry_authority: RegistryAuthority,
}

/**
 * Emitted on a successful first publish (never on an idempotent replay). `run_id` echoes the publisher's
 * X-Run-Id and is omitted when absent; `key_fingerprint` and `registry_receipt` (the RFC-ACDP-0010 receipt minted
 * for this publish) are omitted on a registry without receipts.
 */
export const ContextPublishedWebhookEvent = Type.Object(
  {
    ...envelope,
    type: Type.Literal('context_published'),
    registry_base_url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 }),
    ctx_id: EventCtxId,
    lineage_id: LineageId,
    agent_id: Did,
    context_type: ContextType,
    visibility: Visibility,
    version: Type.Integer({ minimum: 1 }),
    created_at: Timestamp,
    derived_from: Type.Array(EventCtxId),
    run_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    key_fingerprint: Type.Optional(ContentHash),
    registry_receipt: Type.Optional(RegistryReceipt),
  },
  { additionalProperties: false },
)
export type ContextPublishedWebhookEvent = Static<typeof ContextPublishedWebhookEvent>

/** Emitted on a retrieval. */
export const ContextRetrievedWebhookEvent = Type.Object(
  {
    ...envelope,
    type: Type.Literal('context_retrieved'),
    ctx_id: EventCtxId,
    requester_did: RequesterDid,
    at: Timestamp,
  },
  { additionalProperties: false },
)
export type ContextRetrievedWebhookEvent = Static<typeof ContextRetrievedWebhookEvent>

/**
 * The search filters a registry applied, normalized: one member per present query parameter (the free-text `q`,
 * `status`, `limit`…; never the cursor), a string or an integer each.
 */
export const SearchExecutedQuery = Type.Record(
  Type.String({ minLength: 1, maxLength: 64 }),
  Type.Union([Type.String({ maxLength: 4096 }), Type.Integer()]),
)

/** Emitted on a search. */
export const SearchExecutedWebhookEvent = Type.Object(
  {
    ...envelope,
    type: Type.Literal('search_executed'),
    query: SearchExecutedQuery,
    result_count: Type.Integer({ minimum: 0 }),
    requester_did: RequesterDid,
    at: Timestamp,
  },
  { additionalProperties: false },
)
export type SearchExecutedWebhookEvent = Static<typeof SearchExecutedWebhookEvent>

const lifecycleFields = {
  ...envelope,
  ctx_id: EventCtxId,
  lineage_id: LineageId,
  /** The producer DID, or the registry's own DID for a registry-initiated event. */
  actor: Did,
  /** The RFC-ACDP-0013 `event_id` of the appended event. */
  lifecycle_event_id: Type.String({ minLength: 1, maxLength: 128 }),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  at: Timestamp,
}

/** Emitted when a retraction is appended (lifecycle profile only). */
export const ContextRetractedWebhookEvent = Type.Object(
  { ...lifecycleFields, type: Type.Literal('context_retracted') },
  { additionalProperties: false },
)
export type ContextRetractedWebhookEvent = Static<typeof ContextRetractedWebhookEvent>

/** Emitted when a republication is appended (lifecycle profile only). */
export const ContextRepublishedWebhookEvent = Type.Object(
  { ...lifecycleFields, type: Type.Literal('context_republished') },
  { additionalProperties: false },
)
export type ContextRepublishedWebhookEvent = Static<typeof ContextRepublishedWebhookEvent>

/** Any registry webhook event. */
export const RegistryWebhookEvent = Type.Union([
  ContextPublishedWebhookEvent,
  ContextRetrievedWebhookEvent,
  SearchExecutedWebhookEvent,
  ContextRetractedWebhookEvent,
  ContextRepublishedWebhookEvent,
])
export type RegistryWebhookEvent = Static<typeof RegistryWebhookEvent>

/**
 * What a sender builds for one event: the envelope without the members its dispatcher adds once per event
 * (`event_id`, minted once and stable across retries, and `schema_version`).
 */
export type RegistryWebhookEventFields = RegistryWebhookEvent extends infer E
  ? E extends RegistryWebhookEvent
    ? Omit<E, 'event_id' | 'schema_version'>
    : never
  : never
