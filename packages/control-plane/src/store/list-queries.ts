/**
 * The list queries of GET /runs and GET /events as fixed SQL texts per filter combination (run by
 * prepared-reads.ts), and the mapping of their array rows to store records.
 *
 * A runs page is ONE statement: the page's rows, each run's registry set (a correlated aggregate over the
 * run_registries primary key) and the filtered total (an uncorrelated scalar subquery, evaluated once). Before it
 * was three (page, COUNT(*), registries of the page's runs). An events page is one keyset statement as before.
 */
import type { DatabaseKind } from '@acdp/storage'
import type { SqlRow, SqlValue } from './prepared-reads.js'
import type { EventQuery, EventRecord, RunQuery, RunRecord, RunStatus } from './store.js'

/** A statement and its parameters. */
export interface BoundSql {
  sql: string
  params: SqlValue[]
}

/** Joins a run's registry authorities; authorities are host names with an optional port, never holding it. */
const REGISTRY_SEPARATOR = ','

const RUN_COLUMNS =
  'r.tenant_id, r.run_id, r.scenario_id, r.status, r.started_at, r.completed_at, r.inputs, r.result, ' +
  'r.events_count, r.contexts_count, r.created_at, r.updated_at'

/** The WHERE clause of a runs listing for table alias `alias`, parameters numbered from `$1`. */
function runFilters(query: RunQuery, alias: string, params: SqlValue[]): string {
  const where = [`${alias}.tenant_id = $1`]
  params.push(query.tenantId)
  const add = (condition: string, value: SqlValue) => {
    params.push(value)
    where.push(`${alias}.${condition} $${params.length}`)
  }
  if (query.status !== undefined) add('status =', query.status)
  if (query.scenarioId !== undefined) add('scenario_id =', query.scenarioId)
  if (query.startedFrom !== undefined) add('started_at >=', query.startedFrom)
  if (query.startedBefore !== undefined) add('started_at <', query.startedBefore)
  return where.join(' AND ')
}

/**
 * One page of runs, newest first (run id breaks ties), with the registry set and the filtered total on every
 * row: `RUN_COLUMNS…, registries, total`.
 */
export function runPageSql(kind: DatabaseKind, query: RunQuery): BoundSql {
  const params: SqlValue[] = []
  const where = runFilters(query, 'r', params)
  // The same filters on the count's own alias, numbered the same way: they bind the same parameters.
  const countWhere = runFilters(query, 'c', [])
  const concat =
    kind === 'postgres'
      ? `string_agg(g.registry_authority, '${REGISTRY_SEPARATOR}')`
      : `group_concat(g.registry_authority, '${REGISTRY_SEPARATOR}')`
  params.push(query.limit, query.offset)
  const sql =
    `SELECT ${RUN_COLUMNS}, ` +
    `(SELECT ${concat} FROM run_registries g WHERE g.tenant_id = r.tenant_id AND g.run_id = r.run_id) AS registries, ` +
    `(SELECT count(*) FROM runs c WHERE ${countWhere}) AS total ` +
    `FROM runs r WHERE ${where} ORDER BY r.started_at DESC, r.run_id ASC ` +
    `LIMIT $${params.length - 1} OFFSET $${params.length}`
  return { sql, params }
}

/** The filtered total alone, for a page past the end (no row to carry it). */
export function runCountSql(query: RunQuery): BoundSql {
  const params: SqlValue[] = []
  const where = runFilters(query, 'c', params)
  return { sql: `SELECT count(*) FROM runs c WHERE ${where}`, params }
}

/** A row of {@link runPageSql} → the run it describes (registries sorted) and the page's total. */
export function toListedRun(row: SqlRow): { run: RunRecord; total: number } {
  const registries = row[12] === null ? [] : String(row[12]).split(REGISTRY_SEPARATOR)
  if (registries.length > 1) registries.sort()
  return {
    run: {
      tenantId: row[0] as string,
      runId: row[1] as string,
      scenarioId: row[2] as string,
      status: row[3] as RunStatus,
      startedAt: Number(row[4]),
      completedAt: row[5] === null ? null : Number(row[5]),
      inputsJson: row[6] as string | null,
      resultJson: row[7] as string | null,
      eventsCount: Number(row[8]),
      contextsCount: Number(row[9]),
      registries,
      createdAt: Number(row[10]),
      updatedAt: Number(row[11]),
    },
    total: Number(row[13]),
  }
}

