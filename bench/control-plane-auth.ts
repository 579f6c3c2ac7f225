/**
 * Control plane token-auth benchmark (`npm run bench:control-plane-auth`, also run by bench/control-plane.ts as
 * its `auth` phase; figures in docs/performance/journal.md "Token auth and federation").
 *
 * The control plane runs in a CHILD process on SQLite (a temp dir) with HS256 token issuance, pinned keys for
 * the bench agents, and its SSRF-safe outbound client trusting a throwaway test CA for one loopback name. This
 * process hosts the loopback HTTPS "registry" the federation proxy forwards to, and drives:
 *
 *   1. token issuance: closed-loop workers each doing POST /auth/challenge → sign → POST /auth/token;
 *   2. GET /runs with a JWT (autocannon, closed loop) over a database seeded with signed ingests;
 *   3. GET /events with a JWT;
 *   4. GET /contexts/<ctx_id> with a JWT through the federation proxy to the loopback HTTPS registry.
 *
 * Targets (SQLite): GET /runs and GET /events ≥ 3,000 req/s each, issuance ≥ 1,000 tokens/s, proxy ≥ 1,000 req/s.
 * Environment: BENCH_SECONDS (per phase, default 10), BENCH_CONNECTIONS (32), BENCH_ISSUE_WORKERS (32).
 * Loopback only; every phase is bounded in time.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32)
const ISSUE_WORKERS = Number(process.env['BENCH_ISSUE_WORKERS'] ?? 32)
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789abcdef'
const API_KEY = 'bench-api-key-0123456789abcdef'
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef'
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef0123'
const UPSTREAM_NAME = 'bench-registry.test'
const CTX_ID = `acdp://${UPSTREAM_NAME}/0b6b1b7e-1d5c-4c3e-9a57-3f1f7f3f2a10`
const AGENTS = 16

export interface AuthPhaseResult {
  name: string
  perSecond: number
  p50Ms: number
  p99Ms: number
  total: number
  failures: number
  /** CPU time (user + system) the control plane child spent per operation, in µs: less sensitive to load. */
  serverCpuMicros: number
  load: string
}

interface AutocannonResult {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number }
  non2xx: number
  errors: number
  timeouts: number
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>
const AUTOCANNON_MODULE: string = 'autocannon'
const PKI_MODULE: string = '../packages/protocol/test/support/test-ca.ts'

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

// ---------------------------------------------------------------------------------------------------------------
// Child: the control plane

async function serve(dir: string, pinned: string, caPem: string, upstreamPort: string): Promise<void> {
  const { loadConfig, startControlPlane } = await import('@acdp/control-plane')
  const { createOutboundClient } = await import('@acdp/protocol')
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    WEBHOOK_SECRET,
    AUTH_API_KEYS: API_KEY,
    AUTH_ADMIN_API_KEYS: ADMIN_KEY,
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 42).toString('base64'),
    DATA_DIR: dir,
    SQLITE_PATH: join(dir, 'control-plane.db'),
    TOKEN_ISSUANCE_ENABLED: 'true',
    JWT_SECRET,
    JWT_AUTHORITY: 'bench-cp.test',
    CONTROL_PLANE_PINNED_KEYS: pinned,
    AUTH_THROTTLE_LIMIT: '100000',
    AUTH_THROTTLE_WINDOW_MS: '1000',
  })
  const outbound = createOutboundClient({
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [caPem],
    lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  })
  const running = await startControlPlane(config, { outbound })
  process.send?.({ ready: true, url: running.url, upstreamPort })
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage()
      process.send?.({ cpuMicros: user + system })
      return
    }
    if (message === 'stop') {
      running.close().then(
        async () => {
          await outbound.close()
          process.exit(0)
        },
        () => process.exit(1),
      )
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Driver

function post(agent: Agent, url: URL, path: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
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

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0)
}

