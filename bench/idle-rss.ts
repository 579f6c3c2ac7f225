/**
 * Idle memory of the real bins (`npm run bench:idle-rss`; see docs/performance/journal.md "Idle memory (RSS)").
 *
 * Starts each service from the built tree as its own process on a free loopback port with a fresh data directory
 * (registry and control plane on SQLite, and both on PostgreSQL when BENCH_DATABASE_URL is set),
 * waits until /healthz answers, lets it settle BENCH_SETTLE_MS (default 3000), reads its resident set with
 * `ps -o rss=`, stops it with SIGTERM, BENCH_RUNS times each (default 3). Prints each figure and the load average.
 * NODE_OPTIONS passes through, e.g. NODE_OPTIONS=--max-semi-space-size=2. The services run with their default
 * NODE_ENV (development: the control plane then also serves its API docs); BENCH_NODE_ENV=production runs them
 * the way deploy/ does (NODE_ENV=production, with the secrets production requires). BENCH_ONLY=<text> runs only
 * the targets whose name contains it (e.g. `control plane`), for A/B runs of one service.
 *
 * Then, per service, the memory after sustained load: one more fresh start, its idle RSS, BENCH_LOAD_SECONDS
 * (default 180; 0 skips this part) of closed-loop load at BENCH_LOAD_CONNECTIONS (16) with autocannon — distinct
 * signed publishes for the registry (bench/registry.ts's publish phase, signed here as they are sent) and signed
 * context_published webhooks for the control plane's ingest (bench/control-plane.ts's) — the RSS at the end of
 * the load and its peak (VmHWM), then the RSS after BENCH_LOAD_IDLE_SECONDS (default 60) idle. BENCH_LOAD_ONLY=1
 * skips the plain idle runs.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3)
const SETTLE_MS = Number(process.env['BENCH_SETTLE_MS'] ?? 3000)
const DATABASE_URL = process.env['BENCH_DATABASE_URL'] ?? ''
const NODE_ENV = process.env['BENCH_NODE_ENV'] ?? ''
const ONLY = process.env['BENCH_ONLY'] ?? ''
const LOAD_SECONDS = Number(process.env['BENCH_LOAD_SECONDS'] ?? 180)
const LOAD_IDLE_SECONDS = Number(process.env['BENCH_LOAD_IDLE_SECONDS'] ?? 60)
const LOAD_CONNECTIONS = Number(process.env['BENCH_LOAD_CONNECTIONS'] ?? 16)
const LOAD_ONLY = process.env['BENCH_LOAD_ONLY'] === '1'
/** The control plane's webhook secret in the load runs (its ingest needs one). */
const LOAD_WEBHOOK_SECRET = 'idle-rss-webhook-secret-0123456789'
const AUTHORITY = 'registry.localhost'
/** Variable specifiers: Node runs the .ts files itself, which TypeScript only accepts in type positions. */
const LOAD_BODIES_MODULE: string = './load-bodies.ts'
const AUTOCANNON_MODULE: string = 'autocannon'
/** What each service needs on top of its defaults under BENCH_NODE_ENV=production. */
const PRODUCTION_ENV: Record<string, string> =
  NODE_ENV === 'production'
    ? {
        NODE_ENV: 'production',
        WEBHOOK_SECRET: 'idle-rss-webhook-secret-0123456789',
        AUTH_API_KEYS: 'idle-rss-api-key-0123456789abcdef',
        SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      }
    : NODE_ENV === ''
      ? {}
      : { NODE_ENV }

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before answering ${url}`)
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error(`${url} did not answer within 60 s`)
}

interface Target {
  name: string
  /**
   * `databaseUrl`: a throwaway PostgreSQL database of this run ('' for the SQLite targets). `forLoad`: also
   * accept the load run's requests (did:key producers without a publish budget; a webhook secret).
   */
  start(dir: string, port: number, databaseUrl: string, forLoad: boolean): ChildProcess
  /** The autocannon request of the load run: each call of `setupRequest` sends a new, distinct one. */
  loadRequest(): Promise<Record<string, unknown>>
}

/** Registry configuration of the load run: did:key producers (as bench/registry.ts) and no per-agent budget. */
const REGISTRY_LOAD_TOML = `[auth]\ndid_methods = ["did:web", "did:key"]\n[limits]\npublish_rate_per_minute = 0\n`

async function registryLoadRequest(): Promise<Record<string, unknown>> {
  const protocol = await import('@acdp/protocol')
  const { signedPublishBody } = (await import(LOAD_BODIES_MODULE)) as typeof import('./load-bodies.ts')
  const producers = Array.from({ length: 64 }, () => protocol.createProducerKey())
  let next = 0
  return {
    method: 'POST',
    path: '/contexts',
    setupRequest: (request: Record<string, unknown>) => {
      const index = next++
      return {
        ...request,
        headers: { 'content-type': 'application/acdp+json', 'idempotency-key': `idle-rss-${index}` },
        body: signedPublishBody(protocol, producers, index),
      }
    },
  }
}

async function controlPlaneLoadRequest(): Promise<Record<string, unknown>> {
  const { signWebhookBody } = await import('@acdp/protocol')
  const { publishedEventBody } = (await import(LOAD_BODIES_MODULE)) as typeof import('./load-bodies.ts')
  const createdAt = new Date().toISOString()
  let sequence = 0
  return {
    method: 'POST',
    path: '/ingest/acdp',
    setupRequest: (request: Record<string, unknown>) => {
      const body = publishedEventBody(AUTHORITY, ++sequence, createdAt)
      return {
        ...request,
        headers: { 'content-type': 'application/json', 'x-acdp-signature': signWebhookBody(LOAD_WEBHOOK_SECRET, body) },
        body,
      }
    },
  }
}

function registryToml(port: number, storage: string, forLoad: boolean): string {
  return (
    `[registry]\nauthority = "${AUTHORITY}"\nport = ${port}\nlog_level = "warn"\n` +
    `[storage]\n${storage}` +
    (forLoad ? REGISTRY_LOAD_TOML : '')
  )
}

/**
 * A fresh PostgreSQL database for one run (created on BENCH_DATABASE_URL's server, dropped with `drop()`), so
 * every run migrates an empty database as a first start does, whatever the shared test database holds.
 */
async function throwawayDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: DATABASE_URL })
  await admin.connect()
  const name = `acdp_idle_rss_${randomBytes(5).toString('hex')}`
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(DATABASE_URL)
  url.pathname = `/${name}`
  return {
    url: url.href,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}

const targets: Target[] = [
  {
    name: 'registry, SQLite',
    loadRequest: registryLoadRequest,
    start(dir, port, _databaseUrl, forLoad) {
      const config = join(dir, 'registry.toml')
      writeFileSync(config, registryToml(port, `sqlite_path = "${join(dir, 'registry.db')}"\n`, forLoad))
      return spawn(process.execPath, [join(ROOT, 'packages/registry/bin/acdp-registry.js'), '--config', config], {
        stdio: 'ignore',
        env: NODE_ENV === '' ? process.env : { ...process.env, NODE_ENV },
      })
    },
  },
  ...(DATABASE_URL === ''
    ? []
    : [
        {
          name: 'registry, PostgreSQL',
          loadRequest: registryLoadRequest,
          start(dir: string, port: number, databaseUrl: string, forLoad: boolean) {
            const config = join(dir, 'registry.toml')
            writeFileSync(
              config,
              registryToml(port, `backend = "postgres"\npostgres_url = "${databaseUrl}"\n`, forLoad),
            )
            return spawn(process.execPath, [join(ROOT, 'packages/registry/bin/acdp-registry.js'), '--config', config], {
              stdio: 'ignore',
              env: NODE_ENV === '' ? process.env : { ...process.env, NODE_ENV },
            })
          },
        },
      ]),
  {
    name: 'control plane, SQLite',
    loadRequest: controlPlaneLoadRequest,
    start(dir, port, _databaseUrl, forLoad) {
      return spawn(process.execPath, [join(ROOT, 'packages/control-plane/bin/acdp-control-plane.js')], {
        stdio: 'ignore',
        env: {
          ...process.env,
          ...PRODUCTION_ENV,
          ...(forLoad ? { WEBHOOK_SECRET: LOAD_WEBHOOK_SECRET } : {}),
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dir,
          LOG_LEVEL: 'warn',
        },
      })
    },
  },
  ...(DATABASE_URL === ''
    ? []
    : [
        {
          name: 'control plane, PostgreSQL',
          loadRequest: controlPlaneLoadRequest,
          start(dir: string, port: number, databaseUrl: string, forLoad: boolean) {
            return spawn(process.execPath, [join(ROOT, 'packages/control-plane/bin/acdp-control-plane.js')], {
              stdio: 'ignore',
              env: {
                ...process.env,
                ...PRODUCTION_ENV,
                ...(forLoad ? { WEBHOOK_SECRET: LOAD_WEBHOOK_SECRET } : {}),
                PORT: String(port),
                HOST: '127.0.0.1',
                DATA_DIR: dir,
                LOG_LEVEL: 'warn',
                DATABASE_URL: databaseUrl,
              },
            })
          },
        },
      ]),
]

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

console.log(
  `idle RSS, ${RUNS} runs each, ${SETTLE_MS} ms after /healthz; NODE_ENV=${NODE_ENV || '(default)'}; ` +
    `NODE_OPTIONS=${process.env['NODE_OPTIONS'] ?? ''}`,
)
/** Resident set of `pid` in MiB (`ps`, as every figure of this bench). */
function rssMiB(pid: number | undefined): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024
}

/** Peak resident set of `pid` in MiB (Linux VmHWM), or undefined elsewhere. */
function peakRssMiB(pid: number | undefined): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : undefined
  } catch {
    return undefined
  }
}

/** One fresh start of `target` for `body`: data directory, port, throwaway database, SIGTERM and clean-up. */
async function withStartedTarget(
  target: Target,
  forLoad: boolean,
  body: (child: ChildProcess, url: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-idle-rss-'))
  const port = await freePort()
  const database = target.name.endsWith('PostgreSQL') ? await throwawayDatabase() : undefined
  const child = target.start(dir, port, database?.url ?? '', forLoad)
  try {
    const url = `http://127.0.0.1:${port}`
    await waitForHealth(`${url}/healthz`, child)
    await sleep(SETTLE_MS)
    await body(child, url)
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
    await database?.drop()
  }
}