const EVENT_COLUMNS =
  'id, tenant_id, event_id, event_type, event_ts, received_at, run_id, ctx_id, lineage_id, agent_id, ' +
  'context_type, visibility, version, derived_from, registry_authority, scenario_id, key_fingerprint, ' +
  'receipt_present, raw_payload'

/** A keyset page of events in (event_ts, id) order, `query.limit` rows at most. */
export function eventPageSql(query: EventQuery): BoundSql {
  return eventListingSql(EVENT_COLUMNS, query)
}

/**
 * The same page as {@link eventPageSql}, only each row's (id, event_ts): every filter and the order are columns of
 * one of the (tenant_id, …, event_ts, id) indexes, so the page is read from the index alone, without touching the
 * rows and their bodies.
 */
export function eventKeyPageSql(query: EventQuery): BoundSql {
  return eventListingSql('id, event_ts', query)
}

/**
 * The rows of a tenant's events by store id (`$1` tenant, `$2` the ids as a JSON array on SQLite or a bigint
 * array on PostgreSQL): one fixed text whatever the number of ids, so it stays one prepared statement.
 */
export function eventsByIdSql(kind: DatabaseKind): string {
  const ids = kind === 'postgres' ? '= ANY($2::bigint[])' : 'IN (SELECT value FROM json_each($2))'
  return `SELECT ${EVENT_COLUMNS} FROM context_events WHERE tenant_id = $1 AND id ${ids}`
}

function eventListingSql(columns: string, query: EventQuery): BoundSql {
  const params: SqlValue[] = []
  const where: string[] = []
  const add = (condition: string, value: SqlValue) => {
    params.push(value)
    where.push(`${condition} $${params.length}`)
  }
  add('tenant_id =', query.tenantId)
  if (query.runId !== undefined) add('run_id =', query.runId)
  if (query.eventType !== undefined) add('event_type =', query.eventType)
  if (query.excludeEventType !== undefined) add('event_type <>', query.excludeEventType)
  if (query.agentId !== undefined) add('agent_id =', query.agentId)
  if (query.registryAuthority !== undefined) add('registry_authority =', query.registryAuthority)
  if (query.fromTs !== undefined) add('event_ts >=', query.fromTs)
  if (query.beforeTs !== undefined) add('event_ts <', query.beforeTs)
  const direction = query.order === 'asc' ? 'ASC' : 'DESC'
  if (query.after !== undefined) {
    // Row-value comparison: rows sharing a timestamp are ordered by id, so a page boundary never drops one.
    params.push(query.after.eventTs, query.after.id)
    where.push(`(event_ts, id) ${query.order === 'asc' ? '>' : '<'} ($${params.length - 1}, $${params.length})`)
  }
  params.push(query.limit)
  const sql =
    `SELECT ${columns} FROM context_events WHERE ${where.join(' AND ')} ` +
    `ORDER BY event_ts ${direction}, id ${direction} LIMIT $${params.length}`
  return { sql, params }
}

/** A row of {@link eventPageSql} → the stored event. */
export function toListedEvent(row: SqlRow): EventRecord {
  return {
    id: Number(row[0]),
    tenantId: row[1] as string,
    eventId: row[2] as string | null,
    type: row[3] as string,
    eventTs: Number(row[4]),
    receivedAt: Number(row[5]),
    runId: row[6] as string | null,
    ctxId: row[7] as string | null,
    lineageId: row[8] as string | null,
    agentId: row[9] as string | null,
    contextType: row[10] as string | null,
    visibility: row[11] as string | null,
    version: row[12] === null ? null : Number(row[12]),
    derivedFrom: row[13] === '[]' ? [] : (JSON.parse(row[13] as string) as string[]),
    registryAuthority: row[14] as string,
    scenarioId: row[15] as string | null,
    keyFingerprint: row[16] as string | null,
    receiptPresent: Number(row[17]) === 1,
    rawPayload: row[18] as string,
  }
}
