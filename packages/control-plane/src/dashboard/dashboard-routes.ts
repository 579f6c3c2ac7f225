/**
 * GET /dashboard/overview?window= (product spec "Dashboard"): tenant-scoped KPIs; window 1h, 6h, 24h, 7d or
 * 30d, default 24h. GET /dashboard/activity?window= (beyond the spec, for the console's chart): events and
 * publications per display bucket over the same windows.
 */
import { Type } from 'typebox'
import { type DashboardWindow, getDashboardOverview } from './dashboard.js'
import { getDashboardActivity } from './dashboard-activity.js'
import { summarizeWitness } from '../witness/witness-state.js'
import { createDashboardCache } from './dashboard-cache.js'
import type { RoutePlugin } from '../core/route-context.js'
import {
  DashboardActivityShape,
  DashboardOverviewShape,
  DashboardWindowShape as WindowName,
} from '../response-schemas/dashboard.js'

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
        response: { 200: DashboardOverviewShape },
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
        response: { 200: DashboardActivityShape },
      },
    },
    async (request) => {
      const { window } = request.query as { window?: DashboardWindow }
      return getDashboardActivity(deps, request.tenantId, window ?? '24h')
    },
  )
}
