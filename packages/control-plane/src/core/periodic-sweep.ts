/**
 * The schedule of a background sweep (the receipt audit, the log reconciliation): one run at a time, the next
 * `intervalMs` after the previous one ended, a failed run logged and retried next interval, `runNow` for tests
 * and benches (queued behind a running one), and `stop` waiting for the run in flight.
 */
export interface PeriodicSweep {
  start(): void
  runNow(): Promise<number>
  /** True once `stop` was called: sweeps check it between units of work. */
  readonly isStopped: boolean
  stop(): Promise<void>
}

export function createPeriodicSweep(
  sweep: () => Promise<number>,
  options: { intervalMs: number; onError: (error: unknown) => void },
): PeriodicSweep {
  let timer: NodeJS.Timeout | undefined
  let isStopped = false
  let running: Promise<number> = Promise.resolve(0)

  function schedule(): void {
    if (isStopped) return
    timer = setTimeout(() => {
      running = running
        .then(sweep)
        .catch((error: unknown) => {
          options.onError(error)
          return 0
        })
        .finally(schedule)
    }, options.intervalMs)
    timer.unref()
  }

  return {
    start() {
      if (timer === undefined && !isStopped) schedule()
    },
    runNow() {
      running = running.then(sweep, sweep)
      return running
    },
    get isStopped() {
      return isStopped
    },
    async stop() {
      isStopped = true
      if (timer !== undefined) clearTimeout(timer)
      await running.catch(() => 0)
    },
  }
}
