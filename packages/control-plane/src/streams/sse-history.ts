/**
 * The stream's read model over the event log: `Last-Event-ID` replay (SSE) and read-back of events relayed by
 * reference (the PostgreSQL bus, for events too large for a NOTIFY payload).
 *
 * Stream order is the store sequence `context_events.id` (ascending in insertion order), not `event_ts` (a
 * producer clock). The reads go through the store (`listEventsAfterId`, `getEventSummary`), which walks the
 * primary key from the resume point. Read-only; the core store owns writes.
 */
import type { ControlPlaneStore } from '../store/store.js'
import type { BusEvent } from '../events/event-bus.js'
import type { BusEventRef } from '../events/event-bus-postgres.js'
import type { StreamHistory } from './sse.js'
import { busEventFromRecord } from '../events/sse-event.js'

/** A store sequence id as it appears in `id:` fields: canonical decimal, 1 to 15 digits (`0` means "from the start"). */
const EVENT_ID = /^(0|[1-9][0-9]{0,14})$/

/** True when `value` is a well-formed stream event id. @param value attacker-controlled (Last-Event-ID). */
export function isStreamEventId(value: string): boolean {
  return EVENT_ID.test(value)
}

/** The history reader plus the by-reference loader, over one store. */
export interface EventHistory extends StreamHistory {
  /** One event by id within its tenant, or undefined. */
  load(ref: BusEventRef): Promise<BusEvent | undefined>
}

/** Creates the reader over `store` (the store the ingest writes). */
export function createEventHistory(
  store: Pick<ControlPlaneStore, 'listEventsAfterId' | 'getEventSummary' | 'listEventsInIdRange' | 'latestEventId'>,
): EventHistory {
  return {
    async readAfter({ tenantId, afterId, throughId, runId, limit }) {
      if (!isStreamEventId(afterId)) return []
      const summaries = await store.listEventsAfterId({ tenantId, afterId: Number(afterId), throughId, runId, limit })
      return summaries.map((summary) => busEventFromRecord(summary))
    },
    latestId: () => store.latestEventId(),
    async readRange(afterId, beforeId, limit) {
      const summaries = await store.listEventsInIdRange({ afterId, beforeId, limit })
      return summaries.map((summary) => busEventFromRecord(summary))
    },
    async load(ref) {
      if (!isStreamEventId(ref.id)) return undefined
      const summary = await store.getEventSummary(ref.tenantId, Number(ref.id))
      return summary === undefined ? undefined : busEventFromRecord(summary)
    },
  }
}
