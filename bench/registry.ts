/**
 * Registry load benchmark (`npm run bench:registry`; see docs/performance/registry.md; how it works: docs/performance/journal.md "Registry").
 *
 * Starts a registry on embedded SQLite (a temp dir) in a CHILD process on a loopback port, then drives it from
 * this process (autocannon for the closed-loop phases):
 *
 *   1. publish throughput: did:key producers, pre-signed requests with distinct content (no two are idempotent
 *      replays; each carries its own Idempotency-Key, as a well-behaved producer does), closed loop;
 *   2. retrieval throughput: GET /contexts/{ctx_id} cycling over up to 2,000 contexts published in the warm-up;
 *   3. publish latency at a fixed 500 publishes/s: an open-loop generator (undici, up to 64 connections) sends
 *      one publish every 2 ms whatever the answers, and measures each latency from the request's SCHEDULED send
 *      time, so a stalled registry or a late generator shows up in the figures (no coordinated omission).
 *      autocannon is not used here: its `overallRate` gives each connection a per-second budget that it spends
 *      back to back at the start of every second (bursts of 50 concurrent publishes, then idle), and its
 *      omission correction assumes a 1 ms interval, so both its offered load and its percentiles misstate a
 *      steady 500/s.
 *
 * Each phase also reports the registry's own CPU time per request (process.cpuUsage in the child, all threads:
 * far less sensitive to how busy the machine is than the rates), its main thread's CPU time per request
 * (process.threadCpuUsage: the serial part that caps one instance's rate), its side of the latency, read from
 * its acdp_registry_request_duration_seconds histogram (metrics are enabled for the run), and this process's
 * CPU time per request (the load generator's share of the cores).
 *
 * Targets (ARCHITECTURE "Performance by design"): ≥ 1,500 publishes/s, ≥ 8,000 retrievals/s, p99 ≤ 50 ms at
 * 500 publishes/s. Environment: BENCH_SECONDS (per phase, default 10), BENCH_PUBLISH_CONNECTIONS (16),
 * BENCH_READ_CONNECTIONS (32), BENCH_PRODUCERS (64), BENCH_PHASES (comma-separated subset of
 * `publish,retrieve,fixed,proofs`; default all), BENCH_TRUST=1 (receipts, head receipts and the transparency log
 * on), BENCH_LOG_LEAVES=<n> (bulk-load n leaves before start, log-bulk-load.ts; implies BENCH_TRUST),
 * BENCH_LOG_CHECKPOINT=0 (no signed checkpoint over the loaded leaves: the first start then rehashes them all),
 * BENCH_FIXED_RATE (500), BENCH_PROOF_CONNECTIONS (32), BENCH_CHILD_NODE_FLAGS (Node/V8 flags for the registry
 * child only), BENCH_CHILD_MALLOC_ARENA_MAX (glibc's MALLOC_ARENA_MAX for the registry child only, as the
 * launchers set it), BENCH_SQLITE_WAL_MAX_BYTES (the registry's storage.sqlite_wal_max_bytes), BENCH_CPU_PROF=1 (the
 * child writes a .cpuprofile into $TMPDIR/acdp-bench-profiles), BENCH_OUT=<file> (results as JSON). With
 * BENCH_LOG_LEAVES, every 64th proof request is also fetched once more and verified against the signed
 * checkpoint and the loader's roots. BENCH_DATABASE_URL=<postgres://…> runs the registry on PostgreSQL instead:
 * a throwaway database created on that server for the run (dropped at the end; BENCH_PG_POOL sets the pool,
 * default the registry's), and each phase also prints PostgreSQL's own counters per request (commits, rows
 * written per table, WAL bytes and fsyncs) from pg_stat_database / pg_stat_user_tables / pg_stat_wal, and the CPU
 * time of the run database's backends (from /proc/<pid>/stat: the server must be on this machine).
 * Runs against the built packages; the npm
 * script builds protocol, storage and registry first.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const MACHINE_MODULE: string = './machine.ts'
const { cpuSharesBetween, describeMachine, formatCpuShares, formatMachine, readCpuTimes } = (await import(
  MACHINE_MODULE
)) as typeof import('./machine.ts')

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const PUBLISH_CONNECTIONS = Number(process.env['BENCH_PUBLISH_CONNECTIONS'] ?? 16)
const READ_CONNECTIONS = Number(process.env['BENCH_READ_CONNECTIONS'] ?? 32)
const PRODUCERS = Number(process.env['BENCH_PRODUCERS'] ?? 64)
const FIXED_RATE = Number(process.env['BENCH_FIXED_RATE'] ?? 500)
/** BENCH_TRUST=1: receipts, lineage-head receipts and the transparency log on (RFC-ACDP-0010/0011/0012). */
const TRUST = process.env['BENCH_TRUST'] === '1'
/** BENCH_LOG_LEAVES=n: bulk-load n synthetic leaves into the log before the registry starts (implies BENCH_TRUST). */
const LOG_LEAVES = Number(process.env['BENCH_LOG_LEAVES'] ?? 0)
/** Every VERIFIED_EVERY-th request of the proof phases is fetched once more and verified. */
const VERIFIED_EVERY = 64
/** At most this many verified per phase (the loader computes a root for each consistency sample beforehand). */
const VERIFIED_MAX = 4096
const PROOF_CONNECTIONS = Number(process.env['BENCH_PROOF_CONNECTIONS'] ?? 32)
/** BENCH_DATABASE_URL: a PostgreSQL server to run the registry on (a throwaway database per run). */
const DATABASE_URL = process.env['BENCH_DATABASE_URL'] ?? ''
/** The throwaway database's URL, handed from the parent to the registry child. */
const RUN_DATABASE_ENV = 'ACDP_BENCH_RUN_DATABASE_URL'
const PG_POOL = process.env['BENCH_PG_POOL'] === undefined ? undefined : Number(process.env['BENCH_PG_POOL'])
const WAL_MAX_BYTES =
  process.env['BENCH_SQLITE_WAL_MAX_BYTES'] === undefined
    ? undefined
    : Number(process.env['BENCH_SQLITE_WAL_MAX_BYTES'])