export async function benchAuth(): Promise<AuthPhaseResult[]> {
  const protocol = await import('@acdp/protocol')
  const { createTestPki } = (await import(PKI_MODULE)) as {
    createTestPki: (names: { dnsNames: string[]; ipAddresses: string[] }) => {
      caPem: string
      keyPem: string
      certPem: string
    }
  }
  const agents = Array.from({ length: AGENTS }, (_, index) => {
    const key = protocol.generateSigningKey('ed25519')
    return { did: `did:web:agent-${index}.bench.test`, key }
  })
  const pinned = agents.map((a) => `${a.did}=${Buffer.from(a.key.publicKey).toString('base64')}`).join(',')

  // The loopback HTTPS registry the proxy forwards to.
  const pki = createTestPki({ dnsNames: [UPSTREAM_NAME], ipAddresses: ['127.0.0.1'] })
  const envelope = JSON.stringify({
    body: { ctx_id: CTX_ID, context_type: 'analysis', title: 'bench', payload: 'x'.repeat(1500) },
    registry_state: { status: 'active' },
  })
  const upstream = createHttpsServer({ key: pki.keyPem, cert: pki.certPem, keepAliveTimeout: 30_000 }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/acdp+json' })
    res.end(envelope)
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const upstreamPort = (upstream.address() as AddressInfo).port

  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-auth-'))
  const child: ChildProcess = fork(
    fileURLToPath(import.meta.url),
    ['--serve', dir, pinned, pki.caPem, String(upstreamPort)],
    {
      stdio: 'inherit',
    },
  )
  const url = new URL(
    await new Promise<string>((resolve, reject) => {
      child.once('message', (m: { url?: string }) =>
        m.url ? resolve(m.url) : reject(new Error('child did not start')),
      )
      child.once('exit', (code) => reject(new Error(`control plane child exited with ${code}`)))
    }),
  )
  const agent = new Agent({ keepAlive: true, maxSockets: Math.max(CONNECTIONS, ISSUE_WORKERS) })
  const results: AuthPhaseResult[] = []
  try {
    console.log(`token-auth bench: control plane pid ${child.pid} at ${url.origin}; load ${load()}`)
    // Seed: runs and events through signed ingest, and the enrollment the proxy looks up.
    for (let i = 0; i < 400; i++) {
      const body = JSON.stringify({
        event_id: `a0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        type: 'context_published',
        registry_authority: UPSTREAM_NAME,
        ctx_id: `acdp://${UPSTREAM_NAME}/c0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        agent_id: agents[i % AGENTS]?.did,
        context_type: 'analysis',
        created_at: new Date().toISOString(),
        run_id: `bench-run-${Math.floor(i / 8)}`,
      })
      const res = await post(agent, url, '/ingest/acdp', body, {
        'x-acdp-signature': protocol.signWebhookBody(WEBHOOK_SECRET, body),
      })
      if (res.status !== 204) throw new Error(`seed ingest answered ${res.status}: ${res.body}`)
    }
    const enroll = await post(
      agent,
      url,
      '/registries/enroll',
      JSON.stringify({ authority: UPSTREAM_NAME, baseUrl: `https://${UPSTREAM_NAME}:${upstreamPort}` }),
      { authorization: `Bearer ${ADMIN_KEY}` },
    )
    if (enroll.status !== 200) throw new Error(`enroll answered ${enroll.status}: ${enroll.body}`)

    // 1. Token issuance, closed loop.
    const issueOne = async (index: number): Promise<string> => {
      const a = agents[index % AGENTS] as (typeof agents)[number]
      const challenge = await post(agent, url, '/auth/challenge', JSON.stringify({ agent_id: a.did }))
      if (challenge.status !== 200) throw new Error(`challenge ${challenge.status}`)
      const c = JSON.parse(challenge.body) as { nonce: string; expires_at: number; signing_input: string }
      const signature = protocol.encodeBase64(
        protocol.signEd25519(a.key.privateKey, new TextEncoder().encode(c.signing_input)),
      )
      const token = await post(
        agent,
        url,
        '/auth/token',
        JSON.stringify({
          agent_id: a.did,
          key_id: `${a.did}#k1`,
          nonce: c.nonce,
          expires_at: c.expires_at,
          algorithm: 'ed25519',
          signature,
        }),
      )
      if (token.status !== 200) throw new Error(`token ${token.status}`)
      return (JSON.parse(token.body) as { token: string }).token
    }
    const jwt = await issueOne(0)
    for (let i = 0; i < 200; i++) await issueOne(i) // warm-up
    {
      const latencies: number[] = []
      let failures = 0
      const deadline = performance.now() + SECONDS * 1000
      const worker = async (w: number) => {
        for (let i = w; performance.now() < deadline; i += ISSUE_WORKERS) {
          const start = performance.now()
          try {
            await issueOne(i)
            latencies.push(performance.now() - start)
          } catch {
            failures += 1
          }
        }
      }
      const cpuBefore = await childCpuMicros(child)
      const started = performance.now()
      await Promise.all(Array.from({ length: ISSUE_WORKERS }, (_, w) => worker(w)))
      const elapsed = (performance.now() - started) / 1000
      latencies.sort((a, b) => a - b)
      results.push({
        name: `token issuance (challenge + token), ${ISSUE_WORKERS} workers`,
        perSecond: Math.round(latencies.length / elapsed),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        total: latencies.length,
        failures,
        serverCpuMicros: Math.round(((await childCpuMicros(child)) - cpuBefore) / Math.max(1, latencies.length)),
        load: load(),
      })
    }

    // 2–4. JWT-authenticated reads and the proxy, autocannon closed loop.
    const autocannon = ((await import(AUTOCANNON_MODULE)) as { default: Autocannon }).default
    const read = async (name: string, path: string, credential = jwt): Promise<void> => {
      const options = {
        url: `${url.origin}${path}`,
        connections: CONNECTIONS,
        headers: { authorization: `Bearer ${credential}` },
      }
      await autocannon({ ...options, duration: 2 })
      const cpuBefore = await childCpuMicros(child)
      const r = await autocannon({ ...options, duration: SECONDS })
      results.push({
        name,
        perSecond: Math.round(r.requests.average),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        total: r.requests.total,
        failures: r.non2xx + r.errors + r.timeouts,
        serverCpuMicros: Math.round(((await childCpuMicros(child)) - cpuBefore) / Math.max(1, r.requests.total)),
        load: load(),
      })
    }
    await read(`GET /runs with a JWT, ${CONNECTIONS} connections`, '/runs')
    await read(`GET /runs with an API key (reference), ${CONNECTIONS} connections`, '/runs', API_KEY)
    await read(`GET /events with a JWT, ${CONNECTIONS} connections`, '/events?limit=50')
    await read(
      `GET /contexts/<ctx_id> (federation proxy, HTTPS upstream) with a JWT, ${CONNECTIONS} connections`,
      `/contexts/${encodeURIComponent(CTX_ID)}`,
    )
  } finally {
    agent.destroy()
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    if (child.exitCode === null) {
      child.send('stop')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
    upstream.closeAllConnections()
    await new Promise<void>((resolve) => upstream.close(() => resolve()))
    rmSync(dir, { recursive: true, force: true })
  }
  return results
}

export function printAuthResults(results: AuthPhaseResult[]): void {
  console.log('')
  console.log(
    '| token-auth phase | per second | p50 ms | p99 ms | total | failures | server CPU µs/op | load (1/5/15 min) at end |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---|')
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.perSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.total} | ${r.failures} | ${r.serverCpuMicros} | ${r.load} |`,
    )
  }
}

if (process.argv[2] === '--serve') {
  await serve(
    process.argv[3] as string,
    process.argv[4] as string,
    process.argv[5] as string,
    process.argv[6] as string,
  )
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printAuthResults(await benchAuth())
}
