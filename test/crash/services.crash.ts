/**
 * Crash suite (`npm run test:crash`; docs/deploy.md "Crash safety"): each service, as its real built bin, on
 * SQLite and (with ACDP_TEST_DATABASE_URL) on PostgreSQL, is driven at full speed from several connections and
 * killed with SIGKILL at random points, CRASH_KILLS times (default 10; CI runs 3), then restarted; after every
 * restart each scenario's invariants must hold.
 */
import { describe, expect, it } from 'vitest'
import { crashBackendKinds, openCrashBackend } from './backends.js'
import { type CrashScenario, runCrashScenario } from './crash-scenario.js'
import { controlPlaneCrashScenario } from './control-plane-scenario.js'
import { registryCrashScenario } from './registry-scenario.js'

const KILLS = Number(process.env.CRASH_KILLS ?? 10)
const CONNECTIONS = Number(process.env.CRASH_CONNECTIONS ?? 8)

const SCENARIOS: Array<[string, () => CrashScenario]> = [
  ['registry', registryCrashScenario],
  ['control-plane', controlPlaneCrashScenario],
]

describe.each(SCENARIOS)('crash: %s', (name, makeScenario) => {
  it.each(crashBackendKinds())(`survives ${KILLS} SIGKILLs under load on %s`, async (kind) => {
    const backend = await openCrashBackend(kind, name)
    try {
      const report = await runCrashScenario(makeScenario(), backend, {
        kills: KILLS,
        connections: CONNECTIONS,
        minLoadMs: 500,
        maxLoadMs: 2500,
      })
      console.log(`[crash ${name} ${kind}] ${report.kills} kills; ${JSON.stringify(report.tally)}`)
      expect(report.problems.slice(0, 20)).toEqual([])
      expect(report.kills).toBe(KILLS)
      expect(report.tally.acked).toBeGreaterThan(0)
    } finally {
      await backend.dispose()
    }
  })
})
