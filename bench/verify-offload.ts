/**
 * Does a worker_threads pool pay for a publish's hashing and signature verification? (`npm run
 * bench:verify-offload`; see docs/performance/journal.md "Signature verification in a worker pool".)
 *
 * The registry's main thread caps one instance's publish rate, so the question is how much main-thread CPU each
 * publish spends on the steps a pool could take over, and what handing them over costs instead. Two variants,
 * over the same pre-signed publish bodies the registry benchmark sends (bench/load-bodies.ts), 64 in flight:
 *
 *   inline: what the registry does today on its main thread once the body is parsed: JCS + SHA-256 of the
 *           producer content, the comparison with content_hash, the (cached) did:key, the strict Ed25519 checks,
 *           and the curve arithmetic dispatched to libuv's thread pool (verifyContentSignatureAsync);
 *   pool:   what a worker pool would leave on the main thread: UTF-8 encoding of the body text, a transfer of
 *           its bytes to a worker (bounded in-flight count per worker), and the answer's message; the worker
 *           parses, canonicalizes, hashes and verifies synchronously.
 *
 * Both variants still parse the body on the main thread in the registry (every later step needs the object), so
 * neither counts that parse. Printed per variant: publishes/s, main-thread CPU µs per publish
 * (process.threadCpuUsage), all-threads CPU µs per publish (process.cpuUsage). The variants run A B B A.
 * Environment: BENCH_VERIFY_COUNT (publishes per run, default 8,000), BENCH_VERIFY_WORKERS (pool size, default
 * os.availableParallelism()). Every answer is checked: a body that does not verify fails the run.
 */
import { availableParallelism, loadavg } from 'node:os'
import { Worker } from 'node:worker_threads'

const MODULE: string = '@acdp/protocol'
const protocol = (await import(MODULE)) as typeof import('@acdp/protocol')
const BODIES_MODULE: string = './load-bodies.ts'
const { signedPublishBody } = (await import(BODIES_MODULE)) as typeof import('./load-bodies.ts')

const COUNT = Number(process.env['BENCH_VERIFY_COUNT'] ?? 8000)
const WORKERS = Number(process.env['BENCH_VERIFY_WORKERS'] ?? availableParallelism())
const IN_FLIGHT = 64
const PER_WORKER = Math.ceil(IN_FLIGHT / WORKERS)

const producers = Array.from({ length: 64 }, () => protocol.createProducerKey({ algorithm: 'ed25519' }))
const texts = Array.from({ length: COUNT }, (_, i) => signedPublishBody(protocol, producers, i))
const parsed = texts.map((text) => protocol.parseJsonStrict(text) as Record<string, unknown>)

/**
 * did:key decoding costs ~100 µs (base58); the registry's resolver caches resolved keys, so both variants do too
 * (the worker keeps its own cache) and neither pays it per publish.
 */
const resolvedKeys = new Map<string, Uint8Array>()
function resolveDidKey(keyId: string): Uint8Array {
  let key = resolvedKeys.get(keyId)
  if (key === undefined) {
    key = protocol.parseDidKey(keyId.slice(0, keyId.indexOf('#'))).publicKey
    resolvedKeys.set(keyId, key)
  }
  return key
}

async function verifyInline(body: Record<string, unknown>): Promise<boolean> {
  const contentHash = protocol.computeContentHash(body)
  if (contentHash !== body['content_hash']) return false
  const signature = body['signature'] as { algorithm: string; key_id: string; value: string }
  return protocol.verifyContentSignatureAsync({
    algorithm: signature.algorithm,
    publicKey: resolveDidKey(signature.key_id),
    contentHash,
    signature: signature.value,
  })
}

class Pool {
  readonly #workers: Worker[] = []
  readonly #load: number[] = []
  readonly #pending = new Map<number, { resolve: (valid: boolean) => void; worker: number }>()
  #next = 0

  constructor(size: number) {
    for (let w = 0; w < size; w++) {
      const worker = new Worker(new URL('./verify-offload-worker.ts', import.meta.url))
      worker.on('message', (answer: { id: number; valid: boolean }) => {
        const job = this.#pending.get(answer.id)!
        this.#pending.delete(answer.id)
        this.#load[job.worker]!--
        job.resolve(answer.valid)
      })
      this.#workers.push(worker)
      this.#load.push(0)
    }
  }

  /** The least-loaded worker below its in-flight bound, or undefined (the caller waits: backpressure). */
  submit(text: string): Promise<boolean> | undefined {
    let best = -1
    for (let w = 0; w < this.#workers.length; w++) {
      if (this.#load[w]! < PER_WORKER && (best === -1 || this.#load[w]! < this.#load[best]!)) best = w
    }
    if (best === -1) return undefined
    const bytes = Buffer.from(text, 'utf8')
    // A Buffer this small lives in Node's shared pool slab; copy it into its own buffer so it can be transferred.
    const own = new Uint8Array(bytes.byteLength)
    own.set(bytes)
    const id = this.#next++
    this.#load[best]!++
    const answer = new Promise<boolean>((resolve) => this.#pending.set(id, { resolve, worker: best }))
    this.#workers[best]!.postMessage({ id, bytes: own }, [own.buffer])
    return answer
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()))
  }
}

async function run(variant: 'inline' | 'pool', pool: Pool): Promise<void> {
  const thread0 = process.threadCpuUsage()
  const all0 = process.cpuUsage()
  const start = performance.now()
  let next = 0
  let failures = 0
  const lane = async (): Promise<void> => {
    while (next < COUNT) {
      const i = next++
      let valid: boolean
      if (variant === 'inline') valid = await verifyInline(parsed[i]!)
      else {
        let answer = pool.submit(texts[i]!)
        while (answer === undefined) {
          await new Promise((resolve) => setImmediate(resolve))
          answer = pool.submit(texts[i]!)
        }
        valid = await answer
      }
      if (!valid) failures++
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
  const seconds = (performance.now() - start) / 1000
  const thread = process.threadCpuUsage(thread0)
  const all = process.cpuUsage(all0)
  if (failures > 0) throw new Error(`${failures} bodies did not verify in the ${variant} variant`)
  const label = variant === 'pool' ? `pool (${WORKERS} workers)` : 'inline (libuv verify)'
  console.log(
    `${label.padEnd(22)} ${Math.round(COUNT / seconds).toLocaleString('en-US')} publishes/s  ` +
      `main thread ${((thread.user + thread.system) / COUNT).toFixed(1)} µs/publish  ` +
      `all threads ${((all.user + all.system) / COUNT).toFixed(1)} µs/publish`,
  )
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${COUNT} publishes per run, ${IN_FLIGHT} in flight`,
)
const pool = new Pool(WORKERS)
await run('inline', pool) // warm-up of both paths, not reported
await run('pool', pool)
console.log('-- A B B A --')
for (const variant of ['inline', 'pool', 'pool', 'inline'] as const) await run(variant, pool)
await pool.close()
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
