/**
 * The JSON of an SSE frame's `data:` (GET /events/stream, GET /runs/:runId/events/stream) and of an outbound
 * webhook body's `data` member; the frame's `id:` is the store sequence id. Not a route response schema (a
 * stream has none): events/sse-event.ts builds its frames as this type, so the two cannot drift apart.
 */
import { type Static, Type } from 'typebox'
import { ContextFacts, Nullable, Timestamp } from './common.js'

export const StreamEventShape = Type.Object({
  type: Type.String(),
  ts: Timestamp,
  runId: Nullable(Type.String()),
  // Registry-minted event id, when the delivery carried one.
  eventId: Nullable(Type.String()),
  ...ContextFacts,
  registryAuthority: Type.String(),
  derivedFrom: Type.Array(Type.String()),
  scenarioId: Nullable(Type.String()),
  keyFingerprint: Nullable(Type.String()),
  receiptPresent: Type.Boolean(),
})

/** The stream event. Absent values are `null`, never omitted, so consumers see one stable shape. */
export type StreamEvent = Static<typeof StreamEventShape>
