/**
 * An ingest batch on PostgreSQL as ONE prepared statement: the event rows and every counter projection of the
 * batch, each table's rows passed as column arrays (`unnest`), so the text is the same whatever the batch size
 * and each pooled connection parses and plans it once.
 *
 * Why: the batch went through Kysely as two statements built per batch (a multi-row insert whose ids decide the
 * projections, then the projections as CTEs): compiling queries of a few hundred value nodes and sending them as
 * unnamed statements (parsed and planned on every execution) cost more CPU per batch than the events' own work,
 * and two statement round trips inside the transaction.
 *
 * The projections are computed by the caller from the whole batch, i.e. on the assumption that no event is a
 * duplicate of a stored one. The statement returns the ids of the rows it inserted; when that is fewer than the
 * batch (a duplicate), the statement itself fails (EVENT_BATCH_DUPLICATE_SQLSTATE), so nothing of it is written
 * even when it runs on its own, without BEGIN/COMMIT (autocommit: one statement is atomic), and the caller writes
 * the batch the general way, which counts only inserted events. Duplicates are redeliveries: rare, and correct
 * either way.
 *
 * Execution order: `ins` runs first (the final SELECT reads it), the projection statements after it in the
 * order written here (PostgreSQL runs unreferenced data-modifying CTEs in order at the end of the statement),
 * the same fixed table order and sorted keys as the general path, so concurrent batches of several instances take
 * row locks in one order.
 */
import type { ControlPlaneTables } from './schema.js'

type Row<T extends keyof ControlPlaneTables> = ControlPlaneTables[T]

/** The rows one batch writes, each table's rows already in key order (see event-writer.ts). */
export interface EventBatchRows {
  events: Array<Omit<Row<'context_events'>, 'id'>>
  lineageEdges: Array<Row<'lineage_edges'>>
  agents: Array<Row<'agents'>>
  runs: Array<Row<'runs'>>
  runRegistries: Array<Row<'run_registries'>>
  registries: Array<Row<'registries'>>
  activity: Array<Row<'registry_activity'>>
  didMethods: Array<Row<'did_method_activity'>>
}

/** `unnest` of typed column arrays, parameters numbered from `first`, in input order. */
function unnest(first: number, types: readonly string[]): string {
  return `unnest(${types.map((type, index) => `$${first + index}::${type}[]`).join(', ')})`
}

const EVENT_COLUMNS = [
  ['tenant_id', 'text'],
  ['dedup_key', 'text'],
  ['event_id', 'text'],
  ['event_type', 'text'],
  ['event_ts', 'bigint'],
  ['received_at', 'bigint'],
  ['run_id', 'text'],
  ['ctx_id', 'text'],
  ['lineage_id', 'text'],
  ['agent_id', 'text'],
  ['context_type', 'text'],
  ['visibility', 'text'],
  ['version', 'bigint'],
  ['derived_from', 'text'],
  ['registry_authority', 'text'],
  ['scenario_id', 'text'],
  ['key_fingerprint', 'text'],
  ['receipt_present', 'bigint'],
  ['raw_payload', 'text'],
] as const

/** One table's insert: its columns and their types, in parameter order. */
interface TableShape {
  table: string
  columns: ReadonlyArray<readonly [string, string]>
  /** What follows the SELECT (the conflict clause). */
  conflict: string
}

const greater = (table: string, column: string) =>
  `CASE WHEN excluded.${column} > ${table}.${column} THEN excluded.${column} ELSE ${table}.${column} END`
const sum = (table: string, column: string) => `${column} = ${table}.${column} + excluded.${column}`

