/** GET /dashboard/overview and GET /dashboard/activity. */
import { type Static, Type } from 'typebox'
import { RunShape } from './runs.js'

export const DashboardWindowShape = Type.Union([
  Type.Literal('1h'),
  Type.Literal('6h'),
  Type.Literal('24h'),
  Type.Literal('7d'),
  Type.Literal('30d'),
])

export const DashboardOverviewShape = Type.Object({
  window: DashboardWindowShape,
  totalRuns: Type.Integer(),
  totalContexts: Type.Integer(),
  // Contexts retracted within the window that are still retracted.
  totalRetracted: Type.Integer(),
  // totalContexts − totalRetracted (never negative).
  totalContextsLive: Type.Integer(),
  totalAgents: Type.Integer(),
  recentRuns: Type.Array(RunShape),
  byScenario: Type.Array(Type.Object({ scenario_id: Type.String(), run_count: Type.Integer() })),
  byRegistry: Type.Array(Type.Object({ registry_authority: Type.String(), event_count: Type.Integer() })),
  receiptCoverage: Type.Array(
    Type.Object({ registry_authority: Type.String(), publish_count: Type.Integer(), receipt_count: Type.Integer() }),
  ),
  didMethods: Type.Array(
    Type.Object({
      method: Type.String({ description: 'the DID method as written in DIDs: did:key, did:web' }),
      publish_count: Type.Integer(),
    }),
  ),
  logWitness: Type.Object({
    witnessedLogs: Type.Integer(),
    activeAlerts: Type.Integer(),
    unacknowledgedAlerts: Type.Integer(),
    headsMeetingQuorum: Type.Integer(),
  }),
})

export const DashboardActivityShape = Type.Object({
  window: DashboardWindowShape,
  bucketMs: Type.Integer(),
  // Oldest first; the last bucket contains now.
  buckets: Type.Array(
    Type.Object({
      start: Type.String({ description: 'RFC 3339 UTC with milliseconds' }),
      eventCount: Type.Integer(),
      publishCount: Type.Integer(),
    }),
  ),
})

/** A window name of the dashboard routes' `window=` query. */
export type DashboardWindow = Static<typeof DashboardWindowShape>
/** The overview object of GET /dashboard/overview (member names as the product spec gives them). */
export type DashboardOverview = Static<typeof DashboardOverviewShape>
/** The activity series of GET /dashboard/activity. */
export type DashboardActivity = Static<typeof DashboardActivityShape>
