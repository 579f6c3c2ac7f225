/**
 * Transparency-log proof generation time, in-process (`npm run bench:log-proofs`; docs/performance/journal.md
 * "Proofs at 10,000,000 leaves (session 4)").
 *
 * For each size in BENCH_LOG_SIZES (default `1000000,10000000`): bulk-loads a scratch registry SQLite file
 * (log-bulk-load.ts, with a checkpoint signed by the registry key), then, per proof kind, starts the log as the
 * registry does (a fresh store connection and TransparencyLog, the `since-checkpoint` start-up self-check, the
 * current checkpoint) and times proofs one at a time through TransparencyLog — the code behind
 * `GET /log/proof`, without HTTP:
 *
 *   - inclusion by leaf index i; consistency `first = i, second = n`; i deterministic pseudo-random over the
 *     whole tree (no locality: the node cache's worst case);
 *   - first: the process's first BENCH_FIRST_PROOFS proofs of each kind (inclusion, then consistency) on a
 *     throwaway instance: JIT, node cache and SQLite page cache all cold;
 *   - cold: the first BENCH_PROOFS proofs of a new instance (empty node cache and SQLite page cache, compiled
 *     code; the OS page cache still holds the file just written);
 *   - warm: BENCH_PROOFS more after another BENCH_WARMUP_PROOFS of the same kind on that instance.
 *
 * Every BENCH_VERIFY_EVERY-th proof (default 64; cold, warm-up and warm alike) is verified with @acdp/protocol
 * against roots the loader computed from the leaves it wrote, never against anything the registry computed; the
 * run fails on the first proof that does not verify. Times exclude that verification. The load runs in a child
 * process, so the RSS reported is that of proof serving alone. The scratch directory is deleted after each size. BENCH_OUT=<file> writes the results as JSON.
 */
import { randomBytes } from 'node:crypto'
import { loadavg, tmpdir } from 'node:os'
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const MACHINE_MODULE: string = './machine.ts'
const { describeMachine, formatMachine } = (await import(MACHINE_MODULE)) as typeof import('./machine.ts')

const SIZES = (process.env['BENCH_LOG_SIZES'] ?? '1000000,10000000').split(',').map(Number)
const PROOFS = Number(process.env['BENCH_PROOFS'] ?? 20_000)
const FIRST_PROOFS = Number(process.env['BENCH_FIRST_PROOFS'] ?? 2_000)
const WARMUP_PROOFS = Number(process.env['BENCH_WARMUP_PROOFS'] ?? 50_000)
const VERIFY_EVERY = Number(process.env['BENCH_VERIFY_EVERY'] ?? 64)
/**
 * Node-cache policies to run, in order, on one loaded file (e.g. `clock,resident,resident,clock` for A B B A):
 * `resident` is the registry's (upper levels resident, warmed without awaiting after start, as app.ts does);
 * `clock` is every chunk under CLOCK with no warm-up (the earlier policy). Each run draws its own indexes, so a run
 * does not find the previous run's rows in the OS page cache.
 */
const VARIANTS = (process.env['BENCH_VARIANTS'] ?? 'resident').split(',').map((v) => {
  if (v !== 'resident' && v !== 'clock') throw new Error(`BENCH_VARIANTS: unknown policy ${v}`)
  return v
})
const AUTHORITY = 'bench.registry.test'
/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const LOADER_MODULE: string = './log-bulk-load.ts'

const protocol = await import('@acdp/protocol')
const registry = await import('@acdp/registry')
const { bulkLoadLog, syntheticLeafJson } = (await import(LOADER_MODULE)) as typeof import('./log-bulk-load.ts')

type Kind = 'inclusion' | 'consistency'
type Pass = 'first' | 'cold' | 'warm-up' | 'warm'
const KINDS: readonly Kind[] = ['inclusion', 'consistency']

type Variant = (typeof VARIANTS)[number]

interface PassResult {
  size: number
  /** The run's position in BENCH_VARIANTS and its node-cache policy. */
  run: number
  variant: Variant
  kind: Kind
  pass: Pass
  proofs: number
  verified: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  meanMs: number
  /** Proofs per second of generation time (one at a time, verification excluded). */
  proofsPerSecond: number
  rssMiB: number
  heapUsedMiB: number
  nodeCacheMiB: number
  nodeCacheResidentMiB: number
}

interface SizeResult {
  size: number
  loadMs: number
  databaseMiB: number
  /** The registry's start-up self-check (`since-checkpoint`) plus its first checkpoint, per kind's start. */
  startMs: number[]
  passes: PassResult[]
}

