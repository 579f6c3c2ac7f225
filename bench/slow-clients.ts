/**
 * Slow-client resilience (`npm run test:slow-clients`; docs/performance/journal.md "Reliability"). Runs each
 * service as its real, built bin on SQLite in a temporary directory, on loopback, and attacks it for
 * SLOW_SECONDS (default 60) while a normal client probes GET /healthz every 50 ms:
 *
 *   - slowloris: SLOW_LORIS connections (default 500) that send a request line and then one header line every
 *     5 s, never finishing; each reopens when the server closes it;
 *   - trickled bodies: SLOW_TRICKLE connections (default 200) that POST a body declared as 64 KiB, one byte
 *     per second (a minute would send 60 bytes); each reopens when the server closes it;
 *   - (control plane) SLOW_SSE event-stream subscribers (default 1,000) that never read a byte, while events are
 *     ingested at SLOW_EVENT_RATE per second (default 50), so frames pile up for every subscriber.
 *
 * SLOW_SERVICES=registry or =control-plane attacks only that one.
 *
 * The normal client runs in a worker thread with its own event loop: the thousands of attacking sockets and the
 * signing of ingested events in the main thread would otherwise delay the probe's own callbacks and be counted
 * as server latency.
 *
 * Reported per service: /healthz latency (p50, p99, max, failures), the service's RSS (start, peak, end; from
 * /proc), connections the server closed and with which status (408 = request timeout), SSE subscribers the
 * server disconnected, and for the control plane its own event-loop delay (prom-client's
 * nodejs_eventloop_lag_p99_seconds / _max_ from /metrics at the end). Nothing is asserted: the figures go to
 * stdout (and SLOW_OUT=<file> as JSON). Every connection goes to 127.0.0.1; the run stops by itself.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { connect, createServer, type Socket } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

const SECONDS = Number(process.env['SLOW_SECONDS'] ?? 60)
const LORIS = Number(process.env['SLOW_LORIS'] ?? 500)
const TRICKLE = Number(process.env['SLOW_TRICKLE'] ?? 200)
const SSE = Number(process.env['SLOW_SSE'] ?? 1000)
const EVENT_RATE = Number(process.env['SLOW_EVENT_RATE'] ?? 50)
/** SLOW_SERVICES: which services to attack, comma-separated (default both). */
const SERVICES = (process.env['SLOW_SERVICES'] ?? 'registry,control-plane').split(',')
const PROBE_INTERVAL_MS = 50
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const WEBHOOK_SECRET = 'slow-clients-webhook-secret-0123456789'
const API_KEY = 'slow-clients-api-key-0123456789'

interface Service {
  name: string
  child: ChildProcess
  port: number
}

interface Figures {
  service: string
  seconds: number
  loadAverage: string
  healthz: { probes: number; failures: number; p50Ms: number; p99Ms: number; maxMs: number }
  rssMiB: { start: number; peak: number; end: number }
  /** The service's own event-loop delay over its life (control plane: /metrics is public). */
  serverEventLoopDelayMs?: { p99: number; max: number }
  slowloris: { opened: number; closedByServer: number; statuses: Record<string, number> }
  trickle: { opened: number; closedByServer: number; statuses: Record<string, number> }
  sse?: { subscribed: number; disconnectedByServer: number; eventsIngested: number }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

async function startService(name: string, bin: string, args: string[], env: Record<string, string>, port: number) {
  const child = spawn(process.execPath, [join(ROOT, bin), ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    if ((await probe(port).catch(() => 0)) === 200) return { name, child, port }
    await sleep(50)
  }
  child.kill('SIGKILL')
  throw new Error(`${name} did not start`)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 })

/** One GET /healthz on a kept-alive connection; resolves with the status. */
function probe(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/healthz', agent: keepAlive, timeout: 5000 }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end()
  })
}

/** The normal client (worker thread): GET /healthz every PROBE_INTERVAL_MS until `until`; posts the latencies. */
async function probeLoop(port: number, until: number): Promise<{ latencies: number[]; failures: number }> {
  const latencies: number[] = []
  let failures = 0
  while (Date.now() < until) {
    const t0 = performance.now()
    try {
      if ((await probe(port)) !== 200) failures++
      latencies.push(performance.now() - t0)
    } catch {
      failures++
    }
    await sleep(PROBE_INTERVAL_MS)
  }
  return { latencies, failures }
}