const PHASES = new Set(
  (process.env['BENCH_PHASES'] ?? `publish,retrieve,fixed${TRUST || LOG_LEAVES > 0 ? ',proofs' : ''}`).split(','),
)
/** Enough that a request never waits for a free connection unless the registry is 128 ms behind. */
const FIXED_RATE_CONNECTIONS = 64
/** Buckets of the registry's request-duration histogram during the bench, in seconds. */
const SERVER_BUCKETS_SECONDS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 5]
/** Distinct contexts the retrieval phase cycles through (minted during the warm-up). */
const MAX_READ_PATHS = 2000
const AUTHORITY = 'bench.registry.test'

interface PhaseResult {
  name: string
  tail: TailDiagnostics
  /** TRUNCATE checkpoints during the phase and the time they held writers (the registry's /metrics). */
  walTruncates: number
  walTruncateMs: number
  /** RESTART checkpoints during the phase and the time spent in them (writers held during part of it). */
  walRestarts: number
  walRestartMs: number
  requestsPerSecond: number
  /** Registry CPU time (user + system) per request: contention-independent cost. */
  serverCpuMicrosPerRequest: number
  /**
   * CPU time of the registry's main thread (its event loop) per request: the serial part of a request, which
   * caps one instance at 1e6 / this many requests per second however many cores are idle.
   */
  serverMainThreadMicrosPerRequest: number
  /** CPU time of this process (the load generator) per request: its share of the machine's cores. */
  clientCpuMicrosPerRequest: number
  /** How the machine's vCPU time split during the phase (bench/machine.ts): steal shows a contended host. */
  vcpu: import('./machine.ts').CpuShares | undefined
  /** Registry-side latency (request start to response end, from its own histogram): bucket upper bounds in ms. */
  serverP50Ms: number | undefined
  serverP99Ms: number | undefined
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  total: number
  non2xx: number
  errors: number
  timeouts: number
}

/** Where a phase's latency tail can come from, measured in the registry child over the phase. */
interface TailDiagnostics {
  /** Event-loop delay (monitorEventLoopDelay, 1 ms resolution): p99 and max over the phase. */
  loopDelayP99Ms: number
  loopDelayMaxMs: number
  /** GC pauses (PerformanceObserver 'gc'). */
  gcCount: number
  gcTotalMs: number
  gcMaxMs: number
  /** The part of gcTotalMs spent in full (mark-compact) collections. */
  majorGcMs: number
  /** V8 heap in use at the end of the phase. */
  heapUsedMiB: number
}

