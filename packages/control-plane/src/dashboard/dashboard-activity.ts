/**
 * GET /dashboard/activity?window=: the tenant's events and publications over time, for the console's "events over
 * time" chart. Read from the same 5-minute rollups as the overview (never a scan of the event log), folded into a
 * fixed number of display buckets per window and zero-filled, so a chart has one point per bucket whatever the
 * traffic.
 */
import type { ControlPlaneDeps } from '../core/deps.js'
import { DASHBOARD_WINDOWS, type DashboardWindow } from './dashboard.js'
import type { DashboardActivity } from '../response-schemas/dashboard.js'
import { ROLLUP_BUCKET_MS } from '../ingest/ingest.js'

/** Display bucket per window: 12 × 5 min, 12 × 30 min, 24 × 1 h, 28 × 6 h, 30 × 1 day. Multiples of the rollup. */
export const ACTIVITY_BUCKET_MS: Readonly<Record<DashboardWindow, number>> = {
  '1h': 5 * 60_000,
  '6h': 30 * 60_000,
  '24h': 3_600_000,
  '7d': 6 * 3_600_000,
  '30d': 24 * 3_600_000,
}

/** The activity series of `tenantId` over `window`, ending now. */
export async function getDashboardActivity(
  deps: Pick<ControlPlaneDeps, 'store' | 'clock'>,
  tenantId: string,
  window: DashboardWindow,
): Promise<DashboardActivity> {
  const bucketMs = ACTIVITY_BUCKET_MS[window]
  const count = Math.round(DASHBOARD_WINDOWS[window] / bucketMs)
  const lastStart = Math.floor(deps.clock().getTime() / bucketMs) * bucketMs
  const firstStart = lastStart - (count - 1) * bucketMs
  const bucketSince = Math.floor(firstStart / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS
  const rows = await deps.store.loadActivity({ tenantId, bucketSince })
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: new Date(firstStart + i * bucketMs).toISOString(),
    eventCount: 0,
    publishCount: 0,
  }))
  for (const row of rows) {
    const index = Math.floor((row.bucketStart - firstStart) / bucketMs)
    const bucket = buckets[index]
    if (bucket === undefined) continue
    bucket.eventCount += row.eventCount
    bucket.publishCount += row.publishCount
  }
  return { window, bucketMs, buckets }
}
