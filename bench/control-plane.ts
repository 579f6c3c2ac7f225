/**
 * Control plane load benchmark (`npm run bench:control-plane`; figures in docs/performance/control-plane.md; how it works: docs/performance/journal.md "Control plane").
 *
 * The control plane runs in a CHILD process on a loopback port (production config: HMAC secret, API key, sealed
 * secrets), driven from this process:
 *
 *   1. signed ingest throughput: POST /ingest/acdp with pre-signed registry-style bodies, every one with its own
 *      event_id (no dedup hits), closed loop with autocannon; on SQLite and, when reachable, PostgreSQL (a
 *      throwaway database created and dropped by the bench);
 *   2. ingest latency at a fixed rate (autocannon overallRate), same databases;
 *   3. ingest at BENCH_HIGH_CONNECTIONS (64) connections: on the empty databases of phase 1, and on SQLite with
 *      BENCH_LARGE_EVENTS (1,000,000) events bulk-loaded first (the `large` phase: one set-based INSERT … SELECT
 *      per table, projections and rollups included, so the store sees a table of that size);
 *   4. dashboard (`dashboard` phase; `npm run bench:dashboard` runs it alone at 500,000 events): GET
 *      /dashboard/overview at 16 connections over BENCH_DASHBOARD_EVENTS (315,000) bulk-loaded events spread over
 *      the last 23 hours, on SQLite and PostgreSQL, first with the overview cache off (DASHBOARD_CACHE_MS=0: every
 *      request runs the queries), then with the default cache; the receipt audit and log reconciliation are off;
 *   5. `otel`: the SQLite ingest phases with OpenTelemetry export on, to a loopback OTLP receiver in this process
 *      that counts the spans it receives;
 *   5b. `postgres2`: two control-plane children on ONE throwaway PostgreSQL database, the ingest connections split
 *      evenly across them (closed loop at BENCH_CONNECTIONS and BENCH_HIGH_CONNECTIONS);
 *   5c. `events`: GET /events?limit=100 at 16 connections over BENCH_EVENTS_PRELOAD (100,000) bulk-loaded events,
 *      on SQLite and PostgreSQL;
 *   6. SSE fan-out (SQLite): BENCH_SSE_CLIENTS raw HTTP stream connections held by BENCH_SSE_CLIENT_PROCS client
 *      processes, while this process ingests BENCH_SSE_RATE events/s for BENCH_SSE_SECONDS; each event carries its
 *      send time (created_at → the stream event's `ts`), and the clients histogram receive time − send time.
 *
 * Targets: ingest ≥ 3,000/s on SQLite (also at 64 connections over 1,000,000 stored events) and ≥ 1,500/s on
 * PostgreSQL; dashboard with its cache off ≥ 500 req/s on PostgreSQL at 500,000 events; SSE p99 delivery ≤ 200 ms.
 * Environment: BENCH_SECONDS (per ingest phase, default 10), BENCH_CONNECTIONS (32), BENCH_FIXED_RATE (1000),
 * BENCH_PG_ADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres; 'off' skips PostgreSQL), BENCH_SSE_CLIENTS
 * (2000), BENCH_SSE_CLIENT_PROCS (2), BENCH_SSE_RATE (100), BENCH_SSE_SECONDS (10), BENCH_SSE_PIN (on; off = no
 * taskset pinning), BENCH_HIGH_CONNECTIONS (64),
 * BENCH_LARGE_EVENTS (1000000), BENCH_DASHBOARD_EVENTS (315000), BENCH_DASHBOARD_WINDOW (24h),
 * BENCH_DASHBOARD_KINDS (sqlite,postgres), BENCH_DASHBOARD_PG_URL (measure the dashboard on this already-loaded
 * database instead of a throwaway one; load it once with `node bench/control-plane.ts --serve postgres <url> <count>`
 * and BENCH_LOAD_ONLY=1, which migrates, bulk-loads and exits — kept for EXPLAIN), BENCH_EVENTS_PRELOAD (100000),
 * BENCH_ONLY (comma list of sqlite, postgres, postgres2, events, otel, large, dashboard, sse; postgres2 and events
 * only when named), BENCH_CPU_PROF=1|server|client (child processes write .cpuprofile files into $TMPDIR/acdp-bench-profiles),
 * BENCH_OUT=<file> (results as JSON). Loopback only; every phase is bounded in time.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, Agent, request as httpRequest } from 'node:http'
import { connect as netConnect, type Socket } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32)
const FIXED_RATE = Number(process.env['BENCH_FIXED_RATE'] ?? 1000)
const PG_ADMIN_URL = process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const SSE_CLIENTS = Number(process.env['BENCH_SSE_CLIENTS'] ?? 2000)
const SSE_CLIENT_PROCS = Number(process.env['BENCH_SSE_CLIENT_PROCS'] ?? 2)
const SSE_RATE = Number(process.env['BENCH_SSE_RATE'] ?? 100)
const SSE_SECONDS = Number(process.env['BENCH_SSE_SECONDS'] ?? 10)
/** Pin the SSE phase's server to CPU 0 and this process and the clients to CPU 1 (taskset); 'off' leaves it. */
const SSE_PIN = process.env['BENCH_SSE_PIN'] !== 'off' && cpus().length >= 2
const HIGH_CONNECTIONS = Number(process.env['BENCH_HIGH_CONNECTIONS'] ?? 64)
const LARGE_EVENTS = Number(process.env['BENCH_LARGE_EVENTS'] ?? 1_000_000)
const DASHBOARD_EVENTS = Number(process.env['BENCH_DASHBOARD_EVENTS'] ?? 315_000)
const DASHBOARD_WINDOW = process.env['BENCH_DASHBOARD_WINDOW'] ?? '24h'
const EVENTS_PRELOAD = Number(process.env['BENCH_EVENTS_PRELOAD'] ?? 100_000)
const DASHBOARD_PG_URL = process.env['BENCH_DASHBOARD_PG_URL']
const DASHBOARD_KINDS = (process.env['BENCH_DASHBOARD_KINDS'] ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is 'sqlite' | 'postgres' => s === 'sqlite' || s === 'postgres')
const ONLY = new Set(
  (process.env['BENCH_ONLY'] ?? 'sqlite,postgres,otel,large,dashboard,sse,auth').split(',').map((s) => s.trim()),
)
/** The token-auth and federation phases live in their own file (bench/control-plane-auth.ts). */
const AUTH_BENCH_MODULE: string = './control-plane-auth.ts'