/** The slice of autocannon's result this bench reads (autocannon ships no type declarations). */
interface AutocannonResult {
  requests: { average: number; total: number }
  latency: { p50: number; p90: number; p99: number; max: number }
  non2xx: number
  errors: number
  timeouts: number
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>
/** A variable specifier keeps TypeScript from looking for declarations autocannon does not ship. */
const AUTOCANNON_MODULE: string = 'autocannon'
/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const LOADER_MODULE: string = './log-bulk-load.ts'
const LOAD_BODIES_MODULE: string = './load-bodies.ts'

/** What a load phase reports to `run` (autocannon's result, or the open-loop generator's in the same shape). */
type LoadResult = AutocannonResult

if (process.argv[2] === '--serve') {
  await serve(process.argv[3] as string, process.argv[4] === '--restart')
} else {
  await main()
}

/** The registry's configuration: the child serves it, the parent bulk-loads its database first. */
async function benchConfig(dir: string): Promise<import('@acdp/registry').RegistryConfig> {
  const { resolveConfig } = await import('@acdp/registry')
  const trust = TRUST || LOG_LEAVES > 0
  return resolveConfig({
    registry: { authority: AUTHORITY, bind: '127.0.0.1', log_level: 'warn' },
    ...(trust
      ? {
          receipt: { signing_key_seed_b64: receiptSeed(dir), head_receipts: true },
          log: { enabled: true },
        }
      : {}),
    storage: process.env[RUN_DATABASE_ENV]
      ? {
          backend: 'postgres',
          postgres_url: process.env[RUN_DATABASE_ENV],
          ...(PG_POOL === undefined ? {} : { max_connections: PG_POOL }),
        }
      : {
          backend: 'sqlite',
          sqlite_path: join(dir, 'registry.db'),
          // BENCH_SQLITE_WAL_MAX_BYTES: the WAL size that triggers a TRUNCATE checkpoint (default: the registry's).
          ...(WAL_MAX_BYTES === undefined ? {} : { sqlite_wal_max_bytes: WAL_MAX_BYTES }),
        },
    auth: { did_methods: ['did:web', 'did:key'] },
    limits: { publish_rate_per_minute: 0 },
    // The registry's own request histogram gives its side of the latency, free of client and kernel queueing.
    metrics: { enabled: true, duration_buckets: SERVER_BUCKETS_SECONDS },
  })
}

/**
 * BENCH_LOG_LEAVES (in the parent, before the registry child starts): migrates the empty database, bulk-loads the log (log-bulk-load.ts) and, unless
 * BENCH_LOG_CHECKPOINT=0, signs a checkpoint over it with the registry's receipt key, so the registry's start-up
 * self-check anchors there (as on any restart after a first start) instead of rehashing every leaf.
 */
async function loadLog(
  config: import('@acdp/registry').RegistryConfig,
  rootsAt: number[],
): Promise<ReturnType<typeof import('./log-bulk-load.ts').bulkLoadLog>> {
  const { formatLogId } = await import('@acdp/protocol')
  const { loadReceiptKeyring, openRegistryStore, registryDidOf } = await import('@acdp/registry')
  const { bulkLoadLog } = (await import(LOADER_MODULE)) as typeof import('./log-bulk-load.ts')
  await (await openRegistryStore(config.storage)).close()
  const keyring = loadReceiptKeyring(config)
  if (keyring === undefined) throw new Error('BENCH_LOG_LEAVES needs the receipt key')
  const signed = process.env['BENCH_LOG_CHECKPOINT'] !== '0'
  const loaded = bulkLoadLog({
    path: config.storage.sqlite_path,
    count: LOG_LEAVES,
    authority: AUTHORITY,
    rootsAt,
    ...(signed
      ? { checkpoint: { logId: formatLogId(registryDidOf(AUTHORITY), config.log.instance), key: keyring.signingKey } }
      : {}),
  })
  console.log(
    `bulk-loaded ${LOG_LEAVES.toLocaleString('en-US')} log leaves in ${Math.round(loaded.milliseconds)} ms` +
      (signed ? ' (with a signed checkpoint over them)' : ' (no checkpoint: the first start checks every leaf)'),
  )
  return loaded
}

/** Child: a registry on SQLite in `dir`, listening on an ephemeral loopback port reported to the parent. */
async function serve(dir: string, restart: boolean): Promise<void> {
  const { startRegistry } = await import('@acdp/registry')
  const trust = TRUST || LOG_LEAVES > 0
  const config = await benchConfig(dir)
  const statementLog = process.env['BENCH_PG_STATEMENTS'] === '1' ? await countPgStatements() : undefined
  const registry = await startRegistry(config, { logger: false })
  // Listening makes the app ready, which runs the startup self-check over the whole log.
  const readyStart = performance.now()
  const address = await registry.app.listen({ port: 0, host: '127.0.0.1' })
  if (trust) {
    console.log(
      `registry ${restart ? 're' : ''}started, ready (startup log self-check included) in ${Math.round(performance.now() - readyStart)} ms`,
    )
  }
  // Tail diagnostics, reset at every usage read (so the read after a phase covers that phase): how long the
  // event loop was held (anything holding it delays every request queued behind) and the GC pauses in it.
  const { monitorEventLoopDelay, PerformanceObserver } = await import('node:perf_hooks')
  const loopDelay = monitorEventLoopDelay({ resolution: 1 })
  loopDelay.enable()
  let gcPauses: number[] = []
  let majorGcMs = 0
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcPauses.push(entry.duration)
      // perf_hooks.constants.NODE_PERFORMANCE_GC_MAJOR: a full mark-compact of the old generation.
      const { detail } = entry as { detail?: { kind?: number } }
      if (detail?.kind === 4) majorGcMs += entry.duration
    }
  }).observe({ entryTypes: ['gc'] })
  process.send?.({ ready: true, url: address })
  process.on('message', (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage()
      const mainThread = process.threadCpuUsage()
      const tail: TailDiagnostics = {
        loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
        loopDelayMaxMs: loopDelay.max / 1e6,
        gcCount: gcPauses.length,
        gcTotalMs: gcPauses.reduce((a, b) => a + b, 0),
        gcMaxMs: Math.max(0, ...gcPauses),
        majorGcMs,
        heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
      }
      loopDelay.reset()
      gcPauses = []
      majorGcMs = 0
      process.send?.({
        cpuMicros: usage.user + usage.system,
        mainThreadMicros: mainThread.user + mainThread.system,
        tail,
      })
    } else if (message === 'stop') {
      statementLog?.()
      registry.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    }
  })
}

