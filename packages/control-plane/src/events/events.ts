/**
 * Event history reads (product spec "Events": GET /events; "Runs": GET /runs/:runId/events). Pages are keyset
 * pages on (event_ts, id): no COUNT(*) per call and no row lost on equal timestamps; `nextCursor` is null
 * exactly when there is no further row (one extra row is read to know).
 */
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp, parseTimestamp } from '../core/http/wire-time.js'
import type { EventView } from '../response-schemas/events.js'
import type { EventAttributes } from '../store/schema.js'
import type { EventQuery, EventRecord } from '../store/store.js'
import { decodeEventCursor } from './event-cursor.js'

export type { EventView }

// Every stored event attribute is listed: a member added to EventAttributes must be added to the schema too.
const listsEveryAttribute: keyof EventAttributes extends keyof EventView ? true : false = true
void listsEveryAttribute

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
 * Formats one stored event for the wire as an object. The list routes write the same thing as JSON bytes directly
 * (events/list-json.ts, events/event-page-reader.ts); this is the reference form their tests compare with.
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

/**
 * GET /events: newest first. The store query of the page (events/event-page-reader.ts reads and writes it).
 *
 * @throws ControlPlaneError VALIDATION_ERROR for a malformed timestamp or cursor.
 */
export function eventListQuery(request: EventListRequest): EventQuery {
  const query: EventQuery = { tenantId: request.tenantId, order: 'desc', limit: request.limit }
  if (request.runId !== undefined) query.runId = request.runId
  if (request.eventType !== undefined) query.eventType = request.eventType
  if (request.excludeEventType !== undefined) query.excludeEventType = request.excludeEventType
  if (request.agentId !== undefined) query.agentId = request.agentId
  if (request.registryAuthority !== undefined) query.registryAuthority = request.registryAuthority.toLowerCase()
  if (request.afterTs !== undefined) query.fromTs = readTimestamp('afterTs', request.afterTs)
  if (request.beforeTs !== undefined) query.beforeTs = readTimestamp('beforeTs', request.beforeTs)
  if (request.cursor !== undefined) query.after = decodeEventCursor(request.cursor)
  return query
}

function readTimestamp(name: string, value: string): number {
  const ms = parseTimestamp(value)
  if (ms === undefined) throw new ControlPlaneError('VALIDATION_ERROR', `${name} must be an RFC 3339 date-time`)
  return ms
}
