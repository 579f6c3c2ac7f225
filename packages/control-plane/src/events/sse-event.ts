/**
 * The broadcast form of a stored event: the JSON carried in SSE `data:` and in the outbound webhook body's `data`
 * member (product spec "Broadcast frame members named: type, ts,
 * runId"). Built once per event, from the committed event (live) or its stored row (Last-Event-ID replay): both
 * paths go through {@link toStreamEvent}, so a replayed frame is byte-identical to the live one.
 */
import type { StreamEvent } from '../response-schemas/stream-event.js'
import type { EventAttributes, StoredEvent } from '../store/schema.js'
import type { EventSummary } from '../store/store.js'
import type { BusEvent } from './event-bus.js'

export type { StreamEvent }

// Every stored event attribute is broadcast: a member added to EventAttributes must be added to the schema too.
const broadcastsEveryAttribute: keyof EventAttributes extends keyof StreamEvent ? true : false = true
void broadcastsEveryAttribute

/** The members both the committed event and the stored row provide, with the event time as epoch ms. */
type EventFields = Omit<StreamEvent, 'ts'> & { id: number; tenantId: string; eventTsMs: number }

/** Bus events already built per committed event: the outbox hook and the bus share one serialisation. */
const builtFromStored = new WeakMap<StoredEvent, BusEvent>()

/**
 * Builds the stream event from the committed form (live path: ingest → outbox and bus). Memoised per event
 * object, so the webhook outbox (inside the transaction) and the bus (after commit) serialise it once.
 */
export function busEventFromStored(event: StoredEvent): BusEvent {
  let built = builtFromStored.get(event)
  if (built === undefined) {
    built = toBusEvent({ ...pickFields(event), eventTsMs: Date.parse(event.ts) })
    builtFromStored.set(event, built)
  }
  return built
}

/** Builds the stream event from a stored row (replay path: history → stream); the raw body is not needed. */
export function busEventFromRecord(record: EventSummary): BusEvent {
  return toBusEvent({ ...pickFields(record), eventTsMs: record.eventTs })
}

function pickFields(e: StoredEvent | EventSummary): Omit<EventFields, 'eventTsMs'> {
  return {
    id: e.id,
    tenantId: e.tenantId,
    type: e.type,
    runId: e.runId,
    eventId: e.eventId,
    ctxId: e.ctxId,
    lineageId: e.lineageId,
    agentId: e.agentId,
    contextType: e.contextType,
    visibility: e.visibility,
    version: e.version,
    registryAuthority: e.registryAuthority,
    derivedFrom: e.derivedFrom,
    scenarioId: e.scenarioId,
    keyFingerprint: e.keyFingerprint,
    receiptPresent: e.receiptPresent,
  }
}

function toBusEvent(fields: EventFields): BusEvent {
  return {
    id: String(fields.id),
    tenantId: fields.tenantId,
    runId: fields.runId,
    type: fields.type,
    data: JSON.stringify(toStreamEvent(fields)),
  }
}

/** The stream event object, members in a fixed order (so the serialised form is stable). */
export function toStreamEvent(fields: EventFields): StreamEvent {
  return {
    type: fields.type,
    ts: new Date(fields.eventTsMs).toISOString(),
    runId: fields.runId,
    eventId: fields.eventId,
    ctxId: fields.ctxId,
    lineageId: fields.lineageId,
    agentId: fields.agentId,
    contextType: fields.contextType,
    visibility: fields.visibility,
    version: fields.version,
    registryAuthority: fields.registryAuthority,
    derivedFrom: fields.derivedFrom,
    scenarioId: fields.scenarioId,
    keyFingerprint: fields.keyFingerprint,
    receiptPresent: fields.receiptPresent,
  }
}