/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const LOAD_BODIES_MODULE: string = './load-bodies.ts'
const { publishedEventBody } = (await import(LOAD_BODIES_MODULE)) as typeof import('./load-bodies.ts')
const BULK_EVENTS_MODULE: string = './bulk-events.ts'
const { bulkLoadEvents } = (await import(BULK_EVENTS_MODULE)) as typeof import('./bulk-events.ts')

const AUTHORITY = 'bench.registry.test'
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789abcdef'
const API_KEY = 'bench-api-key-0123456789abcdef'
const ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64')
/** Keep-alive connections the SSE-phase sender opens before the timed run. */
const SENDER_CONNECTIONS = 32
/** Histogram resolution of SSE delivery latency: 1 ms buckets up to this many ms (the last bucket is overflow). */
const LATENCY_BUCKETS = 10_000

interface PhaseResult {
  name: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  total: number
  non2xx: number
  errors: number
  /** CPU time (user + system) the control plane child spent per request in this phase, in µs. */
  cpuMicrosPerRequest: number
}

interface SseResult {
  name: string
  clients: number
  eventsSent: number
  framesExpected: number
  framesReceived: number
  disconnects: number
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  /** CPU time (user + system) the control plane child spent per frame delivered, in µs (ingest included). */
  serverCpuMicrosPerFrame: number
  /** The same for the client processes together (reading and parsing the streams), from /proc/<pid>/stat. */
  clientCpuMicrosPerFrame: number
  /** The sender's (this process) CPU per frame: signing and sending the ingest requests. */
  senderCpuMicrosPerFrame: number
  /** Server CPU share of one core over the timed window (1 = one core busy). */
  serverCores: number
  clientCores: number
  /** Whether the server and the load generator were pinned to different CPUs. */
  pinned: boolean
  /** What each CPU of the machine did during the timed window (all processes: /proc/stat). */
  machineCpus: string
  /** p99 of the ingest requests' response time during the fan-out (part of the delivery latency). */
  ingestP99Ms: number
  /** Upper bound of the server's own http_request_duration_seconds bucket holding its ingest p99, in ms. */
  serverIngestP99Ms: number | undefined
}

/** The slice of autocannon's result this bench reads (autocannon ships no type declarations). */
interface AutocannonResult {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number; max: number }
  non2xx: number
  errors: number
  timeouts: number
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>
/** A variable specifier keeps TypeScript from looking for declarations autocannon does not ship. */
const AUTOCANNON_MODULE: string = 'autocannon'

// ---------------------------------------------------------------------------------------------------------------
// Child: the control plane

async function serve(kind: 'sqlite' | 'postgres', target: string, preload: number): Promise<void> {
  const { loadConfig, startControlPlane } = await import('@acdp/control-plane')
  const extraEnv = JSON.parse(process.env['BENCH_CHILD_ENV'] ?? '{}') as Record<string, string>
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    WEBHOOK_SECRET,
    AUTH_API_KEYS: API_KEY,
    SECRETS_ENCRYPTION_KEY: ENCRYPTION_KEY,
    DATA_DIR: kind === 'sqlite' ? target : tmpdir(),
    ...(kind === 'postgres'
      ? { DATABASE_URL: target, DB_POOL_MAX: '16' }
      : { SQLITE_PATH: join(target, 'control-plane.db') }),
    ...extraEnv,
  }
  const running = await startControlPlane(loadConfig(env))
  if (process.env['BENCH_LOAD_ONLY'] === '1') {
    // `--serve … --load-only`: migrate and bulk-load a database kept for EXPLAIN and repeated runs, then exit.
    await bulkLoadEvents(running.deps.database, preload, Date.now(), publishedBody(new Date().toISOString()))
    await running.close()
    return
  }
  let preloadMs = 0
  if (preload > 0) {
    const started = performance.now()
    const nowMs = Date.now()
    await bulkLoadEvents(running.deps.database, preload, nowMs, publishedBody(new Date(nowMs).toISOString()))
    preloadMs = Math.round(performance.now() - started)
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  process.send?.({ ready: true, url: running.url, preloadMs })
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage()
      process.send?.({ cpuMicros: user + system })
      return
    }
    if (message === 'stop') {
      loopDelay.disable()
      console.log(
        `  (server event-loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(0)} ms, ` +
          `p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms)`,
      )
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    }
  })
}

/**
 * Forks the control plane child on `target`. `preload` events are bulk-loaded before it reports ready; `env`
 * adds to (or overrides) its production environment.
 */