/** prom-client's event-loop lag gauges from the service's /metrics, in ms; undefined when not readable. */
async function serverEventLoopDelay(port: number): Promise<{ p99: number; max: number } | undefined> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/metrics`)
    if (!answer.ok) return undefined
    const text = await answer.text()
    const gauge = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000
    return {
      p99: Math.round(gauge('nodejs_eventloop_lag_p99_seconds') * 10) / 10,
      max: Math.round(gauge('nodejs_eventloop_lag_max_seconds') * 10) / 10,
    }
  } catch {
    return undefined
  }
}

function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

/** Keeps `count` slow connections open until `until`, reopening each one the server closes. */
function slowConnections(
  port: number,
  count: number,
  until: number,
  open: (socket: Socket) => NodeJS.Timeout,
): { opened: number; closedByServer: number; statuses: Record<string, number>; done: Promise<void> } {
  const stats = { opened: 0, closedByServer: 0, statuses: {} as Record<string, number> }
  const one = async (): Promise<void> => {
    while (Date.now() < until) {
      await new Promise<void>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port })
        stats.opened++
        let answer = ''
        let timer: NodeJS.Timeout | undefined
        const stop = setTimeout(() => socket.destroy(), Math.max(0, until - Date.now()))
        socket.on('connect', () => {
          timer = open(socket)
        })
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString('latin1')
        })
        socket.on('error', () => {})
        socket.on('close', () => {
          clearInterval(timer)
          clearTimeout(stop)
          if (Date.now() < until) {
            stats.closedByServer++
            const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'none'
            stats.statuses[status] = (stats.statuses[status] ?? 0) + 1
          }
          resolve()
        })
      })
    }
  }
  const done = Promise.all(Array.from({ length: count }, one)).then(() => {})
  return Object.assign(stats, { done })
}

function loris(socket: Socket): NodeJS.Timeout {
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n')
  let n = 0
  return setInterval(() => socket.write(`X-Slow-${n++}: a\r\n`), 5000)
}

function trickle(path: string, extraHeaders: string): (socket: Socket) => NodeJS.Timeout {
  return (socket) => {
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extraHeaders}Content-Length: 65536\r\n\r\n`,
    )
    return setInterval(() => socket.write(' '), 1000)
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

async function attack(service: Service, extra: (until: number) => Promise<Figures['sse']>): Promise<Figures> {
  const started = Date.now()
  const until = started + SECONDS * 1000
  const rss = { start: rssMiB(service.child.pid), peak: 0, end: 0 }
  const lorisStats = slowConnections(service.port, LORIS, until, loris)
  const trickleStats = slowConnections(
    service.port,
    TRICKLE,
    until,
    trickle(service.name === 'registry' ? '/contexts' : '/ingest/acdp', ''),
  )
  const extraDone = extra(until)
  const prober = new Worker(new URL(import.meta.url), { workerData: { port: service.port, until } })
  const probed = new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
    prober.once('message', resolve)
    prober.once('error', reject)
  })
  while (Date.now() < until) {
    rss.peak = Math.max(rss.peak, rssMiB(service.child.pid))
    await sleep(PROBE_INTERVAL_MS)
  }
  const { latencies, failures } = await probed
  await prober.terminate()
  const eventLoop = await serverEventLoopDelay(service.port)
  const sse = await extraDone
  await Promise.all([lorisStats.done, trickleStats.done])
  rss.end = rssMiB(service.child.pid)
  latencies.sort((a, b) => a - b)
  const round = (n: number) => Math.round(n * 10) / 10
  return {
    service: service.name,
    seconds: SECONDS,
    loadAverage: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    healthz: {
      probes: latencies.length + failures,
      failures,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(latencies.at(-1) ?? 0),
    },
    rssMiB: { start: round(rss.start), peak: round(rss.peak), end: round(rss.end) },
    ...(eventLoop === undefined ? {} : { serverEventLoopDelayMs: eventLoop }),
    slowloris: { opened: lorisStats.opened, closedByServer: lorisStats.closedByServer, statuses: lorisStats.statuses },
    trickle: {
      opened: trickleStats.opened,
      closedByServer: trickleStats.closedByServer,
      statuses: trickleStats.statuses,
    },
    ...(sse === undefined ? {} : { sse }),
  }
}