async function main(): Promise<void> {
  const autocannon = ((await import(AUTOCANNON_MODULE)) as { default: Autocannon }).default
  const protocol = await import('@acdp/protocol')
  const { createProducerKey } = protocol
  const { signedPublishBody } = (await import(LOAD_BODIES_MODULE)) as typeof import('./load-bodies.ts')

  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-registry-'))
  if (DATABASE_URL !== '' && LOG_LEAVES > 0) throw new Error('BENCH_LOG_LEAVES bulk-loads SQLite only')
  const pgRun = DATABASE_URL === '' ? undefined : await throwawayDatabase()
  if (pgRun) process.env[RUN_DATABASE_ENV] = pgRun.url
  // The loader also returns the roots at the sampled consistency proofs' first sizes, to verify them against.
  const loaded =
    LOG_LEAVES > 0
      ? await loadLog(
          await benchConfig(dir),
          verifiedRequests().map((k) => firstOf(proofIndex(k, LOG_LEAVES))),
        )
      : undefined
  let child = await startChild(dir).catch(async (error: unknown) => {
    await pgRun?.drop()
    throw error
  })
  try {
    const url = child.url
    console.log(
      `registry child pid ${child.process.pid} at ${url} ` +
        (pgRun ? `(PostgreSQL database ${pgRun.name}, pool ${PG_POOL ?? 'default'})` : `(SQLite in ${dir})`),
    )

    // Pre-sign every publish so the bench process spends its CPU on HTTP only.
    const needed = Math.ceil(
      (PHASES.has('publish') ? 5000 * SECONDS : 0) + 5000 * 2 + (PHASES.has('fixed') ? FIXED_RATE * SECONDS * 1.2 : 0),
    )
    const producers = Array.from({ length: PRODUCERS }, () => createProducerKey())
    const signStart = performance.now()
    const bodies: string[] = []
    for (let i = 0; i < needed; i++) bodies.push(signedPublishBody(protocol, producers, i))
    console.log(
      `signed ${bodies.length} publish requests from ${PRODUCERS} did:key producers in ${Math.round(performance.now() - signStart)} ms`,
    )

    let next = 0
    const ctxIds: string[] = []
    /** One publish per call, each with the next pre-signed body; `collect` keeps the minted ctx_ids. */
    const publishRequest = (collect: boolean) => ({
      method: 'POST' as const,
      path: '/contexts',
      setupRequest: (request: Record<string, unknown>) => {
        const index = next++
        if (index >= bodies.length) throw new Error('bench ran out of pre-signed publish requests; raise the estimate')
        return {
          ...request,
          headers: {
            'content-type': 'application/acdp+json',
            'idempotency-key': `bench-${index}`,
          },
          body: bodies[index],
        }
      },
      // Reading response bodies costs the load generator CPU, so only the warm-up does it.
      ...(collect
        ? {
            onResponse: (status: number, body: string) => {
              if (status !== 201 || ctxIds.length >= MAX_READ_PATHS) return
              const match = /"ctx_id":"([^"]+)"/.exec(body)
              if (match) ctxIds.push(match[1] as string)
            },
          }
        : {}),
    })

    const run = async (
      name: string,
      route: { route: string; method: string },
      load: Record<string, unknown> | (() => Promise<LoadResult>),
    ): Promise<PhaseResult> => {
      const pgBefore = pgRun ? await pgRun.counters() : undefined
      const histogramBefore = await readServerHistogram(url, route)
      const walBefore = await readWalTruncates(url)
      const usageBefore = await readChildUsage(child.process)
      const clientBefore = process.cpuUsage()
      const vcpuBefore = readCpuTimes()
      const result = typeof load === 'function' ? await load() : await autocannon({ url, ...load })
      const client = process.cpuUsage(clientBefore)
      const vcpu = cpuSharesBetween(vcpuBefore, readCpuTimes())
      const usageAfter = await readChildUsage(child.process)
      const cpuMicros = usageAfter.cpuMicros - usageBefore.cpuMicros
      const mainThreadMicros = usageAfter.mainThreadMicros - usageBefore.mainThreadMicros
      const server = diffHistogram(await readServerHistogram(url, route), histogramBefore)
      const walAfter = await readWalTruncates(url)
      const phase: PhaseResult = {
        name,
        tail: usageAfter.tail,
        walTruncates: walAfter.count - walBefore.count,
        walTruncateMs: (walAfter.seconds - walBefore.seconds) * 1000,
        walRestarts: walAfter.restarts - walBefore.restarts,
        walRestartMs: (walAfter.restartSeconds - walBefore.restartSeconds) * 1000,
        requestsPerSecond: result.requests.average,
        serverCpuMicrosPerRequest: result.requests.total > 0 ? cpuMicros / result.requests.total : 0,
        serverMainThreadMicrosPerRequest: result.requests.total > 0 ? mainThreadMicros / result.requests.total : 0,
        clientCpuMicrosPerRequest:
          result.requests.total > 0 ? (client.user + client.system) / result.requests.total : 0,
        vcpu,
        serverP50Ms: histogramQuantileMs(server, 0.5),
        serverP99Ms: histogramQuantileMs(server, 0.99),
        p50Ms: result.latency.p50,
        p90Ms: result.latency.p90,
        p99Ms: result.latency.p99,
        maxMs: result.latency.max,
        total: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      }
      console.log(
        `${name.padEnd(36)} ${Math.round(phase.requestsPerSecond).toLocaleString('en-US').padStart(8)} req/s  ` +
          `p50 ${phase.p50Ms} ms  p90 ${phase.p90Ms} ms  p99 ${phase.p99Ms} ms  max ${phase.maxMs} ms  ` +
          `total ${phase.total}  non-2xx ${phase.non2xx}  errors ${phase.errors}  timeouts ${phase.timeouts}  ` +
          `registry side p50 ≤ ${phase.serverP50Ms} ms p99 ≤ ${phase.serverP99Ms} ms  ` +
          `registry CPU ${Math.round(phase.serverCpuMicrosPerRequest)} µs/req ` +
          `(≈ ${Math.round(1e6 / Math.max(1, phase.serverCpuMicrosPerRequest)).toLocaleString('en-US')} req/s per core), ` +
          `main thread ${Math.round(phase.serverMainThreadMicrosPerRequest)} µs/req ` +
          `(≤ ${Math.round(1e6 / Math.max(1, phase.serverMainThreadMicrosPerRequest)).toLocaleString('en-US')} req/s per instance); ` +
          `load generator CPU ${Math.round(phase.clientCpuMicrosPerRequest)} µs/req\n` +
          `${''.padEnd(36)} tail: event loop delay p99 ${phase.tail.loopDelayP99Ms.toFixed(1)} ms max ${phase.tail.loopDelayMaxMs.toFixed(1)} ms; ` +
          `GC ${phase.tail.gcCount} pauses, ${phase.tail.gcTotalMs.toFixed(0)} ms (mark-compact ${phase.tail.majorGcMs.toFixed(0)} ms), ` +
          `max ${phase.tail.gcMaxMs.toFixed(1)} ms, heap ${phase.tail.heapUsedMiB.toFixed(0)} MiB; ` +
          `WAL TRUNCATE ${phase.walTruncates}× (${phase.walTruncateMs.toFixed(0)} ms holding writers), ` +
          `RESTART ${phase.walRestarts}× (${phase.walRestartMs.toFixed(0)} ms in them); ${formatCpuShares(phase.vcpu)}`,
      )
      if (pgRun && pgBefore) {
        const after = await pgRun.counters(true)
        console.log(
          `${''.padEnd(36)} PostgreSQL per request: ${formatPgCounters(pgBefore, after, result.requests.total)}`,
        )
      }
      return phase
    }

    const POST_CONTEXTS = { route: '/contexts', method: 'POST' }
    await run('warm-up (publish, not reported)', POST_CONTEXTS, {
      connections: 8,
      duration: 2,
      requests: [publishRequest(true)],
    })
    const phases: PhaseResult[] = []
    const publish = PHASES.has('publish')
      ? await run('publish, closed loop', POST_CONTEXTS, {
          connections: PUBLISH_CONNECTIONS,
          duration: SECONDS,
          requests: [publishRequest(false)],
        })
      : undefined
    if (publish) phases.push(publish)

    if (ctxIds.length === 0 && PHASES.has('retrieve')) {
      throw new Error('no context was published; cannot run the retrieval phase')
    }
    // Static requests are built once per connection by autocannon, so reading costs the client almost nothing.
    const retrieve = PHASES.has('retrieve')
      ? await run(
          'retrieve GET /contexts/{ctx_id}',
          { route: '/contexts/*', method: 'GET' },
          {
            connections: READ_CONNECTIONS,
            duration: SECONDS,
            requests: ctxIds.map((id) => ({ method: 'GET', path: `/contexts/${encodeURIComponent(id)}` })),
          },
        )
      : undefined
    if (retrieve) phases.push(retrieve)

    const fixed = PHASES.has('fixed')
      ? await run(`publish at fixed ${FIXED_RATE}/s (open loop)`, POST_CONTEXTS, () =>
          runOpenLoop(url, FIXED_RATE, SECONDS, () => {
            const index = next++
            const body = bodies[index]
            if (body === undefined) throw new Error('bench ran out of pre-signed publish requests')
            return { body, idempotencyKey: `bench-${index}` }
          }),
        )
      : undefined
    if (fixed) phases.push(fixed)

    if (PHASES.has('proofs')) {
      const size = ((await (await fetch(`${url}/log/checkpoint`)).json()) as { tree_size: number }).tree_size
      // Over the loaded leaves (all of the tree but the warm-up's publishes) or the whole tree.
      const space = LOG_LEAVES > 0 ? LOG_LEAVES : size
      /**
       * Request k of a phase asks for leaf proofIndex(k): every request a fresh index, so the connections do
       * not walk one shared list in step (autocannon cycles a `requests` list per connection from its start).
       */
      const proofPhase = async (kind: 'inclusion' | 'consistency') => {
        let k = 0
        const result = await run(
          `${kind} proof at ${size.toLocaleString('en-US')} leaves`,
          { route: '/log/proof', method: 'GET' },
          {
            connections: PROOF_CONNECTIONS,
            duration: SECONDS,
            requests: [
              {
                method: 'GET',
                setupRequest: (request: Record<string, unknown>) => {
                  const i = proofIndex(k++, space)
                  const query = kind === 'inclusion' ? `leaf_index=${i}` : `first=${firstOf(i)}&second=${size}`
                  return { ...request, path: `/log/proof?${query}` }
                },
              },
            ],
          },
        )
        phases.push(result)
        return k
      }
      const issued = Math.max(await proofPhase('inclusion'), await proofPhase('consistency'))
      if (loaded) await verifyProofSamples(url, dir, size, issued, loaded.rootsAt)
      else console.log('proof answers not verified (the bench knows the leaves and roots only with BENCH_LOG_LEAVES)')
    }

    const machine = describeMachine()
    console.log(formatMachine(machine))
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED')
    if (publish)
      console.log(`target ≥ 1,500 publishes/s: ${verdict(publish.requestsPerSecond >= 1500 && publish.non2xx === 0)}`)
    if (retrieve) {
      console.log(
        `target ≥ 8,000 retrievals/s: ${verdict(retrieve.requestsPerSecond >= 8000 && retrieve.non2xx === 0)}`,
      )
    }
    const trustOn = TRUST || LOG_LEAVES > 0
    const p99Target = trustOn ? 20 : 50
    if (fixed) {
      console.log(
        `target p99 ≤ ${p99Target} ms at ${FIXED_RATE}/s: ${verdict(fixed.p99Ms <= p99Target && fixed.non2xx === 0)}`,
      )
    }
    if (publish && trustOn) {
      console.log(
        `target ≥ 2,500 publishes/s with receipts + log: ${verdict(publish.requestsPerSecond >= 2500 && publish.non2xx === 0)}`,
      )
    }
    for (const proof of phases.filter((p) => p.name.includes('proof'))) {
      console.log(
        `target ≥ 5,000 proofs/s (${proof.name}): ${verdict(proof.requestsPerSecond >= 5000 && proof.non2xx === 0)}`,
      )
    }
    if (LOG_LEAVES > 0) {
      // The second start of the same log: its self-check anchors on the checkpoint the first start signed.
      await stopChild(child.process)
      child = await startChild(dir, true)
    }
    const out = process.env['BENCH_OUT']
    if (out) writeFileSync(out, `${JSON.stringify({ machine, seconds: SECONDS, phases }, null, 2)}\n`)
  } finally {
    await stopChild(child.process)
    rmSync(dir, { recursive: true, force: true })
    await pgRun?.drop()
  }
}

