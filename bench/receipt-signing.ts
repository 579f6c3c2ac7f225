/**
 * What signing a registry's receipts costs per receipt, by way of hand-off (docs/performance.md, "Receipt signing
 * in batches (session 6)"): one libuv pool job per receipt (`signEd25519Async`, the registry before session 6),
 * the same pool jobs submitted together from one turn, a worker thread (one round trip per turn), and the
 * registry's batch signer (the worker from two requests a turn, a pool job for a lone one). Each round issues `batch` signatures in one turn and awaits them all, like `batch`
 * publishes whose receipts become ready together; main-thread CPU and all-thread CPU per signature are reported.
 *
 *   npm run build && npx node bench/receipt-signing.ts
 *
 * Environment: BENCH_BATCHES (comma-separated, default `1,2,4,8,16`), BENCH_SIGNATURES (per variant and batch size,
 * default 20000). Each variant runs twice, interleaved (A B C C B A).
 */
import { randomBytes } from 'node:crypto'
import { signEd25519Async } from '@acdp/protocol'

/** A variable specifier: Node runs the built module; TypeScript sees only its type. */
const SIGNER_MODULE: string = '../packages/registry/dist/services/receipt-batch-signer.js'
const { startReceiptBatchSigner } = (await import(SIGNER_MODULE)) as {
  startReceiptBatchSigner: (
    seed: Uint8Array,
    workerMinBatch?: number,
  ) => {
    sign: (message: Uint8Array) => Promise<Uint8Array>
    close(): Promise<void>
  }
}

const BATCHES = (process.env['BENCH_BATCHES'] ?? '1,2,4,8,16').split(',').map(Number)
const SIGNATURES = Number(process.env['BENCH_SIGNATURES'] ?? 20000)
const seed = new Uint8Array(randomBytes(32))
const message = () => Buffer.from(`sha256:${randomBytes(32).toString('hex')}`, 'latin1')

type Variant =
  | 'pool, one job per receipt'
  | 'pool, jobs of one turn together'
  | 'worker, one hand-off per turn'
  | 'registry signer (worker from 2 a turn)'

async function measure(variant: Variant, batch: number): Promise<{ main: number; all: number }> {
  const signer =
    variant === 'worker, one hand-off per turn'
      ? startReceiptBatchSigner(seed, 1)
      : variant === 'registry signer (worker from 2 a turn)'
        ? startReceiptBatchSigner(seed)
        : undefined
  const round = async (): Promise<void> => {
    const messages = Array.from({ length: batch }, message)
    if (signer !== undefined) {
      await Promise.all(messages.map((m) => signer.sign(m)))
    } else if (variant === 'pool, one job per receipt') {
      // Each request reaches its signature in its own callback, as publishes do: a macrotask apart.
      await Promise.all(messages.map((m) => new Promise((r) => setImmediate(() => r(signEd25519Async(seed, m))))))
    } else {
      await Promise.all(messages.map((m) => signEd25519Async(seed, m)))
    }
  }
  for (let i = 0; i < 200; i++) await round()
  const rounds = Math.ceil(SIGNATURES / batch)
  const main0 = process.threadCpuUsage()
  const all0 = process.cpuUsage()
  for (let i = 0; i < rounds; i++) await round()
  const main = process.threadCpuUsage(main0)
  const all = process.cpuUsage(all0)
  await signer?.close()
  const n = rounds * batch
  return { main: (main.user + main.system) / n, all: (all.user + all.system) / n }
}

const VARIANTS: Variant[] = [
  'pool, one job per receipt',
  'pool, jobs of one turn together',
  'worker, one hand-off per turn',
  'registry signer (worker from 2 a turn)',
]
console.log(
  `load ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
console.log('| batch | variant | main thread / signature (run 1, run 2) | all threads / signature (run 1, run 2) |')
console.log('|---:|---|---:|---:|')
for (const batch of BATCHES) {
  const results = new Map<Variant, { main: number; all: number }[]>()
  for (const variant of [...VARIANTS, ...VARIANTS.slice().reverse()]) {
    const list = results.get(variant) ?? []
    list.push(await measure(variant, batch))
    results.set(variant, list)
  }
  for (const variant of VARIANTS) {
    const [a, b] = results.get(variant)!
    console.log(
      `| ${batch} | ${variant} | ${a!.main.toFixed(1)}, ${b!.main.toFixed(1)} µs | ${a!.all.toFixed(1)}, ${b!.all.toFixed(1)} µs |`,
    )
  }
}
console.log(
  `load ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