async function startChild(
  kind: 'sqlite' | 'postgres',
  target: string,
  options: { preload?: number; env?: Record<string, string> } = {},
): Promise<{ process: ChildProcess; url: string; preloadMs: number }> {
  const execArgv = [...process.execArgv, ...profileArgv('server')]
  const child = fork(fileURLToPath(import.meta.url), ['--serve', kind, target, String(options.preload ?? 0)], {
    execArgv,
    stdio: 'inherit',
    env: { ...process.env, BENCH_CHILD_ENV: JSON.stringify(options.env ?? {}) },
  })
  const ready = await new Promise<{ url: string; preloadMs: number }>((resolve, reject) => {
    child.once('message', (m: { url?: string; preloadMs?: number }) =>
      m.url ? resolve({ url: m.url, preloadMs: m.preloadMs ?? 0 }) : reject(new Error('child did not start')),
    )
    child.once('exit', (code) => reject(new Error(`control plane child exited with ${code}`)))
  })
  return { process: child, ...ready }
}

/** CPU time (user + system, µs) the child has used so far. */
function childCpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { cpuMicros?: number }) => {
      if (typeof m.cpuMicros !== 'number') return
      child.off('message', onMessage)
      resolve(m.cpuMicros)
    }
    child.on('message', onMessage)
    child.send('cpu')
  })
}

/**
 * CPU time (user + system, µs) process `pid` has used so far, from /proc/<pid>/stat (utime and stime, fields 14
 * and 15, in clock ticks of 1/100 s on Linux): read from outside, so it costs the measured process nothing.
 */
function procCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name (field 2) is parenthesised and may contain spaces: count fields after its closing paren.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** Per-CPU jiffies from /proc/stat: user+nice, system, softirq+irq, idle+iowait, steal. */
function cpuTimes(): Array<{ user: number; system: number; irq: number; idle: number; steal: number }> {
  const rows: Array<{ user: number; system: number; irq: number; idle: number; steal: number }> = []
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    if (!/^cpu[0-9]+ /.test(line)) continue
    const f = line.split(/\s+/).slice(1).map(Number)
    const at = (i: number) => f[i] ?? 0
    rows.push({ user: at(0) + at(1), system: at(2), irq: at(5) + at(6), idle: at(3) + at(4), steal: at(7) })
  }
  return rows
}

/** What each CPU did between two cpuTimes() readings, as fractions of the interval (kernel ticks). */
function describeCpus(before: ReturnType<typeof cpuTimes>, after: ReturnType<typeof cpuTimes>): string {
  return after
    .map((a, cpu) => {
      const b = before[cpu] ?? a
      const d = {
        user: a.user - b.user,
        system: a.system - b.system,
        irq: a.irq - b.irq,
        idle: a.idle - b.idle,
        steal: a.steal - b.steal,
      }
      const total = Math.max(1, d.user + d.system + d.irq + d.idle + d.steal)
      const pct = (n: number) => `${Math.round((100 * n) / total)}%`
      return `cpu${cpu} user ${pct(d.user)} sys ${pct(d.system)} irq ${pct(d.irq)} idle ${pct(d.idle)} steal ${pct(d.steal)}`
    })
    .join('; ')
}

/** Sets the CPU affinity of every thread of `pid` (taskset -a). */
function pinToCpu(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' })
}

