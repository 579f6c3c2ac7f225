/** Events on the wire: GET /events and GET /runs/:runId/events (written as text by events/list-json.ts). */
import { Type } from 'typebox'
import { ContextFacts, Nullable, Timestamp } from './common.js'

export const EventShape = Type.Object({
  id: Type.String({ description: 'store sequence id (the SSE event id)' }),
  tenantId: Type.String(),
  eventId: Nullable(Type.String()),
  eventType: Type.String(),
  eventTs: Timestamp,
  runId: Nullable(Type.String()),
  ...ContextFacts,
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
