/** Events on the wire: GET /events and GET /runs/:runId/events (written as text by events/list-json.ts). */
import { type Static, Type } from 'typebox'
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
  // The body as the registry signed it.
  rawPayload: Type.Unknown(),
  // Arrival time at the control plane.
  createdAt: Timestamp,
})

export const EventPageShape = Type.Object({
  data: Type.Array(EventShape),
  limit: Type.Integer(),
  nextCursor: Nullable(Type.String()),
})

/** An event as listed on the wire (camelCase; timestamps RFC 3339 UTC with milliseconds). */
export type EventView = Static<typeof EventShape>
export type EventPage = Static<typeof EventPageShape>
