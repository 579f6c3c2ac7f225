/**
 * GET /dashboard/overview?window= (product spec "Dashboard"): tenant-scoped KPIs; window 1h, 6h, 24h, 7d or
 * 30d, default 24h. GET /dashboard/activity?window= (beyond the spec, for the console's chart): events and
 * publications per display bucket over the same windows.
 */
import { Type } from 'typebox'
import { type DashboardWindow, getDashboardOverview } from '../services/dashboard.js'
import { getDashboardActivity } from '../services/dashboard-activity.js'
import { summarizeWitness } from '../services/witness-state.js'
import { createDashboardCache } from '../services/dashboard-cache.js'
import type { RoutePlugin } from './route-context.js'
import { RunShape } from './wire-schemas.js'

const WindowName = Type.Union([
  Type.Literal('1h'),
  Type.Literal('6h'),
  Type.Literal('24h'),
  Type.Literal('7d'),
  Type.Literal('30d'),
])

const OverviewShape = Type.Object({
  window: WindowName,
  totalRuns: Type.Integer(),
  totalContexts: Type.Integer(),
  totalRetracted: Type.Integer(),
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

const ActivityShape = Type.Object({
  window: WindowName,
  bucketMs: Type.Integer(),
  buckets: Type.Array(
    Type.Object({
      start: Type.String({ description: 'RFC 3339 UTC with milliseconds' }),
      eventCount: Type.Integer(),
      publishCount: Type.Integer(),
    }),
  ),
})

export const dashboardRoutes: RoutePlugin = async (app, { config, deps, witness }) => {
  const overviewDeps = { ...deps, witnessSummary: (tenantId: string) => summarizeWitness(witness.store, tenantId) }
  const cache = createDashboardCache({
    ttlMs: config.dashboard.cacheMs,
    maxEntries: config.dashboard.cacheMaxEntries,
    now: () => deps.clock().getTime(),
  })
  app.get(
    '/dashboard/overview',
    {
      schema: {
        summary: 'Key figures of the tenant over a window',
        tags: ['dashboard'],
        querystring: Type.Object({ window: Type.Optional(WindowName) }, { additionalProperties: false }),
        response: { 200: OverviewShape },
      },
    },
    async (request) => {
      const window = (request.query as { window?: DashboardWindow }).window ?? '24h'
      const tenantId = request.tenantId
      return cache.get(tenantId, window, () => getDashboardOverview(overviewDeps, tenantId, window))
    },
  )

  app.get(
    '/dashboard/activity',
    {
      schema: {
        summary: 'Events and publications per time bucket over a window',
        tags: ['dashboard'],
        querystring: Type.Object({ window: Type.Optional(WindowName) }, { additionalProperties: false }),
        response: { 200: ActivityShape },
      },
    },
    async (request) => {
      const { window } = request.query as { window?: DashboardWindow }
      return getDashboardActivity(deps, request.tenantId, window ?? '24h')
    },
  )
}