interface LoadFigures {
  idle: number
  endOfLoad: number
  peak: number | undefined
  afterIdle: number
  requests: number
  perSecond: number
  non2xx: number
  errors: number
}

/** Idle RSS, then BENCH_LOAD_SECONDS of closed-loop load, then BENCH_LOAD_IDLE_SECONDS idle (see the header). */
async function afterLoad(target: Target): Promise<LoadFigures> {
  const autocannon = ((await import(AUTOCANNON_MODULE)) as { default: Autocannon }).default
  let figures: LoadFigures | undefined
  await withStartedTarget(target, true, async (child, url) => {
    const idle = rssMiB(child.pid)
    const result = await autocannon({
      url,
      connections: LOAD_CONNECTIONS,
      pipelining: 1,
      duration: LOAD_SECONDS,
      requests: [await target.loadRequest()],
    })
    const endOfLoad = rssMiB(child.pid)
    const peak = peakRssMiB(child.pid)
    await sleep(LOAD_IDLE_SECONDS * 1000)
    figures = {
      idle,
      endOfLoad,
      peak,
      afterIdle: rssMiB(child.pid),
      requests: result.requests.total,
      perSecond: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    }
  })
  if (figures === undefined) throw new Error(`${target.name}: the load run did not complete`)
  return figures
}

