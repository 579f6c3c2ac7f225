/**
 * The dashboard overview's reads as two fixed statements (run as prepared statements, rows as arrays):
 * every aggregate in one UNION ALL of tagged rows, and the most recent runs with their registries in one join.
 *
 * Why: the overview was ten statements per request (seven aggregates, the recent runs, then their registries),
 * and at 500,000 events the control plane spent ≈ 3 ms of CPU per overview building, sending and decoding them
 * (≈ 300 µs each), more than the database spent answering. Two round trips carry the same rows.
 *
 * Every group keeps the order and limit it had as a statement of its own (ROW_NUMBER over the same ORDER BY, ties
 * broken the same way, in the database's collation), so the overview is byte-for-byte what it was.
 */
import { RUN_ACTIVITY_BUCKET_MS } from './migrations/0830_run_activity.js'
import type { SqlRow, SqlValue } from './prepared-reads.js'
import type { DashboardAggregates, RunRecord, RunStatus } from './store.js'

/** How many distinct scenarios / registries / DID methods a dashboard lists at most. */
export const DASHBOARD_GROUP_LIMIT = 100

/** How many recent runs the overview lists. */
export const DASHBOARD_RECENT_RUNS = 10

/** The tag in the first column of each row of {@link DASHBOARD_AGGREGATES_SQL}. */
const Part = { Scenario: 1, Agents: 2, Retracted: 3, Registry: 4, Method: 5 } as const

/**
 * Rows `(part, ordinal, key, a, b, c)`. Parameters: $1 tenant, $2 since (ms), $3 the first whole rollup hour at
 * or after since, $4 the first 5-minute bucket of the window.
 *
 * Runs in the window come from the hourly `run_activity` rollup (migration 0830) for the whole hours from $3 on,
 * plus the runs of the partial hour [since, $3) from `runs` itself: exact to the millisecond, like a scan of
 * `runs`, at the cost of at most one hour of runs instead of the whole window. The window's run total rides on
 * every scenario row (a window sum, taken before the limit).
 */
export const DASHBOARD_AGGREGATES_SQL = `
SELECT ${Part.Scenario} AS part, ROW_NUMBER() OVER (ORDER BY run_count DESC, scenario_id ASC) AS ordinal,
  scenario_id AS k, run_count AS a, total_runs AS b, CAST(NULL AS BIGINT) AS c
FROM (
  SELECT scenario_id, CAST(SUM(n) AS BIGINT) AS run_count, CAST(SUM(SUM(n)) OVER () AS BIGINT) AS total_runs
  FROM (
    SELECT scenario_id, run_count AS n FROM run_activity WHERE tenant_id = $1 AND bucket_start >= $3
    UNION ALL
    SELECT scenario_id, 1 AS n FROM runs WHERE tenant_id = $1 AND started_at >= $2 AND started_at < $3
  ) AS window_runs
  GROUP BY scenario_id HAVING SUM(n) > 0
  ORDER BY run_count DESC, scenario_id ASC
  LIMIT ${DASHBOARD_GROUP_LIMIT}
) AS scenarios
UNION ALL
SELECT ${Part.Agents}, 0, NULL, COUNT(*), NULL, NULL FROM agents WHERE tenant_id = $1 AND last_seen >= $2
UNION ALL
SELECT ${Part.Retracted}, 0, NULL, COUNT(*), NULL, NULL FROM context_lifecycle
WHERE tenant_id = $1 AND retracted = 1 AND retracted_at >= $2
UNION ALL
SELECT ${Part.Registry}, ROW_NUMBER() OVER (ORDER BY event_count DESC, registry_authority ASC),
  registry_authority, event_count, publish_count, receipt_count
FROM (
  SELECT registry_authority, CAST(SUM(event_count) AS BIGINT) AS event_count,
    CAST(SUM(publish_count) AS BIGINT) AS publish_count, CAST(SUM(receipt_count) AS BIGINT) AS receipt_count
  FROM registry_activity WHERE tenant_id = $1 AND bucket_start >= $4
  GROUP BY registry_authority
  ORDER BY event_count DESC, registry_authority ASC
  LIMIT ${DASHBOARD_GROUP_LIMIT}
) AS registries
UNION ALL
SELECT ${Part.Method}, ROW_NUMBER() OVER (ORDER BY publish_count DESC, method ASC), method, publish_count, NULL, NULL
FROM (
  SELECT method, CAST(SUM(publish_count) AS BIGINT) AS publish_count
  FROM did_method_activity WHERE tenant_id = $1 AND bucket_start >= $4
  GROUP BY method
  ORDER BY publish_count DESC, method ASC
  LIMIT ${DASHBOARD_GROUP_LIMIT}
) AS methods
ORDER BY 1, 2`

