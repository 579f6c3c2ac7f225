/**
 * Idle memory of the real bins (`npm run bench:idle-rss`; see docs/performance.md "Idle memory (RSS)").
 *
 * Starts each service from the built tree as its own process on a free loopback port with a fresh data directory
 * (registry and control plane on SQLite, and both on PostgreSQL when BENCH_DATABASE_URL is set),
 * waits until /healthz answers, lets it settle BENCH_SETTLE_MS (default 3000), reads its resident set with
 * `ps -o rss=`, stops it with SIGTERM, BENCH_RUNS times each (default 3). Prints each figure and the load average.
 * NODE_OPTIONS passes through, e.g. NODE_OPTIONS=--max-semi-space-size=2. The services run with their default
 * NODE_ENV (development: the control plane then also serves its API docs); BENCH_NODE_ENV=production runs them
 * the way deploy/ does (NODE_ENV=production, with the secrets production requires). BENCH_ONLY=<text> runs only
 * the targets whose name contains it (e.g. `control plane`), for A/B runs of one service.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
  /** `databaseUrl`: a throwaway PostgreSQL database of this run ('' for the SQLite targets). */
  start(dir: string, port: number, databaseUrl: string): ChildProcess
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
    start(dir, port) {
      const config = join(dir, 'registry.toml')
      writeFileSync(
        config,
        `[registry]\nauthority = "registry.localhost"\nport = ${port}\nlog_level = "warn"\n` +
          `[storage]\nsqlite_path = "${join(dir, 'registry.db')}"\n`,
      )
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
          start(dir: string, port: number, databaseUrl: string) {
            const config = join(dir, 'registry.toml')
            writeFileSync(
              config,
              `[registry]\nauthority = "registry.localhost"\nport = ${port}\nlog_level = "warn"\n` +
                `[storage]\nbackend = "postgres"\npostgres_url = "${databaseUrl}"\n`,
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
    start(dir, port) {
      return spawn(process.execPath, [join(ROOT, 'packages/control-plane/bin/acdp-control-plane.js')], {
        stdio: 'ignore',
        env: {
          ...process.env,
          ...PRODUCTION_ENV,
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
          start(dir: string, port: number, databaseUrl: string) {
            return spawn(process.execPath, [join(ROOT, 'packages/control-plane/bin/acdp-control-plane.js')], {
              stdio: 'ignore',
              env: {
                ...process.env,
                ...PRODUCTION_ENV,
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
for (const target of targets.filter(({ name }) => name.includes(ONLY))) {
  const figures: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-idle-rss-'))
    const port = await freePort()
    const database = target.name.endsWith('PostgreSQL') ? await throwawayDatabase() : undefined
    const child = target.start(dir, port, database?.url ?? '')
    try {
      await waitForHealth(`http://127.0.0.1:${port}/healthz`, child)
      await sleep(SETTLE_MS)
      const kib = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(child.pid)], { encoding: 'utf8' }).trim())
      figures.push(kib / 1024)
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
  console.log(`${target.name.padEnd(28)} ${figures.map((mb) => `${mb.toFixed(1)} MB`).join(', ')}  (load ${load()})`)
}