/** The slice of autocannon's result read here (autocannon ships no type declarations). */
interface AutocannonResult {
  requests: { average: number; total: number }
  non2xx: number
  errors: number
  timeouts: number
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>

const selected = targets.filter(({ name }) => name.includes(ONLY))
if (!LOAD_ONLY) {
  for (const target of selected) {
    const figures: number[] = []
    for (let run = 0; run < RUNS; run++) {
      await withStartedTarget(target, false, async (child) => {
        figures.push(rssMiB(child.pid))
      })
    }
    console.log(`${target.name.padEnd(28)} ${figures.map((mb) => `${mb.toFixed(1)} MB`).join(', ')}  (load ${load()})`)
  }
}
if (LOAD_SECONDS > 0) {
  console.log(
    `after ${LOAD_SECONDS} s of closed-loop load at ${LOAD_CONNECTIONS} connections, then ${LOAD_IDLE_SECONDS} s idle`,
  )
  for (const target of selected) {
    const f = await afterLoad(target)
    console.log(
      `${target.name.padEnd(28)} idle ${f.idle.toFixed(1)} MB → end of load ${f.endOfLoad.toFixed(1)} MB ` +
        `(peak ${f.peak === undefined ? '?' : f.peak.toFixed(1)} MB) → after ${LOAD_IDLE_SECONDS} s idle ` +
        `${f.afterIdle.toFixed(1)} MB; ${f.requests.toLocaleString('en-US')} requests ` +
        `(${Math.round(f.perSecond).toLocaleString('en-US')}/s, non-2xx ${f.non2xx}, errors ${f.errors})  (load ${load()})`,
    )
  }
}