/** Deterministic pseudo-random integers in [0, n) (mulberry32): the same i on every run and variant. */
function indexes(seed: number, count: number, n: number): number[] {
  let state = seed >>> 0
  return Array.from({ length: count }, () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n)
  })
}

const PASSES: ReadonlyArray<{ pass: Pass; count: number }> = [
  { pass: 'first', count: FIRST_PROOFS },
  { pass: 'cold', count: PROOFS },
  { pass: 'warm-up', count: WARMUP_PROOFS },
  { pass: 'warm', count: PROOFS },
]

/** The i of every proof of every pass, fixed before loading so the loader can compute the roots to verify against. */
function plan(n: number): Map<string, number[]> {
  const out = new Map<string, number[]>()
  let seed = 1
  for (let run = 0; run < VARIANTS.length; run++) {
    for (const kind of KINDS) {
      for (const { pass, count } of PASSES) out.set(`${run}/${kind}/${pass}`, indexes(seed++, count, n))
    }
  }
  return out
}

function planOf(planned: Map<string, number[]>, run: number, kind: Kind, pass: Pass): number[] {
  const out = planned.get(`${run}/${kind}/${pass}`)
  if (out === undefined) throw new Error(`no plan for ${kind}/${pass}`)
  return out
}

/** Consistency proofs go from `first = i + 1` (0 < first ≤ n) to n. */
const firstOf = (i: number) => i + 1

