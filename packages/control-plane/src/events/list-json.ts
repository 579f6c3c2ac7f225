/**
 * The pages of GET /runs and GET /events (and GET /runs/:runId/events) written straight to JSON text.
 *
 * Why: serialising a page went through three copies per row (store row → record → wire view → JSON) and parsed
 * each stored JSON body only to stringify it again; on a 50-row page that was most of the request's CPU. Here
 * every field is written once, in the order and form of the response schemas in response-schemas/ (which
 * remain the OpenAPI documentation), and stored JSON text — a run's inputs and result, an event's body — is
 * embedded as stored. The output equals JSON.stringify of the views in runs/runs.ts and events/events.ts
 * (tested), except that an event's `rawPayload` is the body's text exactly as the registry sent it (its member
 * order, number spelling and escapes) rather than a re-serialisation of its parsed value: the same JSON value,
 * and large integers are no longer rounded through a double.
 *
 * Stored JSON text is trusted: ingest stores only bodies that passed the strict JSON parser, and run inputs and
 * results are stored as JSON.stringify output.
 */
import { formatTimestamp } from '../core/http/wire-time.js'
import type { EventRecord, RunRecord } from '../store/store.js'

/** Media type of the pages (what Fastify sets for serialised objects). */
export const JSON_MEDIA_TYPE = 'application/json; charset=utf-8'

const quote = JSON.stringify as (value: string) => string

function nullableString(value: string | null): string {
  return value === null ? 'null' : quote(value)
}

function stringArray(values: readonly string[]): string {
  if (values.length === 0) return '[]'
  let text = ''
  for (const value of values) text += (text === '' ? '[' : ',') + quote(value)
  return `${text}]`
}

/** One run as `toRunView` then JSON.stringify would write it. */
export function runJson(run: RunRecord): string {
  return (
    `{"runId":${quote(run.runId)},"tenantId":${quote(run.tenantId)},"scenarioId":${quote(run.scenarioId)}` +
    `,"status":${quote(run.status)},"startedAt":"${formatTimestamp(run.startedAt)}"` +
    `,"completedAt":${run.completedAt === null ? 'null' : `"${formatTimestamp(run.completedAt)}"`}` +
    `,"inputs":${run.inputsJson ?? 'null'},"result":${run.resultJson ?? 'null'}` +
    `,"eventsCount":${run.eventsCount},"contextsCount":${run.contextsCount}` +
    `,"registries":${stringArray(run.registries)},"updatedAt":"${formatTimestamp(run.updatedAt)}"}`
  )
}

/** GET /runs: `{ data, total, limit, offset }`. */
export function runPageJson(page: {
  runs: readonly RunRecord[]
  total: number
  limit: number
  offset: number
}): string {
  let data = ''
  for (const run of page.runs) data += (data === '' ? '' : ',') + runJson(run)
  return `{"data":[${data}],"total":${page.total},"limit":${page.limit},"offset":${page.offset}}`
}

/** One event as `toEventView` then JSON.stringify would write it, with the body embedded as received. */
export function eventJson(event: EventRecord): string {
  return (
    `{"id":"${event.id}","tenantId":${quote(event.tenantId)},"eventId":${nullableString(event.eventId)}` +
    `,"eventType":${quote(event.type)},"eventTs":"${formatTimestamp(event.eventTs)}"` +
    `,"runId":${nullableString(event.runId)},"ctxId":${nullableString(event.ctxId)}` +
    `,"lineageId":${nullableString(event.lineageId)},"agentId":${nullableString(event.agentId)}` +
    `,"contextType":${nullableString(event.contextType)},"visibility":${nullableString(event.visibility)}` +
    `,"version":${event.version === null ? 'null' : event.version},"derivedFrom":${stringArray(event.derivedFrom)}` +
    `,"registryAuthority":${quote(event.registryAuthority)},"scenarioId":${nullableString(event.scenarioId)}` +
    `,"keyFingerprint":${nullableString(event.keyFingerprint)},"receiptPresent":${event.receiptPresent}` +
    `,"rawPayload":${event.rawPayload},"createdAt":"${formatTimestamp(event.receivedAt)}"}`
  )
}

/** An event page: `{ data, limit, nextCursor }`. */
export function eventPageJson(page: {
  events: readonly EventRecord[]
  limit: number
  nextCursor: string | null
}): string {
  let data = ''
  for (const event of page.events) data += (data === '' ? '' : ',') + eventJson(event)
  return `{"data":[${data}],"limit":${page.limit},"nextCursor":${nullableString(page.nextCursor)}}`
}