/** SSE subscribers that never read, and a steady ingest so frames pile up for them. */
async function sseNonReaders(port: number, until: number): Promise<Figures['sse']> {
  const { signWebhookBody } = await import('@acdp/protocol')
  let subscribed = 0
  let disconnectedByServer = 0
  const sockets: Socket[] = []
  for (let i = 0; i < SSE; i++) {
    const socket = connect({ host: '127.0.0.1', port })
    sockets.push(socket)
    socket.on('connect', () => {
      socket.write(`GET /events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${API_KEY}\r\n\r\n`)
      subscribed++
      // Never read: the first bytes sit in the kernel buffer, then the server's.
      socket.pause()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      if (Date.now() < until) disconnectedByServer++
    })
    if (i % 100 === 99) await sleep(50)
  }
  const ingestAgent = new Agent({ keepAlive: true, maxSockets: 4 })
  let eventsIngested = 0
  let sequence = 0
  const padding = 'x'.repeat(512)
  while (Date.now() < until) {
    const tick = Date.now()
    const batch = Array.from({ length: Math.max(1, Math.round(EVENT_RATE / 10)) }, () => {
      sequence++
      const hex = sequence.toString(16).padStart(12, '0')
      const body = JSON.stringify({
        event_id: `30000000-0000-4000-8000-${hex}`,
        schema_version: '1.0',
        type: 'context_published',
        registry_authority: 'slow.registry.test',
        registry_base_url: 'https://slow.registry.test',
        ctx_id: `acdp://slow.registry.test/40000000-0000-4000-8000-${hex}`,
        lineage_id: `lin:sha256:${'c'.repeat(64)}`,
        agent_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        context_type: 'analysis',
        visibility: 'public',
        version: 1,
        created_at: new Date().toISOString(),
        derived_from: [],
        title: padding,
      })
      return new Promise<void>((resolve) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/ingest/acdp',
            method: 'POST',
            agent: ingestAgent,
            headers: { 'content-type': 'application/json', 'x-acdp-signature': signWebhookBody(WEBHOOK_SECRET, body) },
          },
          (res) => {
            res.resume()
            res.on('end', () => {
              if (res.statusCode === 204) eventsIngested++
              resolve()
            })
          },
        )
        req.on('error', () => resolve())
        req.end(body)
      })
    })
    await Promise.all(batch)
    await sleep(Math.max(0, 100 - (Date.now() - tick)))
  }
  for (const socket of sockets) socket.destroy()
  ingestAgent.destroy()
  return { subscribed, disconnectedByServer, eventsIngested }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-slow-clients-'))
  const figures: Figures[] = []
  try {
    if (SERVICES.includes('registry')) {
      const registryPort = await freePort()
      const registry = await startService(
        'registry',
        'packages/registry/bin/acdp-registry.js',
        [],
        {
          NODE_ENV: 'production',
          ACDP_REGISTRY_REGISTRY__AUTHORITY: 'slow.registry.test',
          ACDP_REGISTRY_REGISTRY__PORT: String(registryPort),
          ACDP_REGISTRY_REGISTRY__LOG_LEVEL: 'warn',
          ACDP_REGISTRY_STORAGE__SQLITE_PATH: join(dir, 'registry.db'),
        },
        registryPort,
      )
      try {
        figures.push(await attack(registry, async () => undefined))
      } finally {
        registry.child.kill('SIGTERM')
      }
    }
    if (SERVICES.includes('control-plane')) {
      const controlPlanePort = await freePort()
      const controlPlane = await startService(
        'control-plane',
        'packages/control-plane/bin/acdp-control-plane.js',
        [],
        {
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(controlPlanePort),
          LOG_LEVEL: 'warn',
          SQLITE_PATH: join(dir, 'control-plane.db'),
          DATA_DIR: dir,
          WEBHOOK_SECRET,
          AUTH_API_KEYS: API_KEY,
          SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
        },
        controlPlanePort,
      )
      try {
        figures.push(await attack(controlPlane, (until) => sseNonReaders(controlPlanePort, until)))
      } finally {
        controlPlane.child.kill('SIGTERM')
      }
    }
  } finally {
    keepAlive.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
  for (const f of figures) console.log(JSON.stringify(f))
  if (process.env['SLOW_OUT']) writeFileSync(process.env['SLOW_OUT'], `${JSON.stringify(figures, null, 2)}\n`)
}

if (isMainThread) await main()
else {
  const { port, until } = workerData as { port: number; until: number }
  parentPort?.postMessage(await probeLoop(port, until))
  keepAlive.destroy()
}
