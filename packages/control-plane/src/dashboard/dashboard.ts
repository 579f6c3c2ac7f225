/**
 * GET /dashboard/overview (product spec "Dashboard overview"): KPIs of one tenant over a window, read from
 * incremental state instead of scanning the event log (store/dashboard-queries.ts has the statements):
 * - event, publication and receipt counts per registry, and publications per DID method, from the 5-minute
 *   rollups the ingest transaction maintains (windows are aligned down to a bucket start, so a window may
 *   include up to 5 extra minutes at its old end);
 * - runs and runs per scenario from the hourly run rollup (migration 0830) plus the window's first partial hour
 *   read from `runs`, exact to the millisecond; the most recent runs and the agents through (tenant, time)
 *   indexes;
 * - retractions from the lifecycle projection.
 */
import type { ControlPlaneDeps } from '../core/deps.js'
import type { DashboardOverview, DashboardWindow } from '../response-schemas/dashboard.js'
import { ROLLUP_BUCKET_MS } from '../ingest/ingest.js'
import { toRunView } from '../runs/runs.js'

/** Window name → length in ms. */
export const DASHBOARD_WINDOWS = {
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 24 * 3_600_000,
  '30d': 30 * 24 * 3_600_000,
} as const satisfies Record<DashboardWindow, number>

export type { DashboardOverview, DashboardWindow }

/** Transparency-log witness tile (not window-scoped: current state). */
export interface LogWitnessSummary {
  witnessedLogs: number
  activeAlerts: number
  unacknowledgedAlerts: number
  headsMeetingQuorum: number
}

/**
 * Computes the overview of `tenantId` over `window`, ending now. `witnessSummary` gives the logWitness tile
 * (the witness store's current state).
 */
export async function getDashboardOverview(
  deps: Pick<ControlPlaneDeps, 'store' | 'clock'> & {
    witnessSummary: (tenantId: string) => Promise<LogWitnessSummary>
  },
  tenantId: string,
  window: DashboardWindow,
): Promise<DashboardOverview> {
  const since = deps.clock().getTime() - DASHBOARD_WINDOWS[window]
  const bucketSince = Math.floor(since / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS
  const [aggregates, logWitness] = await Promise.all([
    deps.store.loadDashboard({ tenantId, since, bucketSince }),
    deps.witnessSummary(tenantId),
  ])
  const totalContexts = aggregates.byRegistry.reduce((sum, r) => sum + r.publishCount, 0)
  return {
    window,
    totalRuns: aggregates.totalRuns,
    totalContexts,
    totalRetracted: aggregates.totalRetracted,
    totalContextsLive: Math.max(0, totalContexts - aggregates.totalRetracted),
    totalAgents: aggregates.totalAgents,
    recentRuns: aggregates.recentRuns.map(toRunView),
    byScenario: aggregates.byScenario.map((s) => ({ scenario_id: s.scenarioId, run_count: s.runCount })),
    byRegistry: aggregates.byRegistry.map((r) => ({
      registry_authority: r.registryAuthority,
      event_count: r.eventCount,
    })),
    receiptCoverage: aggregates.byRegistry
      .filter((r) => r.publishCount > 0)
      .map((r) => ({
        registry_authority: r.registryAuthority,
        publish_count: r.publishCount,
        receipt_count: r.receiptCount,
      })),
    // Stored as the bare method name ("key"); served as written in DIDs ("did:key"), the form clients compare with.
    didMethods: aggregates.didMethods.map((m) => ({ method: `did:${m.method}`, publish_count: m.publishCount })),
    logWitness,
  }
}