/**
 * BENCH_PG_STATEMENTS=1 (child, PostgreSQL): counts every statement the registry sends and the time from send
 * to answer (the round trip, the server's work and any lock wait), per statement text; returns the printer,
 * called at stop. Wraps the driver's Client#query, so it costs the registry a little CPU: diagnosis only.
 */
async function countPgStatements(): Promise<() => void> {
  const { default: pg } = await import('pg')
  const seen = new Map<string, { count: number; ms: number }>()
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string }
    const text = (typeof first === 'string' ? first : (first.text ?? '?')).replace(/\s+/g, ' ').slice(0, 90)
    const start = performance.now()
    const done = () => {
      const entry = seen.get(text) ?? { count: 0, ms: 0 }
      entry.count += 1
      entry.ms += performance.now() - start
      seen.set(text, entry)
    }
    const result = original.apply(this, args)
    if (result instanceof Promise) result.then(done, done)
    return result
  } as typeof pg.Client.prototype.query
  return () => {
    console.log('statements sent by the registry (count, total ms from send to answer, mean ms):')
    for (const [text, { count, ms }] of [...seen].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(
        `  ${String(count).padStart(8)} ${ms.toFixed(0).padStart(9)} ms ${(ms / count).toFixed(2).padStart(7)} ms  ${text}`,
      )
    }
  }
}

