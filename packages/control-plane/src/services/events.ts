/**
 * Event history reads (product spec "Events": GET /events; "Runs": GET /runs/:runId/events). Pages are keyset
 * pages on (event_ts, id): no COUNT(*) per call and no row lost on equal timestamps; `nextCursor` is null
 * exactly when there is no further row (one extra row is read to know).
 */
import type { ControlPlaneDeps } from '../deps.js'
import { ControlPlaneError } from '../errors.js'
import { formatTimestamp, parseTimestamp } from '../http/wire-time.js'
import type { EventAttributes } from '../store/schema.js'
import type { EventQuery, EventRecord } from '../store/store.js'
import { decodeEventCursor, encodeEventCursor } from './event-cursor.js'

/** An event as listed on the wire (camelCase; timestamps RFC 3339 UTC with milliseconds). */
export interface EventView extends EventAttributes {
  /** Store sequence id, decimal (the same id SSE frames carry). */
  id: string
  tenantId: string
  eventType: string
  eventTs: string
  /** The body as the registry signed it. */
  rawPayload: unknown
  /** Arrival time at this service. */
  createdAt: string
}

/** A page of stored events, written to the wire by services/list-json.ts (`eventPageJson`). */
export interface EventPage {
  events: EventRecord[]
  limit: number
  /** Pass back as `cursor` for the next page; null when this page is the last. */
  nextCursor: string | null
}

/** Filters of GET /events, as received (attacker-controlled strings). */
export interface EventListRequest {
  tenantId: string
  runId?: string
  eventType?: string
  excludeEventType?: string
  agentId?: string
  registryAuthority?: string
  /** RFC 3339; events at or after it. */
  afterTs?: string
  /** RFC 3339; events strictly before it. */
  beforeTs?: string
  cursor?: string
  limit: number
}

/**
 * Formats one stored event for the wire as an object. The list routes write the same thing as JSON text directly
 * (services/list-json.ts); this is the reference form their tests compare with.
 */
export function toEventView(record: EventRecord): EventView {
  return {
    id: String(record.id),
    tenantId: record.tenantId,
    eventId: record.eventId,
    eventType: record.type,
    eventTs: formatTimestamp(record.eventTs),
    runId: record.runId,
    ctxId: record.ctxId,
    lineageId: record.lineageId,
    agentId: record.agentId,
    contextType: record.contextType,
    visibility: record.visibility,
    version: record.version,
    derivedFrom: record.derivedFrom,
    registryAuthority: record.registryAuthority,
    scenarioId: record.scenarioId,
    keyFingerprint: record.keyFingerprint,
    receiptPresent: record.receiptPresent,
    rawPayload: JSON.parse(record.rawPayload),
    createdAt: formatTimestamp(record.receivedAt),
  }
}

/** Reads one page of `query` (limit + 1 rows to know whether another page exists). */
export async function readEventPage(deps: Pick<ControlPlaneDeps, 'store'>, query: EventQuery): Promise<EventPage> {
  const rows = await deps.store.listEvents({ ...query, limit: query.limit + 1 })
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  return {
    events: page,
    limit: query.limit,
    nextCursor: rows.length > query.limit && last !== undefined ? encodeEventCursor(last) : null,
  }
}

/**
 * GET /events: newest first.
 *
 * @throws ControlPlaneError VALIDATION_ERROR for a malformed timestamp or cursor.
 */
export async function listEvents(deps: Pick<ControlPlaneDeps, 'store'>, request: EventListRequest): Promise<EventPage> {
  const query: EventQuery = { tenantId: request.tenantId, order: 'desc', limit: request.limit }
  if (request.runId !== undefined) query.runId = request.runId
  if (request.eventType !== undefined) query.eventType = request.eventType
  if (request.excludeEventType !== undefined) query.excludeEventType = request.excludeEventType
  if (request.agentId !== undefined) query.agentId = request.agentId
  if (request.registryAuthority !== undefined) query.registryAuthority = request.registryAuthority.toLowerCase()
  if (request.afterTs !== undefined) query.fromTs = readTimestamp('afterTs', request.afterTs)
  if (request.beforeTs !== undefined) query.beforeTs = readTimestamp('beforeTs', request.beforeTs)
  if (request.cursor !== undefined) query.after = decodeEventCursor(request.cursor)
  return readEventPage(deps, query)
}

function readTimestamp(name: string, value: string): number {
  const ms = parseTimestamp(value)
  if (ms === undefined) throw new ControlPlaneError('VALIDATION_ERROR', `${name} must be an RFC 3339 date-time`)
  return ms
}