/** The parameters of {@link DASHBOARD_AGGREGATES_SQL}. */
export function dashboardAggregateParams(query: { tenantId: string; since: number; bucketSince: number }): SqlValue[] {
  const hourAfter = Math.ceil(query.since / RUN_ACTIVITY_BUCKET_MS) * RUN_ACTIVITY_BUCKET_MS
  return [query.tenantId, query.since, hourAfter, query.bucketSince]
}

/**
 * The most recent runs started at or after $2 (tenant $1), newest first, run id breaking ties, one row per
 * (run, registry) in registry order; a run without registries has one row with a NULL registry.
 */
export const DASHBOARD_RECENT_RUNS_SQL = `
SELECT r.tenant_id, r.run_id, r.scenario_id, r.status, r.started_at, r.completed_at, r.inputs, r.result,
  r.events_count, r.contexts_count, r.created_at, r.updated_at, g.registry_authority
FROM (
  SELECT * FROM runs WHERE tenant_id = $1 AND started_at >= $2
  ORDER BY started_at DESC, run_id ASC
  LIMIT ${DASHBOARD_RECENT_RUNS}
) AS r
LEFT JOIN run_registries AS g ON g.tenant_id = r.tenant_id AND g.run_id = r.run_id
ORDER BY r.started_at DESC, r.run_id ASC, g.registry_authority ASC`

/** Folds the rows of the two statements into the overview's aggregates. */
export function toDashboardAggregates(aggregateRows: SqlRow[], recentRows: SqlRow[]): DashboardAggregates {
  const aggregates: DashboardAggregates = {
    totalRuns: 0,
    totalAgents: 0,
    totalRetracted: 0,
    recentRuns: toRecentRuns(recentRows),
    byScenario: [],
    byRegistry: [],
    didMethods: [],
  }
  for (const row of aggregateRows) {
    const key = row[2] as string
    const a = Number(row[3])
    switch (Number(row[0])) {
      case Part.Scenario:
        aggregates.totalRuns = Number(row[4])
        aggregates.byScenario.push({ scenarioId: key, runCount: a })
        break
      case Part.Agents:
        aggregates.totalAgents = a
        break
      case Part.Retracted:
        aggregates.totalRetracted = a
        break
      case Part.Registry:
        aggregates.byRegistry.push({
          registryAuthority: key,
          eventCount: a,
          publishCount: Number(row[4]),
          receiptCount: Number(row[5]),
        })
        break
      case Part.Method:
        aggregates.didMethods.push({ method: key, publishCount: a })
        break
    }
  }
  return aggregates
}

function toRecentRuns(rows: SqlRow[]): RunRecord[] {
  const runs: RunRecord[] = []
  let last: RunRecord | undefined
  for (const row of rows) {
    const runId = row[1] as string
    if (last === undefined || last.runId !== runId) {
      last = {
        tenantId: row[0] as string,
        runId,
        scenarioId: row[2] as string,
        status: row[3] as RunStatus,
        startedAt: Number(row[4]),
        completedAt: row[5] === null ? null : Number(row[5]),
        inputsJson: row[6] as string | null,
        resultJson: row[7] as string | null,
        eventsCount: Number(row[8]),
        contextsCount: Number(row[9]),
        registries: [],
        createdAt: Number(row[10]),
        updatedAt: Number(row[11]),
      }
      runs.push(last)
    }
    if (row[12] !== null) last.registries.push(row[12] as string)
  }
  return runs
}