/** PostgreSQL's cumulative counters for the run's database (pg_stat_* views), read between phases. */
interface PgCounters {
  commits: number
  rollbacks: number
  /** Rows inserted and updated, per table. */
  tables: Map<string, { inserted: number; updated: number }>
  walRecords: number
  walBytes: number
  walSyncs: number
  /** CPU time (user + system, µs) of the run database's backends that are alive now, by pid (/proc/<pid>/stat). */
  backendCpuMicros: Map<number, number>
}

/** A process's CPU time (user + system, µs) from /proc/<pid>/stat, or undefined once it has exited. */
function processCpuMicros(pid: number): number | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // Fields after the parenthesised command name (which may hold spaces): state is field 3, utime 14, stime 15,
  // in clock ticks of USER_HZ (100 per second on every Linux this runs on).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 1e4
}

/**
 * A fresh database on BENCH_DATABASE_URL's server for one run (dropped by `drop()`), so every run migrates an
 * empty database as a first start does. `counters(settle)` reads the statistics views; `settle` first waits for
 * the backends' pending statistics (PostgreSQL flushes them at most once a second per idle backend).
 */
async function throwawayDatabase(): Promise<{
  name: string
  url: string
  counters(settle?: boolean): Promise<PgCounters>
  drop(): Promise<void>
}> {
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: DATABASE_URL })
  await admin.connect()
  const name = `acdp_bench_registry_${randomBytes(5).toString('hex')}`
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(DATABASE_URL)
  url.pathname = `/${name}`
  const stats = new pg.Client({ connectionString: url.href })
  await stats.connect()
  return {
    name,
    url: url.href,
    async counters(settle = false) {
      if (settle) await new Promise((resolve) => setTimeout(resolve, 1500))
      await stats.query('select pg_stat_clear_snapshot()')
      const db = await stats.query<{ xact_commit: string; xact_rollback: string }>(
        'select xact_commit, xact_rollback from pg_stat_database where datname = current_database()',
      )
      const tables = await stats.query<{ relname: string; n_tup_ins: string; n_tup_upd: string }>(
        'select relname, n_tup_ins, n_tup_upd from pg_stat_user_tables',
      )
      const wal = await stats.query<{ wal_records: string; wal_bytes: string; wal_sync: string }>(
        'select wal_records, wal_bytes, wal_sync from pg_stat_wal',
      )
      // The registry's connections (the server is on this machine: the bench is loopback only).
      const backends = await stats.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      )
      const backendCpuMicros = new Map<number, number>()
      for (const { pid } of backends.rows) {
        const micros = processCpuMicros(pid)
        if (micros !== undefined) backendCpuMicros.set(pid, micros)
      }
      return {
        commits: Number(db.rows[0]?.xact_commit ?? 0),
        rollbacks: Number(db.rows[0]?.xact_rollback ?? 0),
        tables: new Map(
          tables.rows.map((r) => [r.relname, { inserted: Number(r.n_tup_ins), updated: Number(r.n_tup_upd) }]),
        ),
        walRecords: Number(wal.rows[0]?.wal_records ?? 0),
        walBytes: Number(wal.rows[0]?.wal_bytes ?? 0),
        walSyncs: Number(wal.rows[0]?.wal_sync ?? 0),
        backendCpuMicros,
      }
    },
    async drop() {
      await stats.end()
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}

/**
 * The counters' deltas per request. pg_stat_wal is server-wide (other databases' writes count too), the rest is
 * this run's database only; the statistics reader's own queries add a handful of commits per phase.
 */
function formatPgCounters(before: PgCounters, after: PgCounters, requests: number): string {
  const per = (a: number, b: number) => (requests > 0 ? ((a - b) / requests).toFixed(2) : '0')
  const rows = [...after.tables]
    .map(([table, t]) => {
      const b = before.tables.get(table) ?? { inserted: 0, updated: 0 }
      return { table, inserted: t.inserted - b.inserted, updated: t.updated - b.updated }
    })
    .filter((t) => t.inserted + t.updated > 0)
    .map((t) => `${t.table} +${per(t.inserted, 0)}/~${per(t.updated, 0)}`)
  // A backend started during the phase counts whole; one that exited during it is lost (the pool keeps them).
  let backendMicros = 0
  for (const [pid, micros] of after.backendCpuMicros) backendMicros += micros - (before.backendCpuMicros.get(pid) ?? 0)
  return (
    `backends' CPU ${requests > 0 ? Math.round(backendMicros / requests) : 0} µs, ` +
    `commits ${per(after.commits, before.commits)}, rollbacks ${per(after.rollbacks, before.rollbacks)}; ` +
    `rows inserted/updated: ${rows.join(', ')}; ` +
    `server-wide WAL ${per(after.walRecords, before.walRecords)} records, ` +
    `${per(after.walBytes, before.walBytes)} bytes, ${per(after.walSyncs, before.walSyncs)} fsyncs`
  )
}

