/**
 * The crash suite's contract and loop. A scenario knows how to run its service on a backend, drives load
 * through its own ledger (what was sent, what was answered), and lists its invariants: checks run against the
 * restarted service after every SIGKILL. Adding an invariant (a new feature's durability promise) is one more
 * entry in a scenario's `invariants`.
 */
import type { CrashBackend } from './backends.js'
import { freePort, ServiceProcess, type ServiceSpec } from './service-process.js'

/** One durability promise, checked after each restart. Returns the problems found (empty: holds). */
export interface CrashInvariant {
  name: string
  check(baseUrl: string, context: { final: boolean }): Promise<string[]>
}

export interface CrashScenario {
  /** The process to run on `backend` at `port` (may write its configuration file into backend.dir). */
  spec(backend: CrashBackend, port: number): ServiceSpec
  /** Once, after the first start: state the load needs (subscriptions, keys). */
  prepare?(baseUrl: string): Promise<void>
  /**
   * The body of one load connection for one round: sends requests back to back, recording each in the ledger
   * before it is sent and its answer after, until `isStopped()`; a failed request (the process died) ends it.
   */
  connection(baseUrl: string, round: number, index: number, isStopped: () => boolean): Promise<void>
  invariants: CrashInvariant[]
  /** Counters for the report (acknowledged, refused, unknown…). */
  tally(): Record<string, number>
  dispose?(): Promise<void>
}

export interface CrashRunOptions {
  kills: number
  connections: number
  /** Load runs this long (uniformly random within) before each SIGKILL. */
  minLoadMs: number
  maxLoadMs: number
  random?: () => number
}

export interface CrashRunReport {
  kills: number
  problems: string[]
  tally: Record<string, number>
}

/** Start → (load → SIGKILL → restart → invariants) × kills → final invariants → SIGTERM. */
export async function runCrashScenario(
  scenario: CrashScenario,
  backend: CrashBackend,
  options: CrashRunOptions,
): Promise<CrashRunReport> {
  const random = options.random ?? Math.random
  const service = new ServiceProcess(scenario.spec(backend, await freePort()))
  const problems: string[] = []
  let kills = 0
  await service.start()
  try {
    await scenario.prepare?.(service.baseUrl)
    for (let round = 1; round <= options.kills; round++) {
      let stopped = false
      const load = Promise.all(
        Array.from({ length: options.connections }, (_, index) =>
          scenario.connection(service.baseUrl, round, index, () => stopped),
        ),
      )
      const loadMs = options.minLoadMs + random() * (options.maxLoadMs - options.minLoadMs)
      await new Promise((resolve) => setTimeout(resolve, loadMs))
      await service.kill()
      kills++
      stopped = true
      await load
      await service.start()
      for (const invariant of scenario.invariants) {
        const found = await invariant.check(service.baseUrl, { final: round === options.kills })
        problems.push(...found.map((p) => `after kill ${round}: ${invariant.name}: ${p}`))
      }
    }
  } finally {
    await service.stop()
    await scenario.dispose?.()
  }
  return { kills, problems, tally: scenario.tally() }
}
