/**
 * HTTP fuzzing of both services over real loopback sockets (docs/performance/journal.md "Reliability").
 * FUZZ_REQUESTS sets the total request count (default 2,000 here; `npm run fuzz:ci` sends 20,000 and `npm run fuzz`
 * 1,000,000), split between the targets: both services on SQLite, and on PostgreSQL too when
 * ACDP_TEST_DATABASE_URL is set. FUZZ_SEED sets the run seed (fixed by default; `random` draws one,
 * as `npm run fuzz` does); it is printed, so a finding is reproduced from the seed and the request index.
 *
 * The bar for every answer: no 5xx, no stack trace or internal path, errors in the service's envelope; for the
 * run: every control request between batches answered 2xx (the service never died) and peak RSS reported.
 */
import { testDatabaseUrl } from '@acdp/storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FuzzReport, runFuzz } from './fuzz-driver.js'
import { buildSeedRequest } from './mutations.js'
import { exchange } from './raw-http.js'
import type { FuzzTarget } from './seed.js'
import { startControlPlaneTarget } from './targets/control-plane-target.js'
import { startRegistryAuthTarget } from './targets/registry-auth-target.js'
import { startRegistryTarget } from './targets/registry-target.js'

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 2000)
const POSTGRES_URL = testDatabaseUrl()
/** Both services on SQLite; on PostgreSQL too when ACDP_TEST_DATABASE_URL is set (its own errors, e.g. NUL bytes). */
const TARGETS: Array<[string, () => Promise<FuzzTarget>]> = [
  ['registry', () => startRegistryTarget()],
  ['registry with bearer auth', () => startRegistryAuthTarget()],
  ['control plane', () => startControlPlaneTarget()],
  ...(POSTGRES_URL === undefined
    ? []
    : ([
        ['registry on PostgreSQL', () => startRegistryTarget(POSTGRES_URL)],
        ['control plane on PostgreSQL', () => startControlPlaneTarget(POSTGRES_URL)],
      ] as Array<[string, () => Promise<FuzzTarget>]>)),
]
const PER_SERVICE = Math.ceil(TOTAL / TARGETS.length)
/** Fixed by default so `npm test` and CI are deterministic; `npm run fuzz` passes FUZZ_SEED=random. */
const RUN_SEED =
  process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20_261_124)
/** Generous: a slow shared machine must not fail the run; the per-request deadline bounds hangs. */
const RUN_TIMEOUT_MS = 120_000 + PER_SERVICE * 50
/** Peak RSS bound of the whole test process (fuzzer and service together). */
const MAX_RSS_BYTES = 1536 * 1024 * 1024
/**
 * Starting a target (migrations, setup requests, a loopback upstream) or sending every seed once, on a loaded
 * 2-core machine; bounds a hang, no timing is asserted.
 */
const TARGET_START_TIMEOUT_MS = 120_000

describe.each(TARGETS)('HTTP fuzz: %s', (_name, start) => {
  let target: FuzzTarget
  beforeAll(async () => {
    target = await start()
  }, TARGET_START_TIMEOUT_MS)
  afterAll(async () => {
    await target?.close()
  }, TARGET_START_TIMEOUT_MS)

  it('has a seed for every route the app serves', () => {
    const seeded = new Set(target.seeds.map((s) => s.route))
    expect(target.routes.filter((route) => !seeded.has(route))).toEqual([])
  })

  it(
    'answers every unmutated seed with success (seeds reach the handlers)',
    async () => {
      for (const seed of target.seeds) {
        const answer = await exchange(target.port, buildSeedRequest(seed), 10_000)
        const ok =
          seed.expectStatus === undefined
            ? answer.status >= 200 && answer.status < 300
            : answer.status === seed.expectStatus
        expect(ok, `${seed.route} ${seed.path}: ${answer.status} ${answer.body.toString().slice(0, 300)}`).toBe(true)
      }
    },
    TARGET_START_TIMEOUT_MS,
  )

  it(
    `survives ${PER_SERVICE} mutated requests: no 5xx, no leaks, every error in its envelope`,
    async () => {
      const report = await runFuzz(target, {
        requests: PER_SERVICE,
        seed: RUN_SEED,
        onProgress: (done, r) => console.log(`[fuzz ${target.name}] ${done} requests, ${summary(r)}`),
        progressEvery: 50_000,
      })
      console.log(`[fuzz ${target.name}] seed ${RUN_SEED}: ${summary(report)}`)
      for (const finding of report.findings.slice(0, 10)) {
        console.log(
          `[fuzz ${target.name}] ${finding.count}× ${finding.key}\n  request #${finding.example.index}: ${finding.example.request}\n  answer: ${finding.example.answer}`,
        )
      }
      expect(report.findings.map((f) => `${f.count}× ${f.key}`)).toEqual([])
      expect(report.failedControls).toBe(0)
      expect(report.requests).toBe(PER_SERVICE)
      expect(report.peakRssBytes).toBeLessThan(MAX_RSS_BYTES)
    },
    RUN_TIMEOUT_MS,
  )
})

function summary(report: FuzzReport): string {
  const statuses = Object.entries(report.statuses)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
  return (
    `${report.requests} requests in ${report.seconds.toFixed(1)} s (${statuses}; ${report.timeouts} timeouts), ` +
    `${report.findings.length} finding kinds, peak RSS ${(report.peakRssBytes / 1048576).toFixed(0)} MiB`
  )
}