/**
 * Open-loop load: publish number i is due at start + i / rate, sent as soon as the generator's timer sees it
 * due (never held back by earlier answers), and its latency is measured from that due time to the end of the
 * response. Up to FIXED_RATE_CONNECTIONS keep-alive connections; a request finding them all busy waits in the
 * pool's queue, and that wait counts.
 */
async function runOpenLoop(
  url: string,
  rate: number,
  seconds: number,
  nextPublish: () => { body: string; idempotencyKey: string },
): Promise<LoadResult> {
  const { Pool } = await import('undici')
  const pool = new Pool(url, { connections: FIXED_RATE_CONNECTIONS, pipelining: 1 })
  const total = Math.round(rate * seconds)
  const intervalMs = 1000 / rate
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  const inFlight: Promise<void>[] = []
  const send = (dueAt: number) => {
    const { body, idempotencyKey } = nextPublish()
    return pool
      .request({
        method: 'POST',
        path: '/contexts',
        headers: { 'content-type': 'application/acdp+json', 'idempotency-key': idempotencyKey },
        body,
      })
      .then(async (response) => {
        await response.body.dump()
        latencies.push(performance.now() - dueAt)
        if (response.statusCode < 200 || response.statusCode >= 300) non2xx++
      })
      .catch(() => {
        errors++
      })
  }
  const start = performance.now() + 20
  let sent = 0
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now()
      while (sent < total && start + sent * intervalMs <= now) {
        inFlight.push(send(start + sent * intervalMs))
        sent++
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - performance.now()))
      else done()
    }
    setTimeout(tick, 20)
  })
  await Promise.all(inFlight)
  const elapsedSeconds = (performance.now() - start) / 1000
  await pool.close()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => round2(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0)
  return {
    requests: { average: latencies.length / elapsedSeconds, total: latencies.length },
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
    non2xx,
    errors,
    timeouts: 0,
  }
}

/**
 * The leaf index of a proof phase's request k: deterministic, consecutive requests far apart (a multiplicative
 * hash; distinct for every k below 2^32), spread evenly over `[0, space)`.
 */
function proofIndex(k: number, space: number): number {
  return Math.floor((((k * 2654435761) >>> 0) / 2 ** 32) * space)
}

/** The requests k of a proof phase that are verified: every VERIFIED_EVERY-th, up to VERIFIED_MAX of them. */
function verifiedRequests(issued = VERIFIED_EVERY * VERIFIED_MAX): number[] {
  const count = Math.min(VERIFIED_MAX, Math.ceil(issued / VERIFIED_EVERY))
  return Array.from({ length: count }, (_, j) => j * VERIFIED_EVERY)
}

/** A consistency proof's first size for leaf index i (0 < first). */
function firstOf(i: number): number {
  return Math.max(1, i)
}

/**
 * Verifies a sample of the proof phases' answers with @acdp/protocol, so a fast but wrong answer fails the
 * bench: each checkpoint's signature against the bench's own receipt key; inclusion paths from the leaf hash of
 * the bulk loader's leaf text to that checkpoint's root; consistency paths from the root the loader computed at
 * `first` to it.
 */