async function measureSize(n: number): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-log-proofs-'))
  try {
    const config = registry.resolveConfig({
      registry: { authority: AUTHORITY, log_level: 'warn' },
      receipt: { signing_key_seed_b64: randomBytes(32).toString('base64') },
      log: { enabled: true },
      storage: { backend: 'sqlite', sqlite_path: join(dir, 'registry.db') },
    })
    const keyring = registry.loadReceiptKeyring(config)
    if (keyring === undefined) throw new Error('no receipt key')
    const logId = protocol.formatLogId(registry.registryDidOf(AUTHORITY), config.log.instance)
    const planned = plan(n)
    // Samples are taken per pass (k counts from 0 in each), so ask for every pass's sampled sizes.
    const rootSizes = new Set<number>()
    for (let run = 0; run < VARIANTS.length; run++) {
      for (const { pass } of PASSES) {
        planOf(planned, run, 'consistency', pass).forEach((i, k) => {
          if (k % VERIFY_EVERY === 0) rootSizes.add(firstOf(i))
        })
      }
    }

    await (await registry.openRegistryStore(config.storage)).close()
    const loaded = await loadInChild({
      path: config.storage.sqlite_path,
      count: n,
      authority: AUTHORITY,
      checkpoint: { logId, key: keyring.signingKey },
      rootsAt: rootSizes,
    })
    const databaseMiB = statSync(config.storage.sqlite_path).size / 2 ** 20
    console.log(
      `${n.toLocaleString('en-US')} leaves bulk-loaded in ${(loaded.milliseconds / 1000).toFixed(1)} s ` +
        `(${databaseMiB.toFixed(0)} MiB); root ${protocol.formatSha256(loaded.root)}`,
    )
    const rootWire = protocol.formatSha256(loaded.root)
    const encoder = new TextEncoder()
    const reader = { did: null, tenant: 'default' }

    const verifyInclusion = (i: number, json: string) => {
      const body = JSON.parse(json) as {
        tree_size: number
        inclusion_path: string[]
        log_checkpoint: { root_hash: string }
      }
      if (body.tree_size !== n || body.log_checkpoint.root_hash !== rootWire)
        throw new Error(`inclusion ${i}: wrong tree`)
      protocol.verifyInclusionProof({
        leafHash: protocol.computeLeafHash(encoder.encode(syntheticLeafJson(i, n, AUTHORITY))),
        leafIndex: i,
        treeSize: n,
        inclusionPath: body.inclusion_path.map(protocol.parseSha256),
        rootHash: loaded.root,
      })
    }
    const verifyConsistency = (first: number, json: string) => {
      const body = JSON.parse(json) as { consistency_path: string[]; log_checkpoint: { root_hash: string } }
      if (body.log_checkpoint.root_hash !== rootWire) throw new Error(`consistency ${first}: wrong tree`)
      const firstRoot = loaded.rootsAt.get(first)
      if (firstRoot === undefined) throw new Error(`no loader root at ${first}`)
      protocol.verifyConsistencyProof({
        firstTreeSize: first,
        secondTreeSize: n,
        firstRootHash: firstRoot,
        secondRootHash: loaded.root,
        consistencyPath: body.consistency_path.map(protocol.parseSha256),
      })
    }

    const passes: PassResult[] = []
    const startMs: number[] = []
    /** A registry start: its own store connection, an empty node cache, the anchored self-check, a checkpoint. */
    const startLog = async (variant: Variant) => {
      const opened = await registry.openRegistryStore(config.storage)
      const log = new registry.TransparencyLog(
        { store: opened.store, clock: () => new Date() },
        {
          logId,
          key: keyring.signingKey,
          checkpointKeys: new Map([[keyring.signingKey.keyId, keyring.publicKey]]),
          ...(variant === 'clock' ? { nodeCacheResidentShare: 0 } : {}),
        },
      )
      const started = performance.now()
      const check = await log.selfCheck('since-checkpoint')
      if (!check.ok || check.checkpointTreeSize !== n) throw new Error(`self-check: ${JSON.stringify(check)}`)
      await log.currentCheckpoint()
      startMs.push(performance.now() - started)
      // app.ts starts the warm-up without awaiting it and serves requests meanwhile; here proofs are answered
      // synchronously back to back (node:sqlite), so a background warm-up would never get a turn: it is awaited
      // after the start instead and its time reported separately (the cold pass then starts warmed).
      if (variant === 'resident') {
        const warmed = performance.now()
        const nodes = await log.warmNodeCache()
        const ms = performance.now() - warmed
        console.log(`  node cache warm-up: ${nodes.toLocaleString('en-US')} nodes in ${ms.toFixed(0)} ms`)
      }
      return { log, close: () => opened.close() }
    }
    const runPass = async (log: InstanceType<typeof registry.TransparencyLog>, run: number, kind: Kind, pass: Pass) => {
      const variant = VARIANTS[run] as Variant
      const is = planOf(planned, run, kind, pass)
      const times = new Float64Array(is.length)
      let verified = 0
      for (let k = 0; k < is.length; k++) {
        const i = is[k] as number
        const t0 = performance.now()
        const json =
          kind === 'inclusion'
            ? (await log.inclusionByIndex(i, reader, undefined)).json
            : await log.consistency(firstOf(i), n)
        times[k] = performance.now() - t0
        if (k % VERIFY_EVERY === 0) {
          if (kind === 'inclusion') verifyInclusion(i, json)
          else verifyConsistency(firstOf(i), json)
          verified++
        }
      }
      const result = summarize(n, run, variant, kind, pass, times, verified, log)
      passes.push(result)
      if (pass !== 'warm-up') print(result)
    }
    // The process's first proofs (JIT, node cache and page cache all cold) on a throwaway instance; the cold
    // passes after it then measure a cold registry instance with compiled code.
    const first = await startLog(VARIANTS[0] as Variant)
    try {
      for (const kind of KINDS) await runPass(first.log, 0, kind, 'first')
    } finally {
      await first.close()
    }
    for (let run = 0; run < VARIANTS.length; run++) {
      console.log(`run ${run}: node cache ${VARIANTS[run]} (load ${loadavg()[0]?.toFixed(2)})`)
      for (const kind of KINDS) {
        const started = await startLog(VARIANTS[run] as Variant)
        try {
          for (const { pass } of PASSES.filter((p) => p.pass !== 'first')) await runPass(started.log, run, kind, pass)
        } finally {
          await started.close()
        }
      }
    }
    return { size: n, loadMs: loaded.milliseconds, databaseMiB, startMs, passes }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function summarize(
  size: number,
  run: number,
  variant: Variant,
  kind: Kind,
  pass: Pass,
  times: Float64Array,
  verified: number,
  log: InstanceType<typeof registry.TransparencyLog>,
): PassResult {
  const total = times.reduce((a, b) => a + b, 0)
  const sorted = Float64Array.from(times).sort()
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0
  const memory = process.memoryUsage()
  return {
    size,
    run,
    variant,
    kind,
    pass,
    proofs: times.length,
    verified,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: at(1),
    meanMs: total / times.length,
    proofsPerSecond: (times.length / total) * 1000,
    rssMiB: memory.rss / 2 ** 20,
    heapUsedMiB: memory.heapUsed / 2 ** 20,
    nodeCacheMiB: log.nodeCacheBytes / 2 ** 20,
    nodeCacheResidentMiB: log.nodeCacheResidentBytes / 2 ** 20,
  }
}

function print(r: PassResult): void {
  const ms = (x: number) => x.toFixed(3)
  console.log(
    `${r.size.toLocaleString('en-US').padStart(10)} ${r.run}:${r.variant.padEnd(8)} ${r.kind.padEnd(11)} ${r.pass.padEnd(5)}  ` +
      `p50 ${ms(r.p50Ms)} ms  p99 ${ms(r.p99Ms)} ms  max ${ms(r.maxMs)} ms  mean ${ms(r.meanMs)} ms  ` +
      `${Math.round(r.proofsPerSecond).toLocaleString('en-US')} proofs/s  (${r.proofs} proofs, ${r.verified} verified)  ` +
      `RSS ${r.rssMiB.toFixed(0)} MiB, heap ${r.heapUsedMiB.toFixed(0)} MiB, node cache ${r.nodeCacheMiB.toFixed(1)} MiB (${r.nodeCacheResidentMiB.toFixed(1)} resident)`,
  )
}

/** What the loader child is asked (IPC carries plain JSON: the key's seed travels as base64). */
interface LoadRequest {
  path: string
  count: number
  authority: string
  logId: string
  keyId: string
  seedB64: string
  rootsAt: number[]
}

/**
 * Bulk-loads in a child process, so the loader's memory (SQLite page cache, garbage) is not part of the RSS
 * reported for proof serving.
 */
async function loadInChild(options: Parameters<typeof bulkLoadLog>[0]): Promise<ReturnType<typeof bulkLoadLog>> {
  const { checkpoint } = options
  if (checkpoint === undefined) throw new Error('the bench always signs a checkpoint')
  const request: LoadRequest = {
    path: options.path,
    count: options.count,
    authority: options.authority,
    logId: checkpoint.logId,
    keyId: checkpoint.key.keyId,
    seedB64: Buffer.from(checkpoint.key.privateKey).toString('base64'),
    rootsAt: [...(options.rootsAt ?? [])],
  }
  const child = fork(fileURLToPath(import.meta.url), ['--load'], { execArgv: process.execArgv, stdio: 'inherit' })
  const answer = await new Promise<{ root: string; rootsAt: Array<[number, string]>; milliseconds: number }>(
    (resolve, reject) => {
      child.once('message', (message) => resolve(message as never))
      child.once('exit', (code) => reject(new Error(`loader child exited with code ${code}`)))
      child.send(request)
    },
  )
  child.kill()
  const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'))
  return {
    root: bytes(answer.root),
    rootsAt: new Map(answer.rootsAt.map(([size, hex]) => [size, bytes(hex)])),
    milliseconds: answer.milliseconds,
  }
}

function serveLoad(): void {
  process.once('message', (message) => {
    const request = message as LoadRequest
    const loaded = bulkLoadLog({
      path: request.path,
      count: request.count,
      authority: request.authority,
      checkpoint: {
        logId: request.logId,
        key: {
          algorithm: 'ed25519',
          keyId: request.keyId,
          privateKey: new Uint8Array(Buffer.from(request.seedB64, 'base64')),
        },
      },
      rootsAt: request.rootsAt,
    })
    const hex = (hash: Uint8Array) => Buffer.from(hash).toString('hex')
    process.send?.(
      {
        root: hex(loaded.root),
        rootsAt: [...loaded.rootsAt].map(([size, hash]) => [size, hex(hash)]),
        milliseconds: loaded.milliseconds,
      },
      () => process.exit(0),
    )
  })
}

if (process.argv[2] === '--load') serveLoad()
else await main()

async function main(): Promise<void> {
  const results: SizeResult[] = []
  for (const n of SIZES) {
    if (!Number.isSafeInteger(n) || n < 2) throw new Error(`BENCH_LOG_SIZES: ${n} is not a log size`)
    const result = await measureSize(n)
    console.log(
      `${n.toLocaleString('en-US')} leaves: registry start (anchored self-check + checkpoint) ` +
        result.startMs.map((x) => `${Math.round(x)} ms`).join(', '),
    )
    results.push(result)
  }
  const machine = describeMachine()
  console.log(formatMachine(machine))
  for (const r of results.flatMap((s) => s.passes).filter((p) => p.pass !== 'warm-up')) {
    console.log(
      `target ≤ 1 ms per proof (${r.size.toLocaleString('en-US')}, ${r.kind}, ${r.pass}): ` +
        `p50 ${r.p50Ms <= 1 ? 'met' : 'MISSED'}, p99 ${r.p99Ms <= 1 ? 'met' : 'MISSED'}`,
    )
  }
  const out = process.env['BENCH_OUT']
  if (out)
    writeFileSync(out, `${JSON.stringify({ machine, proofs: PROOFS, warmup: WARMUP_PROOFS, results }, null, 2)}\n`)
}