/** With BENCH_CPU_PROF=1 (or =server / =client), child processes write .cpuprofile files. */
function profileArgv(role: 'server' | 'client'): string[] {
  const setting = process.env['BENCH_CPU_PROF']
  if (setting !== '1' && setting !== role) return []
  const dir = join(tmpdir(), 'acdp-bench-profiles')
  mkdirSync(dir, { recursive: true })
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${role}-${process.hrtime.bigint()}.cpuprofile`]
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.send('stop')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

// ---------------------------------------------------------------------------------------------------------------
// Registry-style signed deliveries

let sequence = 0

/** The next context_published body (bench/load-bodies.ts); `type` replaces the event type. */
function publishedBody(createdAt: string, type = 'context_published'): string {
  sequence += 1
  return publishedEventBody(AUTHORITY, sequence, createdAt, type)
}

/**
 * Signs a body as a registry does (X-ACDP-Timestamp + X-ACDP-Signature-V2, no routing headers bound): production
 * refuses a plain X-ACDP-Signature (INGEST_REQUIRE_TIMESTAMPED_SIGNATURE) and, from an unenrolled registry, any
 * form that does not sign its tenant binding (403 TENANT_HEADER_UNTRUSTED). Bodies are signed ahead of a phase;
 * INGEST_SIGNATURE_TOLERANCE_SECONDS (300) outlasts every phase.
 */
async function signer(): Promise<(body: string) => Record<string, string>> {
  const { signWebhookV2 } = await import('@acdp/protocol')
  const unbound = { tenantId: undefined, runId: undefined, eventId: undefined }
  return (body) => {
    const seconds = Math.floor(Date.now() / 1000)
    return {
      'x-acdp-timestamp': String(seconds),
      'x-acdp-signature-v2': signWebhookV2(WEBHOOK_SECRET, seconds, unbound, body),
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Ingest phases

/** Closed loop at BENCH_CONNECTIONS, closed loop at BENCH_HIGH_CONNECTIONS, fixed rate BENCH_FIXED_RATE. */
type IngestPhase = 'closed' | 'high' | 'fixed'

async function ingestPhases(
  label: string,
  target: { process: ChildProcess; url: string } | ReadonlyArray<{ process: ChildProcess; url: string }>,
  phases: readonly IngestPhase[] = ['closed', 'high', 'fixed'],
): Promise<PhaseResult[]> {
  // Several instances (the `postgres2` phase): the connections are split evenly across them, one autocannon each.
  const children = Array.isArray(target) ? target : [target as { process: ChildProcess; url: string }]
  const autocannon = ((await import(AUTOCANNON_MODULE)) as { default: Autocannon }).default
  const sign = await signer()
  const closedLoops = phases.filter((p) => p !== 'fixed').length
  const needed = Math.ceil(8000 * (closedLoops * SECONDS + 2) + FIXED_RATE * (SECONDS + 2) + 2000)
  const createdAt = new Date().toISOString()
  const prepared: Array<{ body: string; signature: Record<string, string> }> = []
  for (let i = 0; i < needed; i++) {
    const body = publishedBody(createdAt)
    prepared.push({ body, signature: sign(body) })
  }
  let next = 0
  const take = () => {
    const item = prepared[next++ % prepared.length] as { body: string; signature: Record<string, string> }
    return item
  }
  const cpuOfAll = async () => {
    let sum = 0
    for (const child of children) sum += await childCpuMicros(child.process)
    return sum
  }
  const run = async (name: string, options: Record<string, unknown>): Promise<PhaseResult> => {
    const cpuBefore = await cpuOfAll()
    const connections = Number(options['connections'] ?? CONNECTIONS)
    const overallRate = options['overallRate'] as number | undefined
    const each = await Promise.all(
      children.map((child) =>
        autocannon({
          url: child.url,
          pipelining: 1,
          ...options,
          connections: Math.max(1, Math.round(connections / children.length)),
          ...(overallRate === undefined ? {} : { overallRate: overallRate / children.length }),
          requests: [
            {
              method: 'POST',
              path: '/ingest/acdp',
              setupRequest: (request: Record<string, unknown>) => {
                const item = take()
                return {
                  ...request,
                  body: item.body,
                  headers: { 'content-type': 'application/json', ...item.signature },
                }
              },
            },
          ],
        }),
      ),
    )
    const total = each.reduce((sum, r) => sum + r.requests.total, 0)
    return {
      name: `${label}: ${name}`,
      requestsPerSecond: Math.round(each.reduce((sum, r) => sum + r.requests.average, 0)),
      // Several instances: the worst instance's percentile (a bound, not a merged histogram).
      p50Ms: Math.max(...each.map((r) => r.latency.p50)),
      p99Ms: Math.max(...each.map((r) => r.latency.p99)),
      maxMs: Math.max(...each.map((r) => r.latency.max)),
      total,
      non2xx: each.reduce((sum, r) => sum + r.non2xx, 0),
      errors: each.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      cpuMicrosPerRequest: Math.round(((await cpuOfAll()) - cpuBefore) / Math.max(1, total)),
    }
  }
  // Warm-up: JIT, prepared statements, page cache.
  await run('warm-up', { duration: 2 })
  const results: PhaseResult[] = []
  for (const phase of phases) {
    if (phase === 'closed') {
      results.push(await run(`ingest closed loop, ${CONNECTIONS} connections`, { duration: SECONDS }))
    } else if (phase === 'high') {
      results.push(
        await run(`ingest closed loop, ${HIGH_CONNECTIONS} connections`, {
          duration: SECONDS,
          connections: HIGH_CONNECTIONS,
        }),
      )
    } else {
      results.push(
        await run(`ingest at ${FIXED_RATE}/s`, { duration: SECONDS, connections: 16, overallRate: FIXED_RATE }),
      )
    }
  }
  return results
}

async function benchSqlite(): Promise<PhaseResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-cp-'))
  const child = await startChild('sqlite', dir)
  try {
    console.log(`control plane child pid ${child.process.pid} at ${child.url} (SQLite in ${dir})`)
    return await ingestPhases('SQLite', child)
  } finally {
    await stopChild(child.process)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function benchPostgres(): Promise<PhaseResult[] | string> {
  return withPostgresDatabase(async (url, name) => {
    const child = await startChild('postgres', url)
    try {
      console.log(`control plane child pid ${child.process.pid} at ${child.url} (PostgreSQL database ${name})`)
      return await ingestPhases('PostgreSQL', child)
    } finally {
      await stopChild(child.process)
    }
  })
}

/** Two control-plane instances on one throwaway database, the load split across them (`postgres2`). */
async function benchPostgresTwo(): Promise<PhaseResult[] | string> {
  return withPostgresDatabase(async (url, name) => {
    // One after the other: both run the migrations, the second finds nothing to apply.
    const first = await startChild('postgres', url)
    const second = await startChild('postgres', url)
    try {
      console.log(
        `control plane children pids ${first.process.pid}, ${second.process.pid} (PostgreSQL database ${name})`,
      )
      return await ingestPhases('PostgreSQL, two instances', [first, second], ['closed', 'high'])
    } finally {
      await stopChild(first.process)
      await stopChild(second.process)
    }
  })
}

/**
 * The background sweeps the read phases (dashboard, events) turn off: the receipt audit and the log
 * reconciliation would otherwise work through the whole bulk-loaded history during the measurement (in production
 * they keep up with ingest event by event), and the figure would be theirs as much as the read's.
 */
const BACKFILL_QUIET = { RECEIPT_AUDIT_ENABLED: 'false', LOG_RECONCILE_ENABLED: 'false' }

/** GET /events?limit=100 (`events` phase), 16 connections, over BENCH_EVENTS_PRELOAD bulk-loaded events. */
async function benchEventList(kind: 'sqlite' | 'postgres'): Promise<PhaseResult[] | string> {
  const label = `${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} GET /events?limit=100, ${EVENTS_PRELOAD.toLocaleString('en')} events`
  const measure = async (target: string): Promise<PhaseResult[]> => {
    // Quiet like the dashboard phase: the receipt audit would otherwise verify the whole bulk-loaded history
    // during the measurement.
    const child = await startChild(kind, target, { preload: EVENTS_PRELOAD, env: BACKFILL_QUIET })
    try {
      return [await readRun(label, child, '/events?limit=100')]
    } finally {
      await stopChild(child.process)
    }
  }
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-cp-events-'))
    try {
      return await measure(dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return withPostgresDatabase((url) => measure(url))
}

/**
 * Runs `body` on a throwaway PostgreSQL database (created, then dropped with every connection to it); returns a
 * reason string instead when PostgreSQL is off or unreachable.
 */
async function withPostgresDatabase<T>(body: (url: string, name: string) => Promise<T>): Promise<T | string> {
  if (PG_ADMIN_URL === 'off') return 'skipped (BENCH_PG_ADMIN_URL=off)'
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 })
  try {
    await admin.connect()
  } catch (error) {
    return `skipped (PostgreSQL not reachable at ${PG_ADMIN_URL}: ${(error as Error).message})`
  }
  const name = `acdp_bench_${randomBytes(5).toString('hex')}`
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(PG_ADMIN_URL)
  url.pathname = `/${name}`
  try {
    return await body(url.href, name)
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

/** Ingest at 64 (and 32) connections on SQLite over BENCH_LARGE_EVENTS bulk-loaded events. */
async function benchLarge(): Promise<PhaseResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-cp-large-'))
  try {
    const child = await startChild('sqlite', dir, { preload: LARGE_EVENTS })
    try {
      const size = statSync(join(dir, 'control-plane.db')).size
      console.log(
        `control plane child pid ${child.process.pid} at ${child.url} (SQLite, ${LARGE_EVENTS} events bulk-loaded ` +
          `in ${(child.preloadMs / 1000).toFixed(1)} s, database ${(size / 1024 / 1024).toFixed(0)} MiB)`,
      )
      return await ingestPhases(`SQLite, ${LARGE_EVENTS.toLocaleString('en')} stored events`, child, ['high', 'closed'])
    } finally {
      await stopChild(child.process)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** GET /dashboard/overview, 16 connections, for SECONDS (after a 2 s warm-up). */
function dashboardRun(name: string, child: { process: ChildProcess; url: string }): Promise<PhaseResult> {
  return readRun(name, child, `/dashboard/overview?window=${DASHBOARD_WINDOW}`)
}

/** GET `path` with the API key, 16 connections, for SECONDS (after a 2 s warm-up). */
async function readRun(
  name: string,
  child: { process: ChildProcess; url: string },
  path: string,
): Promise<PhaseResult> {
  const autocannon = ((await import(AUTOCANNON_MODULE)) as { default: Autocannon }).default
  const options = {
    url: `${child.url}${path}`,
    connections: 16,
    pipelining: 1,
    headers: { authorization: `Bearer ${API_KEY}` },
  }
  await autocannon({ ...options, duration: 2 })
  const cpuBefore = await childCpuMicros(child.process)
  const result = await autocannon({ ...options, duration: SECONDS })
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuMicrosPerRequest: Math.round(
      ((await childCpuMicros(child.process)) - cpuBefore) / Math.max(1, result.requests.total),
    ),
  }
}

/**
 * The dashboard over BENCH_DASHBOARD_EVENTS bulk-loaded events on `kind`: once with the overview cache off (every
 * request runs the queries), then, on the same data, with the default cache.
 */
async function benchDashboard(kind: 'sqlite' | 'postgres'): Promise<PhaseResult[] | string> {
  const label = `${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} dashboard, ${DASHBOARD_EVENTS.toLocaleString('en')} events, window ${DASHBOARD_WINDOW}`
  const measure = async (target: string, preload = DASHBOARD_EVENTS): Promise<PhaseResult[]> => {
    const results: PhaseResult[] = []
    const uncached = await startChild(kind, target, {
      preload,
      env: { ...BACKFILL_QUIET, DASHBOARD_CACHE_MS: '0' },
    })
    try {
      console.log(
        `control plane child pid ${uncached.process.pid} (${label}: bulk load ${(uncached.preloadMs / 1000).toFixed(1)} s)`,
      )
      results.push(await dashboardRun(`${label}, no cache`, uncached))
    } finally {
      await stopChild(uncached.process)
    }
    const cached = await startChild(kind, target, { env: BACKFILL_QUIET })
    try {
      results.push(await dashboardRun(`${label}, DASHBOARD_CACHE_MS=1000 (default)`, cached))
    } finally {
      await stopChild(cached.process)
    }
    return results
  }
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-cp-dash-'))
    try {
      return await measure(dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  // A database loaded once with `--serve postgres <url> <count>` and BENCH_LOAD_ONLY=1 (kept for EXPLAIN).
  if (DASHBOARD_PG_URL !== undefined) return measure(DASHBOARD_PG_URL, 0)
  return withPostgresDatabase((url) => measure(url))
}

/**
 * Ingest on SQLite with OpenTelemetry export on, to a loopback OTLP/HTTP receiver in this process that counts the
 * spans it decodes: the export's cost per ingest, and whether every event became a span.
 */
async function benchOtel(): Promise<{ phases: PhaseResult[]; summary: string }> {
  let spans = 0
  let requests = 0
  const receiver = createHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      requests += 1
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }>
      }
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans += ss.spans.length
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-cp-otel-'))
  try {
    const child = await startChild('sqlite', dir, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } })
    let phases: PhaseResult[]
    let dropped = ''
    try {
      console.log(`control plane child pid ${child.process.pid} at ${child.url} (SQLite, exporting to ${endpoint})`)
      phases = await ingestPhases('SQLite, OpenTelemetry export on', child, ['closed', 'fixed'])
      const metrics = await (await fetch(`${child.url}/metrics`)).text()
      dropped = metrics
        .split('\n')
        .filter((line) => line.startsWith('acdp_otel_spans_dropped_total{'))
        .join(', ')
    } finally {
      await stopChild(child.process) // flushes the exporter
    }
    const stored = phases.reduce((sum, p) => sum + p.total, 0)
    return {
      phases,
      summary:
        `OpenTelemetry: ${spans} spans received in ${requests} export requests for ≈ ${stored} measured ingests ` +
        `(+ warm-up); dropped: ${dropped || 'none'}`,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await new Promise<void>((resolve) => receiver.close(() => resolve()))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// SSE fan-out

/** Client process: holds `count` raw stream connections and histograms delivery latency. */
async function runSseClients(url: string, count: number): Promise<void> {
  const { hostname, port } = new URL(url)
  const MARKER = '"context_published","ts":"'
  const histogram = new Uint32Array(LATENCY_BUCKETS + 1)
  let frames = 0
  let disconnects = 0
  let isReporting = false
  const sockets: Socket[] = []
  const request =
    `GET /events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n` +
    `Authorization: Bearer ${API_KEY}\r\n\r\n`

  const marker = Buffer.from(MARKER, 'latin1')
  const open = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket = netConnect({ host: hostname, port: Number(port) })
      let head = ''
      let isOpen = false
      /** Bytes after the last frame parsed that may hold the start of a marker split across reads. */
      let tail: Buffer | undefined
      socket.setNoDelay(true)
      socket.once('connect', () => socket.write(request))
      // Buffers, not strings: the clients share one core with the sender, and decoding and concatenating every
      // read as text cost more than the server's whole share of the fan-out.
      socket.on('data', (chunk: Buffer) => {
        const now = Date.now()
        let bytes = chunk
        if (!isOpen) {
          head += chunk.toString('latin1')
          const end = head.indexOf('\r\n\r\n')
          if (end === -1) return
          if (!head.startsWith('HTTP/1.1 200')) {
            reject(new Error(`stream refused: ${head.slice(0, 40)}`))
            socket.destroy()
            return
          }
          isOpen = true
          bytes = Buffer.from(head.slice(end + 4), 'latin1')
          head = ''
          resolve()
        }
        if (tail !== undefined) bytes = Buffer.concat([tail, bytes])
        // Chunked transfer framing wraps the SSE text; event frames are found by the head of their data member
        // (`{"type":"context_published","ts":"…"`), which heartbeats do not have.
        let consumed = 0
        let at = bytes.indexOf(marker)
        while (at !== -1) {
          const close = bytes.indexOf(0x22, at + marker.length)
          if (close === -1) break
          const sentAt = Date.parse(bytes.toString('latin1', at + marker.length, close))
          const latency = Math.min(Math.max(0, now - sentAt), LATENCY_BUCKETS)
          histogram[latency] = (histogram[latency] as number) + 1
          frames += 1
          consumed = close + 1
          at = bytes.indexOf(marker, consumed)
        }
        // Keep only a tail that could hold the start of a split marker (copied: the read buffer is not retained).
        const keepFrom = Math.max(consumed, bytes.length - 96)
        tail = keepFrom < bytes.length ? Buffer.from(bytes.subarray(keepFrom)) : undefined
      })
      socket.on('close', () => {
        if (!isReporting) disconnects += 1
        if (!isOpen) reject(new Error('stream closed before it opened'))
      })
      socket.on('error', () => {})
      sockets.push(socket)
    })

  // Open in batches so the accept queue is never flooded.
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => open()))
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  process.send?.({ connected: count })
  process.on('message', (message) => {
    if (message === 'report') {
      isReporting = true
      console.log(
        `  (client event-loop delay: p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms)`,
      )
      process.send?.({ report: { frames, disconnects, histogram: Array.from(histogram) } })
      for (const socket of sockets) socket.destroy()
      setTimeout(() => process.exit(0), 100)
    }
  })
}

/**
 * Reads the control plane's own `http_request_duration_seconds` histogram for POST /ingest/acdp and returns the
 * upper bound (ms) of the bucket that holds the 99th percentile: the server-side view, without client queueing.
 */
async function serverIngestP99Bucket(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const buckets: Array<[number, number]> = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('http_request_duration_seconds_bucket{') || !line.includes('path="/ingest/acdp"')) continue
    const le = /le="([^"]+)"/.exec(line)?.[1]
    const count = Number(line.slice(line.lastIndexOf(' ') + 1))
    if (le !== undefined) buckets.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), count])
  }
  // Buckets are cumulative; several status codes may each have their own series: sum per bound.
  const byBound = new Map<number, number>()
  for (const [bound, count] of buckets) byBound.set(bound, (byBound.get(bound) ?? 0) + count)
  const sorted = [...byBound].sort((a, b) => a[0] - b[0])
  const total = sorted.at(-1)?.[1] ?? 0
  const hit = sorted.find(([, count]) => count >= total * 0.99)
  return hit === undefined || !Number.isFinite(hit[0]) ? undefined : Math.round(hit[0] * 1000)
}

function percentile(histogram: number[], total: number, p: number): number {
  const rank = Math.ceil(total * p)
  let seen = 0
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms] as number
    if (seen >= rank) return ms
  }
  return histogram.length - 1
}

async function benchSse(): Promise<SseResult> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-cp-sse-'))
  const child = await startChild('sqlite', dir)
  const clients: ChildProcess[] = []
  try {
    console.log(`control plane child pid ${child.process.pid} at ${child.url} (SSE fan-out, SQLite)`)
    // One core for the server, the other for the load generator, so the figure is the server's, not a contest.
    if (SSE_PIN) {
      pinToCpu(child.process.pid as number, 0)
      pinToCpu(process.pid, 1)
      console.log('server pinned to CPU 0; sender and stream clients to CPU 1')
    }
    const perProcess = Math.ceil(SSE_CLIENTS / SSE_CLIENT_PROCS)
    const connected: Array<Promise<void>> = []
    for (let i = 0; i < SSE_CLIENT_PROCS; i++) {
      const count = Math.min(perProcess, SSE_CLIENTS - i * perProcess)
      const client = fork(fileURLToPath(import.meta.url), ['--sse-clients', child.url, String(count)], {
        execArgv: [...process.execArgv, ...profileArgv('client')],
        stdio: 'inherit',
      })
      // A forked child inherits this process's affinity (CPU 1 when pinned).
      clients.push(client)
      connected.push(
        new Promise((resolve, reject) => {
          client.once('message', (m: { connected?: number }) =>
            m.connected ? resolve() : reject(new Error('clients failed')),
          )
          client.once('exit', (code) => reject(new Error(`client process exited with ${code}`)))
        }),
      )
    }
    await Promise.all(connected)
    console.log(`${SSE_CLIENTS} stream connections open; sending ${SSE_RATE} events/s for ${SSE_SECONDS} s`)

    const sign = await signer()
    const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 })
    const { hostname, port } = new URL(child.url)
    const ingestLatenciesMs: number[] = []
    const send = (type?: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const sentAt = performance.now()
        const body = publishedBody(new Date().toISOString(), type)
        const req = httpRequest(
          {
            host: hostname,
            port: Number(port),
            path: '/ingest/acdp',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', ...sign(body) },
          },
          (res) => {
            let answer = ''
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => {
              if (answer.length < 512) answer += chunk
            })
            res.on('end', () => {
              ingestLatenciesMs.push(performance.now() - sentAt)
              if (res.statusCode === 204) resolve()
              else reject(new Error(`ingest answered ${res.statusCode}: ${answer.slice(0, 512)}`))
            })
          },
        )
        req.on('error', reject)
        req.end(body)
      })

    // A registry keeps its webhook connections alive; open the sender's pool before the timed run so the
    // measurement is fan-out, not TCP connection setup (these warm-up events are not measured).
    await Promise.all(Array.from({ length: SENDER_CONNECTIONS }, () => send('context_warmed_up')))
    await new Promise((r) => setTimeout(r, 500))
    ingestLatenciesMs.length = 0

    const total = SSE_RATE * SSE_SECONDS
    const cpuBefore = await childCpuMicros(child.process)
    const serverProcBefore = procCpuMicros(child.process.pid as number)
    const clientProcBefore = clients.reduce((sum, c) => sum + procCpuMicros(c.pid as number), 0)
    const senderBefore = process.cpuUsage()
    const cpusBefore = cpuTimes()
    const started = performance.now()
    const inFlight: Array<Promise<void>> = []
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / SSE_RATE
      const wait = due - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      inFlight.push(send())
    }
    await Promise.all(inFlight)
    agent.destroy()
    await new Promise((r) => setTimeout(r, 2000))
    const windowMicros = (performance.now() - started) * 1000
    const serverProcMicros = procCpuMicros(child.process.pid as number) - serverProcBefore
    const clientProcMicros = clients.reduce((sum, c) => sum + procCpuMicros(c.pid as number), 0) - clientProcBefore
    const senderUsage = process.cpuUsage(senderBefore)
    const machineCpus = describeCpus(cpusBefore, cpuTimes())
    const serverCpuMicros = (await childCpuMicros(child.process)) - cpuBefore
    const serverIngestP99 = await serverIngestP99Bucket(child.url)
    ingestLatenciesMs.sort((a, b) => a - b)
    const ingestP99Ms = Math.round(ingestLatenciesMs[Math.ceil(ingestLatenciesMs.length * 0.99) - 1] ?? 0)

    const reports = await Promise.all(
      clients.map(
        (client) =>
          new Promise<{ frames: number; disconnects: number; histogram: number[] }>((resolve) => {
            client.once('message', (m: { report: { frames: number; disconnects: number; histogram: number[] } }) =>
              resolve(m.report),
            )
            client.send('report')
          }),
      ),
    )
    const histogram = new Array<number>(LATENCY_BUCKETS + 1).fill(0)
    let frames = 0
    let disconnects = 0
    for (const report of reports) {
      frames += report.frames
      disconnects += report.disconnects
      report.histogram.forEach((n, ms) => {
        histogram[ms] = (histogram[ms] as number) + n
      })
    }
    return {
      name: `SSE fan-out: ${SSE_CLIENTS} subscribers, ${SSE_RATE} events/s for ${SSE_SECONDS} s`,
      clients: SSE_CLIENTS,
      eventsSent: total,
      framesExpected: total * SSE_CLIENTS,
      framesReceived: frames,
      disconnects,
      p50Ms: percentile(histogram, frames, 0.5),
      p90Ms: percentile(histogram, frames, 0.9),
      p99Ms: percentile(histogram, frames, 0.99),
      maxMs: percentile(histogram, frames, 1),
      serverCpuMicrosPerFrame: Number((serverCpuMicros / Math.max(1, frames)).toFixed(2)),
      clientCpuMicrosPerFrame: Number((clientProcMicros / Math.max(1, frames)).toFixed(2)),
      senderCpuMicrosPerFrame: Number(((senderUsage.user + senderUsage.system) / Math.max(1, frames)).toFixed(2)),
      serverCores: Number((serverProcMicros / windowMicros).toFixed(2)),
      clientCores: Number((clientProcMicros / windowMicros).toFixed(2)),
      pinned: SSE_PIN,
      machineCpus,
      ingestP99Ms,
      serverIngestP99Ms: serverIngestP99,
    }
  } finally {
    // Clients exit by themselves after reporting (writing their CPU profile when asked); stragglers are killed.
    await Promise.all(
      clients.map(
        (client) =>
          new Promise<void>((resolve) => {
            if (client.exitCode !== null) return resolve()
            const timer = setTimeout(() => {
              client.kill()
              resolve()
            }, 3000)
            client.once('exit', () => {
              clearTimeout(timer)
              resolve()
            })
          }),
      ),
    )
    await stopChild(child.process)
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  )
  const results: { ingest: PhaseResult[]; postgres?: string; otel?: string; sse?: SseResult } = { ingest: [] }
  if (ONLY.has('sqlite')) results.ingest.push(...(await benchSqlite()))
  if (ONLY.has('postgres')) {
    const pg = await benchPostgres()
    if (typeof pg === 'string') results.postgres = pg
    else results.ingest.push(...pg)
  }
  if (ONLY.has('postgres2')) {
    const pg = await benchPostgresTwo()
    if (typeof pg === 'string') results.postgres = pg
    else results.ingest.push(...pg)
  }
  if (ONLY.has('events')) {
    for (const kind of ['sqlite', 'postgres'] as const) {
      const events = await benchEventList(kind)
      if (typeof events === 'string') results.postgres = `events ${events}`
      else results.ingest.push(...events)
    }
  }
  if (ONLY.has('otel')) {
    const otel = await benchOtel()
    results.ingest.push(...otel.phases)
    results.otel = otel.summary
  }
  if (ONLY.has('large')) results.ingest.push(...(await benchLarge()))
  if (ONLY.has('dashboard')) {
    for (const kind of DASHBOARD_KINDS) {
      const dashboard = await benchDashboard(kind)
      if (typeof dashboard === 'string') results.postgres = `dashboard ${dashboard}`
      else results.ingest.push(...dashboard)
    }
  }
  if (ONLY.has('sse')) results.sse = await benchSse()
  const auth = ONLY.has('auth')
    ? ((await import(AUTH_BENCH_MODULE)) as typeof import('./control-plane-auth.ts'))
    : undefined
  const authResults = auth === undefined ? undefined : await auth.benchAuth()

  console.log('')
  console.log('| phase | req/s | p50 ms | p99 ms | max ms | total | non-2xx | errors | server CPU µs/req |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of results.ingest) {
    console.log(
      `| ${r.name} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.maxMs} | ${r.total} | ${r.non2xx} | ` +
        `${r.errors} | ${r.cpuMicrosPerRequest} |`,
    )
  }
  if (results.postgres) console.log(`PostgreSQL: ${results.postgres}`)
  if (results.otel) console.log(results.otel)
  if (results.sse) {
    const s = results.sse
    console.log('')
    console.log(`${s.name}`)
    console.log(
      `  frames ${s.framesReceived}/${s.framesExpected}, disconnects ${s.disconnects}, ` +
        `delivery latency p50 ${s.p50Ms} ms, p90 ${s.p90Ms} ms, p99 ${s.p99Ms} ms, max ${s.maxMs} ms, ` +
        `server CPU ${s.serverCpuMicrosPerFrame} µs per frame; ingest response p99 ${s.ingestP99Ms} ms ` +
        `(server-side p99 ≤ ${s.serverIngestP99Ms ?? '?'} ms)`,
    )
    console.log(
      `  CPU per delivered frame: server ${s.serverCpuMicrosPerFrame} µs (${s.serverCores} cores), stream clients ` +
        `${s.clientCpuMicrosPerFrame} µs (${s.clientCores} cores), sender ${s.senderCpuMicrosPerFrame} µs; ` +
        `${s.pinned ? 'server on CPU 0, load generator on CPU 1' : 'not pinned'}`,
    )
    console.log(`  machine during the window: ${s.machineCpus}`)
  }
  if (auth !== undefined && authResults !== undefined) auth.printAuthResults(authResults)
  if (process.env['BENCH_OUT']) writeFileSync(process.env['BENCH_OUT'], `${JSON.stringify(results, null, 2)}\n`)
}

// Dispatch last: every module-level binding above is initialised by now.
if (process.argv[2] === '--serve') {
  await serve(process.argv[3] as 'sqlite' | 'postgres', process.argv[4] as string, Number(process.argv[5] ?? 0))
} else if (process.argv[2] === '--sse-clients') {
  await runSseClients(process.argv[3] as string, Number(process.argv[4]))
} else {
  await main()
}
