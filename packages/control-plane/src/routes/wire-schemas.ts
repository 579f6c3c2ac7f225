/**
 * TypeBox shapes of the JSON this API returns, shared by the route files that serialise them (response
 * schemas double as OpenAPI documentation and as fast serializers).
 */
import { Type } from 'typebox'

const Timestamp = Type.String({ description: 'RFC 3339 UTC with milliseconds' })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const RunShape = Type.Object({
  runId: Type.String(),
  tenantId: Type.String(),
  scenarioId: Type.String(),
  status: Type.Union([
    Type.Literal('running'),
    Type.Literal('completed'),
    Type.Literal('failed'),
    Type.Literal('cancelled'),
  ]),
  startedAt: Timestamp,
  completedAt: Nullable(Timestamp),
  inputs: Type.Unknown(),
  result: Type.Unknown(),
  eventsCount: Type.Integer(),
  contextsCount: Type.Integer(),
  registries: Type.Array(Type.String()),
  updatedAt: Timestamp,
})

export const EventShape = Type.Object({
  id: Type.String({ description: 'store sequence id (the SSE event id)' }),
  tenantId: Type.String(),
  eventId: Nullable(Type.String()),
  eventType: Type.String(),
  eventTs: Timestamp,
  runId: Nullable(Type.String()),
  ctxId: Nullable(Type.String()),
  lineageId: Nullable(Type.String()),
  agentId: Nullable(Type.String()),
  contextType: Nullable(Type.String()),
  visibility: Nullable(Type.String()),
  version: Nullable(Type.Integer()),
  derivedFrom: Type.Array(Type.String()),
  registryAuthority: Type.String(),
  scenarioId: Nullable(Type.String()),
  keyFingerprint: Nullable(Type.String()),
  receiptPresent: Type.Boolean(),
  rawPayload: Type.Unknown(),
  createdAt: Timestamp,
})

export const EventPageShape = Type.Object({
  data: Type.Array(EventShape),
  limit: Type.Integer(),
  nextCursor: Nullable(Type.String()),
})

/** Printable ids (run ids, scenario ids): no control characters. */
export const PRINTABLE_PATTERN = '^[\\x20-\\x7e\\u00a0-\\uffff]+$'