async function verifyProofSamples(
  url: string,
  dir: string,
  size: number,
  issued: number,
  loaderRoots: ReadonlyMap<number, Uint8Array>,
): Promise<void> {
  const protocol = await import('@acdp/protocol')
  const { syntheticLeafJson } = (await import(LOADER_MODULE)) as typeof import('./log-bulk-load.ts')
  const publicKey = protocol.ed25519PublicKeyFromSeed(new Uint8Array(Buffer.from(receiptSeed(dir), 'base64')))
  const signedRoot = (checkpoint: import('@acdp/protocol').LogCheckpoint, treeSize: number) => {
    protocol.verifyReceiptSignature(protocol.computeCheckpointHash(checkpoint), checkpoint.signature, {
      algorithm: 'ed25519',
      publicKey,
    })
    if (checkpoint.tree_size !== treeSize)
      throw new Error(`checkpoint of size ${checkpoint.tree_size}, not ${treeSize}`)
    return protocol.parseSha256(checkpoint.root_hash)
  }
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`)
    if (!response.ok) throw new Error(`GET ${path}: ${response.status}`)
    return (await response.json()) as T
  }
  let verified = 0
  for (const k of verifiedRequests(issued)) {
    const i = proofIndex(k, LOG_LEAVES)
    const inclusion = await get<{
      tree_size: number
      inclusion_path: string[]
      log_checkpoint: import('@acdp/protocol').LogCheckpoint
    }>(`/log/proof?leaf_index=${i}`)
    protocol.verifyInclusionProof({
      leafHash: protocol.computeLeafHash(new TextEncoder().encode(syntheticLeafJson(i, LOG_LEAVES, AUTHORITY))),
      leafIndex: i,
      treeSize: inclusion.tree_size,
      inclusionPath: inclusion.inclusion_path.map(protocol.parseSha256),
      rootHash: signedRoot(inclusion.log_checkpoint, inclusion.tree_size),
    })
    const first = firstOf(i)
    const firstRoot = loaderRoots.get(first)
    if (firstRoot === undefined) throw new Error(`the loader computed no root at ${first}`)
    const consistency = await get<{
      consistency_path: string[]
      log_checkpoint: import('@acdp/protocol').LogCheckpoint
    }>(`/log/proof?first=${first}&second=${size}`)
    protocol.verifyConsistencyProof({
      firstTreeSize: first,
      secondTreeSize: size,
      firstRootHash: firstRoot,
      secondRootHash: signedRoot(consistency.log_checkpoint, size),
      consistencyPath: consistency.consistency_path.map(protocol.parseSha256),
    })
    verified += 2
  }
  console.log(
    `verified ${verified} proof answers (requests 0, ${VERIFIED_EVERY}, ${2 * VERIFIED_EVERY}, … of each proof phase, ` +
      `fetched again; ${issued.toLocaleString('en-US')} requests in the larger phase): ` +
      "checkpoint signatures, inclusion from the loader's leaf texts, consistency from the loader's roots",
  )
}

function round2(x: number): number {
  return Math.round(x * 100) / 100
}

/** The receipt key of the registry in `dir`, kept there so a restarted child signs with the same key. */
function receiptSeed(dir: string): string {
  const path = join(dir, 'receipt-seed')
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('base64'))
  return readFileSync(path, 'utf8')
}

async function startChild(dir: string, restart = false): Promise<{ process: ChildProcess; url: string }> {
  // BENCH_CHILD_NODE_FLAGS (space-separated) go to the registry child only, e.g. to A/B V8 heap flags without
  // changing the load generator
  const execArgv = [...process.execArgv, ...(process.env['BENCH_CHILD_NODE_FLAGS'] ?? '').split(' ').filter(Boolean)]
  if (process.env['BENCH_CPU_PROF'] === '1') {
    const profiles = join(tmpdir(), 'acdp-bench-profiles')
    mkdirSync(profiles, { recursive: true })
    console.log(`registry child CPU profile goes to ${profiles}`)
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${profiles}`)
  }
  const arenas = process.env['BENCH_CHILD_MALLOC_ARENA_MAX']
  const child = fork(fileURLToPath(import.meta.url), ['--serve', dir, ...(restart ? ['--restart'] : [])], {
    execArgv,
    stdio: 'inherit',
    env: arenas === undefined ? process.env : { ...process.env, MALLOC_ARENA_MAX: arenas },
  })
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once('message', (message: { url?: string }) =>
      message.url ? resolveUrl(message.url) : reject(new Error('bad ready message')),
    )
    child.once('exit', (code) => reject(new Error(`registry child exited early with code ${code}`)))
  })
  return { process: child, url }
}

/** Cumulative bucket counts (`le` in seconds → count) of one route's request-duration histogram. */
type Histogram = Map<number, number>

async function readServerHistogram(url: string, target: { route: string; method: string }): Promise<Histogram> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const histogram: Histogram = new Map()
  const line =
    /^acdp_registry_request_duration_seconds_bucket\{le="([^"]+)",route="([^"]*)",method="([^"]*)"\} (\d+)$/gm
  for (const m of text.matchAll(line)) {
    if (m[2] !== target.route || m[3] !== target.method) continue
    histogram.set(m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]), Number(m[4]))
  }
  return histogram
}

/**
 * The WAL checkpoint worker's TRUNCATE and RESTART counts (every outcome) and total time in each (they hold
 * writers), from /metrics.
 */
async function readWalTruncates(
  url: string,
): Promise<{ count: number; seconds: number; restarts: number; restartSeconds: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  let count = 0
  let restarts = 0
  for (const m of text.matchAll(/^acdp_registry_sqlite_wal_checkpoints_total\{([^}]*)\} (\d+)$/gm)) {
    if ((m[1] as string).includes('mode="truncate"')) count += Number(m[2])
    if ((m[1] as string).includes('mode="restart"')) restarts += Number(m[2])
  }
  const seconds = /^acdp_registry_sqlite_wal_truncate_seconds_total (\S+)$/m.exec(text)
  const restartSeconds = /^acdp_registry_sqlite_wal_restart_seconds_total (\S+)$/m.exec(text)
  return {
    count,
    seconds: seconds ? Number(seconds[1]) : 0,
    restarts,
    restartSeconds: restartSeconds ? Number(restartSeconds[1]) : 0,
  }
}

function diffHistogram(after: Histogram, before: Histogram): Histogram {
  const out: Histogram = new Map()
  for (const [le, count] of after) out.set(le, count - (before.get(le) ?? 0))
  return out
}

/** Upper bound (ms) of the bucket holding quantile `q`, or undefined when the histogram is empty. */
function histogramQuantileMs(histogram: Histogram, q: number): number | undefined {
  const entries = [...histogram].sort((a, b) => a[0] - b[0])
  const total = entries.at(-1)?.[1] ?? 0
  if (total === 0) return undefined
  const bucket = entries.find(([, cumulative]) => cumulative >= q * total)
  return bucket === undefined ? undefined : bucket[0] * 1000
}

/** The child's cumulative CPU time, all threads and main thread only (user + system), in microseconds. */
function readChildUsage(
  child: ChildProcess,
): Promise<{ cpuMicros: number; mainThreadMicros: number; tail: TailDiagnostics }> {
  return new Promise((resolveUsage) => {
    const onMessage = (message: { cpuMicros?: number; mainThreadMicros?: number; tail?: TailDiagnostics }) => {
      if (typeof message?.cpuMicros !== 'number' || typeof message.mainThreadMicros !== 'number') return
      if (message.tail === undefined) return
      child.off('message', onMessage)
      resolveUsage({ cpuMicros: message.cpuMicros, mainThreadMicros: message.mainThreadMicros, tail: message.tail })
    }
    child.on('message', onMessage)
    child.send('cpu')
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()))
  child.send('stop')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}
