/**
 * Liveness and readiness verdicts (product spec "Observability"): probes that
 * really fail when the database does. The database check is single-flight, bounded by a timeout, and its verdict is reused for
 * `cacheMs`, so a probe storm costs one query. Draining (shutdown in progress) makes readiness fail at once.
 */
import type { ControlPlaneStore } from '../store/store.js'

export type DatabaseState = 'ok' | 'unhealthy'

/** Readiness state shared by the probes and the shutdown sequence. */
export interface Readiness {
  /** Checks the database (cached, single-flight, bounded by the timeout). Never throws. */
  checkDatabase(): Promise<DatabaseState>
  /** Marks the instance as draining: /readyz answers 503 SERVICE_DRAINING from now on. */
  startDraining(): void
  readonly isDraining: boolean
}

/** Creates the readiness state. `now` is the injected clock in epoch ms. */
export function createReadiness(options: {
  store: Pick<ControlPlaneStore, 'ping'>
  now: () => number
  timeoutMs: number
  cacheMs: number
}): Readiness {
  const { store, now, timeoutMs, cacheMs } = options
  let draining = false
  let verdict: { state: DatabaseState; at: number } | undefined
  let inFlight: Promise<DatabaseState> | undefined

  const probe = async (): Promise<DatabaseState> => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<DatabaseState>((resolve) => {
      timer = setTimeout(() => resolve('unhealthy'), timeoutMs)
      timer.unref()
    })
    try {
      return await Promise.race([
        store.ping().then(
          (): DatabaseState => 'ok',
          (): DatabaseState => 'unhealthy',
        ),
        timeout,
      ])
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async checkDatabase() {
      if (verdict !== undefined && now() - verdict.at < cacheMs) return verdict.state
      if (inFlight === undefined) {
        inFlight = probe().then((state) => {
          verdict = { state, at: now() }
          inFlight = undefined
          return state
        })
      }
      return inFlight
    },
    startDraining() {
      draining = true
    },
    get isDraining() {
      return draining
    },
  }
}