/** `$1` is UNKNOWN_SCENARIO; table parameters follow. */
const PROJECTIONS: readonly TableShape[] = [
  {
    table: 'lineage_edges',
    columns: [
      ['tenant_id', 'text'],
      ['from_ctx_id', 'text'],
      ['to_ctx_id', 'text'],
      ['run_id', 'text'],
      ['created_at', 'bigint'],
    ],
    conflict: 'ON CONFLICT DO NOTHING',
  },
  {
    table: 'agents',
    columns: [
      ['tenant_id', 'text'],
      ['agent_did', 'text'],
      ['first_seen', 'bigint'],
      ['last_seen', 'bigint'],
      ['registry_authority', 'text'],
      ['event_count', 'bigint'],
      ['context_count', 'bigint'],
    ],
    conflict:
      `ON CONFLICT (tenant_id, agent_did) DO UPDATE SET last_seen = ${greater('agents', 'last_seen')}, ` +
      `registry_authority = excluded.registry_authority, ${sum('agents', 'event_count')}, ` +
      sum('agents', 'context_count'),
  },
  {
    table: 'runs',
    columns: [
      ['tenant_id', 'text'],
      ['run_id', 'text'],
      ['scenario_id', 'text'],
      ['status', 'text'],
      ['started_at', 'bigint'],
      ['completed_at', 'bigint'],
      ['inputs', 'text'],
      ['result', 'text'],
      ['events_count', 'bigint'],
      ['contexts_count', 'bigint'],
      ['created_at', 'bigint'],
      ['updated_at', 'bigint'],
    ],
    conflict:
      `ON CONFLICT (tenant_id, run_id) DO UPDATE SET ${sum('runs', 'events_count')}, ` +
      `${sum('runs', 'contexts_count')}, ` +
      // The scenario is fixed on first sight; events may only fill in a missing one.
      `scenario_id = CASE WHEN runs.scenario_id = $1 THEN excluded.scenario_id ELSE runs.scenario_id END, ` +
      `updated_at = ${greater('runs', 'updated_at')}`,
  },
  {
    table: 'run_registries',
    columns: [
      ['tenant_id', 'text'],
      ['run_id', 'text'],
      ['registry_authority', 'text'],
    ],
    conflict: 'ON CONFLICT DO NOTHING',
  },
  {
    table: 'registries',
    columns: [
      ['tenant_id', 'text'],
      ['authority', 'text'],
      ['base_url', 'text'],
      ['first_seen', 'bigint'],
      ['last_seen', 'bigint'],
      ['event_count', 'bigint'],
    ],
    conflict:
      `ON CONFLICT (tenant_id, authority) DO UPDATE SET base_url = coalesce(excluded.base_url, registries.base_url), ` +
      `last_seen = ${greater('registries', 'last_seen')}, ${sum('registries', 'event_count')}`,
  },
  {
    table: 'registry_activity',
    columns: [
      ['tenant_id', 'text'],
      ['bucket_start', 'bigint'],
      ['registry_authority', 'text'],
      ['event_count', 'bigint'],
      ['publish_count', 'bigint'],
      ['receipt_count', 'bigint'],
    ],
    conflict:
      `ON CONFLICT (tenant_id, bucket_start, registry_authority) DO UPDATE SET ` +
      `${sum('registry_activity', 'event_count')}, ${sum('registry_activity', 'publish_count')}, ` +
      sum('registry_activity', 'receipt_count'),
  },
  {
    table: 'did_method_activity',
    columns: [
      ['tenant_id', 'text'],
      ['bucket_start', 'bigint'],
      ['method', 'text'],
      ['publish_count', 'bigint'],
    ],
    conflict: `ON CONFLICT (tenant_id, bucket_start, method) DO UPDATE SET ${sum('did_method_activity', 'publish_count')}`,
  },
]

function buildSql(): string {
  let next = 2
  const insert = (shape: TableShape): string => {
    const names = shape.columns.map(([name]) => name).join(', ')
    const source = unnest(
      next,
      shape.columns.map(([, type]) => type),
    )
    next += shape.columns.length
    // Rows in array order (the caller sorted them by key): WITH ORDINALITY makes the order explicit.
    return (
      `INSERT INTO ${shape.table} (${names}) SELECT ${names} FROM ${source} WITH ORDINALITY AS t(${names}, ord) ` +
      `ORDER BY ord ${shape.conflict}`
    )
  }
  const ins = insert({
    table: 'context_events',
    columns: EVENT_COLUMNS,
    conflict: 'ON CONFLICT (tenant_id, dedup_key) DO NOTHING RETURNING id, tenant_id, dedup_key',
  })
  const projections = PROJECTIONS.map((shape, index) => `w${index} AS (${insert(shape)})`)
  // One aggregate row, so the check runs even when nothing was inserted; a division by zero aborts the whole
  // statement (every CTE with it) when an event was a duplicate. `$2` is the events' tenant_id column.
  return (
    `WITH ins AS (${ins}), ${projections.join(', ')} ` +
    `SELECT 1 / (count(*) = cardinality($2::text[]))::int AS complete, ` +
    `array_agg(id) AS ids, array_agg(tenant_id) AS tenant_ids, array_agg(dedup_key) AS dedup_keys FROM ins`
  )
}

/** The statement's text (one for every batch). */
export const EVENT_BATCH_SQL = buildSql()

/** A stable name for the prepared statement, per text. */
export const EVENT_BATCH_STATEMENT = 'acdp_cp_event_batch_v2'

/** The SQLSTATE the statement aborts with when an event of the batch was already stored (division_by_zero). */
export const EVENT_BATCH_DUPLICATE_SQLSTATE = '22012'

/** The statement's one row: the check, then the inserted rows' ids, tenants and dedup keys (same order). */
export type EventBatchResult = [number, string[], string[], string[]]

/** The statement's parameters for `rows`: UNKNOWN_SCENARIO, then each table's column arrays. */
export function eventBatchParams(unknownScenario: string, rows: EventBatchRows): unknown[] {
  const params: unknown[] = [unknownScenario]
  const columns = <T>(list: readonly T[], shape: ReadonlyArray<readonly [string, string]>) => {
    for (const [name] of shape) params.push(list.map((row) => (row as Record<string, unknown>)[name] ?? null))
  }
  columns(rows.events, EVENT_COLUMNS)
  const lists: ReadonlyArray<readonly unknown[]> = [
    rows.lineageEdges,
    rows.agents,
    rows.runs,
    rows.runRegistries,
    rows.registries,
    rows.activity,
    rows.didMethods,
  ]
  PROJECTIONS.forEach((shape, index) => columns(lists[index] as readonly unknown[], shape.columns))
  return params
}
