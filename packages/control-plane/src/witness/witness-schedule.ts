/**
 * The witness's poll schedule: when a registry is due again after a poll (LOG_WITNESS_INTERVAL_SECONDS).
 */

/**
 * When a registry is next due, so that each registry is polled once per interval however long the poll waited and
 * took (the old rule, one interval after the poll ended, stretched every period by both).
 *
 * - Claimed within `lagToleranceMs` of being due (the scheduler's tick granularity): one interval after it was due,
 *   a fixed rate.
 * - Claimed later (more due than the slots: the first sweep over newly enrolled registries, after an outage): one
 *   interval after `claimedAt - lagToleranceMs`, so a burst of registries due at one instant spreads over the time
 *   the instance needed to work through it instead of coming due together again every interval.
 * - A poll that ended after that (it took about an interval itself): one interval after it ended, never back to back.
 */
export function nextPollAfter(
  times: { dueAt: number; claimedAt: number; settledAt: number },
  intervalMs: number,
  lagToleranceMs: number,
): number {
  const anchor = Math.max(times.dueAt, times.claimedAt - lagToleranceMs)
  const next = anchor + intervalMs
  return next > times.settledAt ? next : times.settledAt + intervalMs
}
