/**
 * The stream's read model over the event log: `Last-Event-ID` replay (SSE) and read-back of events relayed by
 * reference (the PostgreSQL bus, for events too large for a NOTIFY payload).
 *
 * Stream order is the store sequence `context_events.id` (ascending in insertion order), not `event_ts` (a
 * producer clock). The queries walk the primary key from the resume point and filter by tenant (and run), so a
 * replay of recent events touches only the rows after the resume point. Read-only; the core store owns writes.
 */
import type { Kysely } from 'kysely'
import type { ControlPlaneTables } from '../store/schema.js'
import type { BusEvent } from './event-bus.js'
import type { BusEventRef } from './event-bus-postgres.js'
import type { StreamHistory } from './sse.js'
import { busEventFromRecord } from './sse-event.js'

/** A store sequence id as it appears in `id:` fields: canonical decimal, 1 to 15 digits (`0` means "from the start"). */
const EVENT_ID = /^(0|[1-9][0-9]{0,14})$/

/** True when `value` is a well-formed stream event id. @param value attacker-controlled (Last-Event-ID). */
export function isStreamEventId(value: string): boolean {
  return EVENT_ID.test(value)
}

const COLUMNS = [
  'id',
  'tenant_id',
  'event_id',
  'event_type',
  'event_ts',
  'received_at',
  'run_id',
  'ctx_id',
  'lineage_id',
  'agent_id',
  'context_type',
  'visibility',
  'version',
  'derived_from',
  'registry_authority',
  'scenario_id',
  'key_fingerprint',
  'receipt_present',
] as const

type Row = Pick<ControlPlaneTables['context_events'], Exclude<(typeof COLUMNS)[number], 'id'>> & { id: number }

/** The history reader plus the by-reference loader, over one database. */
export interface EventHistory extends StreamHistory {
  /** One event by id within its tenant, or undefined. */
  load(ref: BusEventRef): Promise<BusEvent | undefined>
}

/** Creates the reader over `db` (the same database the ingest writes). */
export function createEventHistory(db: Kysely<ControlPlaneTables>): EventHistory {
  return {
    async readAfter({ tenantId, afterId, runId, limit }) {
      if (!isStreamEventId(afterId)) return []
      let query = db
        .selectFrom('context_events')
        .select(COLUMNS)
        .where('id', '>', Number(afterId))
        .where('tenant_id', '=', tenantId)
      if (runId !== undefined) query = query.where('run_id', '=', runId)
      const rows = (await query.orderBy('id', 'asc').limit(limit).execute()) as Row[]
      return rows.map(toBusEvent)
    },
    async load(ref) {
      if (!isStreamEventId(ref.id)) return undefined
      const row = (await db
        .selectFrom('context_events')
        .select(COLUMNS)
        .where('id', '=', Number(ref.id))
        .where('tenant_id', '=', ref.tenantId)
        .executeTakeFirst()) as Row | undefined
      return row ? toBusEvent(row) : undefined
    },
  }
}

function toBusEvent(row: Row): BusEvent {
  return busEventFromRecord({
    id: Number(row.id),
    tenantId: row.tenant_id,
    eventId: row.event_id,
    type: row.event_type,
    eventTs: Number(row.event_ts),
    receivedAt: Number(row.received_at),
    runId: row.run_id,
    ctxId: row.ctx_id,
    lineageId: row.lineage_id,
    agentId: row.agent_id,
    contextType: row.context_type,
    visibility: row.visibility,
    version: row.version === null ? null : Number(row.version),
    derivedFrom: JSON.parse(row.derived_from) as string[],
    registryAuthority: row.registry_authority,
    scenarioId: row.scenario_id,
    keyFingerprint: row.key_fingerprint,
    receiptPresent: Number(row.receipt_present) === 1,
  })
}
