/**
 * What the trust layer costs the registry's SQLite store per publish, without HTTP, signatures or a load
 * generator (docs/performance/journal.md, "Registry trust layer, session 4"): the main-thread CPU of `insertContext` and
 * the WAL bytes it writes, for publishes without the trust layer, with a receipt only, and with a receipt and a
 * log leaf, in group-commit batches of the given sizes (the closed-loop bench commits ≈ 5–6 publishes per
 * transaction at 16 connections, the fixed 1,000/s phase ≈ 2).
 *
 *   npm run build && npx node bench/registry-store-trust.ts
 *
 * Environment: BENCH_BATCHES (comma-separated batch sizes, default `1,8`), BENCH_PUBLISHES (per variant, default
 * 3000). The WAL checkpoint worker is held off (its start threshold is above anything written), so the WAL only
 * grows and its growth is what the commits wrote. Each variant runs twice, interleaved (A B C C B A).
 */
import { statSync } from 'node:fs'

/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const PUBLISHES_MODULE: string = './store-publishes.ts'
const { measureScratchPublishes } = (await import(PUBLISHES_MODULE)) as typeof import('./store-publishes.ts')
type Variant = import('./store-publishes.ts').TrustVariant

const BATCHES = (process.env['BENCH_BATCHES'] ?? '1,8').split(',').map(Number)
const PUBLISHES = Number(process.env['BENCH_PUBLISHES'] ?? 3000)
const WARM_UP = 200

async function measure(variant: Variant, batch: number): Promise<{ cpuMicros: number; walKiB: number }> {
  return measureScratchPublishes(variant, { batch, count: PUBLISHES, warmUp: WARM_UP }, async (path, writeMeasured) => {
    const walBefore = statSync(`${path}-wal`).size
    const cpuBefore = process.threadCpuUsage()
    await writeMeasured()
    const cpu = process.threadCpuUsage(cpuBefore)
    const measured = PUBLISHES - WARM_UP
    return {
      cpuMicros: (cpu.user + cpu.system) / measured,
      walKiB: (statSync(`${path}-wal`).size - walBefore) / measured / 1024,
    }
  })
}

const VARIANTS: Variant[] = ['off', 'receipt', 'receipt+log']
console.log('| batch | variant | main-thread CPU / publish (run 1, run 2) | WAL / publish (run 1, run 2) |')
console.log('|---:|---|---:|---:|')
for (const batch of BATCHES) {
  const results = new Map<Variant, Array<{ cpuMicros: number; walKiB: number }>>()
  for (const variant of [...VARIANTS, ...[...VARIANTS].reverse()]) {
    results.set(variant, [...(results.get(variant) ?? []), await measure(variant, batch)])
  }
  for (const variant of VARIANTS) {
    const runs = results.get(variant) ?? []
    const cpu = runs.map((r) => `${r.cpuMicros.toFixed(0)} µs`).join(', ')
    const wal = runs.map((r) => `${r.walKiB.toFixed(1)} KiB`).join(', ')
    console.log(`| ${batch} | ${variant} | ${cpu} | ${wal} |`)
  }
}
