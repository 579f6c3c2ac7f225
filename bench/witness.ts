/**
 * Witness benchmark (`npm run bench:witness`; figures in docs/performance/journal.md "Control plane: log witness").
 *
 * One control plane instance (a CHILD process, production config, SQLite file, cosigning on) witnesses
 * BENCH_WITNESS_REGISTRIES simulated honest registries (default 1,000), each polled every
 * BENCH_WITNESS_INTERVAL_SECONDS (default 10). A second child process simulates the registries: one loopback HTTPS
 * server (throwaway openssl CA, SNI `r<i>.reg.test`), every registry with its own did:web identity, Ed25519
 * receipt key and growing Merkle tree, answering capabilities, DID document, checkpoint and consistency proofs.
 *
 * Reported over BENCH_WITNESS_SECONDS (default 60, after one warm-up interval): observations per second against
 * the schedule's demand (registries / interval), results by kind, alerts raised (must be 0), the control plane's
 * CPU per observation and share of one core, RSS and heap at the start and end of the window (bounded memory),
 * the server event-loop delay. Loopback only; every phase is bounded in time; both children are stopped.
 */
import { execFileSync, type ChildProcess, fork } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const REGISTRIES = Number(process.env['BENCH_WITNESS_REGISTRIES'] ?? 1000)
const INTERVAL_SECONDS = Number(process.env['BENCH_WITNESS_INTERVAL_SECONDS'] ?? 10)
const SECONDS = Number(process.env['BENCH_WITNESS_SECONDS'] ?? 60)
const CONCURRENCY = Number(process.env['BENCH_WITNESS_CONCURRENCY'] ?? 64)
/** Registry simulator processes (each serves a slice of the registries on its own port). */
const SIM_PROCS = Number(process.env['BENCH_WITNESS_SIM_PROCS'] ?? 2)
const DOMAIN = 'reg.test'
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef'
const TENANT = 'bench'

interface Pki {
  caPem: string
  keyPem: string
  certPem: string
}

/** A throwaway CA and a `*.reg.test` server certificate (openssl CLI; keys never leave the temp dir). */
function createPki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-pki-'))
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  try {
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ca.key')
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      '/CN=bench CA',
      '-days',
      '1',
      '-out',
      'ca.crt',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    )
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'server.key')
    openssl('req', '-new', '-key', 'server.key', '-subj', `/CN=${DOMAIN}`, '-out', 'server.csr')
    writeFileSync(join(dir, 'server.ext'), `subjectAltName=DNS:*.${DOMAIN}\nextendedKeyUsage=serverAuth\n`)
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      'server.ext',
      '-out',
      'server.crt',
    )
    const read = (name: string) => readFileSync(join(dir, name), 'utf8')
    return { caPem: read('ca.crt'), keyPem: read('server.key'), certPem: read('server.crt') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Child 1: the simulated registries

async function serveRegistries(pki: Pki, first: number, count: number): Promise<void> {
  const p = await import('@acdp/protocol')
  interface Registry {
    authority: string
    did: string
    logId: string
    seed: Uint8Array
    tree: InstanceType<typeof p.MemoryMerkleTree>
    signed: { size: number; second: number; body: string } | undefined
    didDocument: string
  }
  const registries = new Map<string, Registry>()
  const server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const registry = registries.get((req.headers.host ?? '').toLowerCase())
    if (registry === undefined) return void res.writeHead(404).end()
    const url = new URL(req.url ?? '/', 'https://x')
    const send = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)
    if (url.pathname === '/.well-known/acdp.json') {
      return send(JSON.stringify({ registry_did: registry.did, profiles: ['acdp-registry-transparency-log'] }))
    }
    if (url.pathname === '/.well-known/did.json') return send(registry.didDocument)
    if (url.pathname === '/log/checkpoint') return send(checkpointBody(registry))
    if (url.pathname === '/log/proof') {
      const first = Number(url.searchParams.get('first'))
      const second = Number(url.searchParams.get('second'))
      if (!(first > 0 && first <= second && second <= registry.tree.size)) return void res.writeHead(400).end()
      return send(
        JSON.stringify({
          log_id: registry.logId,
          first_tree_size: first,
          second_tree_size: second,
          consistency_path: registry.tree.proveConsistency(first, second).map(p.formatSha256),
        }),
      )
    }
    res.writeHead(404).end()
  })
  server.keepAliveTimeout = 60_000
  // Connections the witness opened (and how many resumed a TLS session): keep-alive reuse shows as few of them.
  const tls = { connections: 0, resumed: 0 }
  server.on('secureConnection', (socket) => {
    tls.connections += 1
    if (socket.isSessionReused()) tls.resumed += 1
  })

  /** A registry re-signs its head at most once per second (RFC-ACDP-0012 §7.2 allows reuse). */
  function checkpointBody(registry: Registry): string {
    const second = Math.floor(Date.now() / 1000)
    if (registry.signed?.size === registry.tree.size && registry.signed.second === second) return registry.signed.body
    const checkpoint = p.signCheckpoint(
      p.buildCheckpoint({
        logId: registry.logId,
        treeSize: registry.tree.size,
        rootHash: registry.tree.computeRoot(),
        timestamp: new Date(),
      }),
      { algorithm: 'ed25519', keyId: `${registry.did}#receipt-key-1`, privateKey: registry.seed },
    )
    registry.signed = { size: registry.tree.size, second, body: JSON.stringify(checkpoint) }
    return registry.signed.body
  }

  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const port = (server.address() as AddressInfo).port
  for (let i = first; i < first + count; i++) {
    const authority = `r${i}.${DOMAIN}:${port}`
    const did = p.registryDidForAuthority(authority)
    const seed = new Uint8Array(32).fill(7)
    new DataView(seed.buffer).setUint32(0, i + 1)
    const keyId = `${did}#receipt-key-1`
    const tree = new p.MemoryMerkleTree()
    tree.appendLeaf(new TextEncoder().encode(`${authority} leaf 0`))
    registries.set(authority, {
      authority,
      did,
      logId: p.formatLogId(did, '1'),
      seed,
      tree,
      signed: undefined,
      didDocument: JSON.stringify({
        id: did,
        verificationMethod: [
          {
            id: keyId,
            type: 'Ed25519VerificationKey2020',
            controller: did,
            publicKeyMultibase: p.encodeMultibaseKey({
              algorithm: 'ed25519',
              publicKey: p.ed25519PublicKeyFromSeed(seed),
            }),
          },
        ],
        assertionMethod: [keyId],
      }),
    })
  }
  // Every registry grows: each second, a tenth of them append one to three leaves.
  let tick = 0
  setInterval(() => {
    tick += 1
    for (const registry of registries.values()) {
      if ((registry.tree.size + tick) % 10 === 0) {
        for (let k = 0; k <= tick % 3; k++)
          registry.tree.appendLeaf(new TextEncoder().encode(`${registry.authority} ${registry.tree.size}`))
      }
    }
  }, 1000).unref()
  process.send?.({ port, authorities: [...registries.keys()] })
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage()
      process.send?.({ cpuMicros: user + system, tlsConnections: tls.connections, tlsResumed: tls.resumed })
    } else if (message === 'stop') {
      server.close(() => process.exit(0))
      server.closeAllConnections()
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Child 2: the control plane

async function serveControlPlane(pki: Pki, dataDir: string): Promise<void> {
  const { loadConfig, startControlPlane } = await import('@acdp/control-plane')
  const { createOutboundClient } = await import('@acdp/protocol')
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    WEBHOOK_SECRET: 'bench-webhook-secret-0123456789abcdef',
    AUTH_ADMIN_API_KEYS: ADMIN_KEY,
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 42).toString('base64'),
    DATA_DIR: dataDir,
    LOG_WITNESS_ENABLED: 'true',
    LOG_WITNESS_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
    LOG_WITNESS_CONCURRENCY: String(CONCURRENCY),
    WITNESS_COSIGNING_ENABLED: 'true',
    WITNESS_ID: 'did:web:witness.bench',
    PUBLIC_HOST: 'witness.bench',
    WITNESS_SIGNING_PRIVATE_KEY_PEM: generateKeyPairSync('ed25519')
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
  })
  // The registries live on loopback: an explicit client trusting the bench CA and resolving only *.reg.test.
  const outbound = createOutboundClient({
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [pki.caPem],
    // As the app builds its own client: the production keep-alive pool bound (OUTBOUND_MAX_POOLS).
    maxPools: config.outbound.maxPools,
    lookup: async (hostname: string) => {
      if (hostname.endsWith(`.${DOMAIN}`)) return [{ address: '127.0.0.1', family: 4 as const }]
      throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    },
  })
  const running = await startControlPlane(config, { outbound })
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  process.send?.({ url: running.url })
  process.on('message', (message) => {
    if (message === 'sample') {
      // Retained memory, not garbage awaiting collection (the child runs with --expose-gc).
      ;(globalThis as { gc?: () => void }).gc?.()
      const { user, system } = process.cpuUsage()
      const memory = process.memoryUsage()
      process.send?.({ cpuMicros: user + system, rss: memory.rss, heapUsed: memory.heapUsed })
    } else if (message === 'reset-loop') {
      loopDelay.reset()
    } else if (message === 'stop') {
      loopDelay.disable()
      process.send?.({
        loopP50Ms: loopDelay.percentile(50) / 1e6,
        loopP99Ms: loopDelay.percentile(99) / 1e6,
        loopMaxMs: loopDelay.max / 1e6,
      })
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Parent

function start<T>(args: string[]): Promise<{ child: ChildProcess; first: T }> {
  // BENCH_CPU_PROF=1: the control plane child writes a .cpuprofile into $TMPDIR/acdp-bench-profiles.
  const profile =
    process.env['BENCH_CPU_PROF'] === '1' && args[0] === '--control-plane'
      ? ['--cpu-prof', '--cpu-prof-dir', join(tmpdir(), 'acdp-bench-profiles')]
      : []
  const child = fork(fileURLToPath(import.meta.url), args, { stdio: 'inherit', execArgv: ['--expose-gc', ...profile] })
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, first: m as T }))
    child.once('exit', (code) => reject(new Error(`child ${args[0]} exited with ${code}`)))
  })
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T))
    child.send(message)
  })
}

async function metricValue(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`))
  return line === undefined ? 0 : Number(line.split(' ').pop())
}

async function main(): Promise<void> {
  const pki = createPki()
  const pkiFile = join(mkdtempSync(join(tmpdir(), 'acdp-bench-witness-')), 'pki.json')
  writeFileSync(pkiFile, JSON.stringify(pki))
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-bench-witness-data-'))
  const perProc = Math.ceil(REGISTRIES / SIM_PROCS)
  const sims = await Promise.all(
    Array.from({ length: SIM_PROCS }, (_, p) =>
      start<{ port: number; authorities: string[] }>([
        '--registries',
        pkiFile,
        String(p * perProc),
        String(Math.max(0, Math.min(perProc, REGISTRIES - p * perProc))),
      ]),
    ),
  )
  const authorities = sims.flatMap((s) => s.first.authorities)
  const cp = await start<{ url: string }>(['--control-plane', pkiFile, dataDir])
  const url = cp.first.url
  /** The simulators' CPU and the TLS connections they accepted, summed. */
  const simStats = async () =>
    (
      await Promise.all(
        sims.map((s) => ask<{ cpuMicros: number; tlsConnections: number; tlsResumed: number }>(s.child, 'cpu')),
      )
    ).reduce(
      (sum, c) => ({
        cpuMicros: sum.cpuMicros + c.cpuMicros,
        tlsConnections: sum.tlsConnections + c.tlsConnections,
        tlsResumed: sum.tlsResumed + c.tlsResumed,
      }),
      { cpuMicros: 0, tlsConnections: 0, tlsResumed: 0 },
    )
  try {
    // Enroll through the API, as an operator would.
    for (let i = 0; i < authorities.length; i += 50) {
      await Promise.all(
        authorities.slice(i, i + 50).map(async (authority) => {
          const res = await fetch(`${url}/registries/enroll`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${ADMIN_KEY}`,
              'x-tenant-id': TENANT,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ authority, baseUrl: `https://${authority}` }),
          })
          if (res.status !== 200) throw new Error(`enroll ${authority}: ${res.status}`)
        }),
      )
    }
    console.log(
      `witness bench: ${REGISTRIES} registries (${SIM_PROCS} simulator processes), interval ${INTERVAL_SECONDS} s, concurrency ${CONCURRENCY}`,
    )
    // Warm-up: two intervals (the first observation of each log also resolves its DID document).
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_SECONDS * 1000 + 2000))
    const labels = (result: string) => `result="${result}"`
    const before = {
      sim: await simStats(),
      witnessed: await metricValue(url, 'acdp_log_witness_checks_total', labels('witnessed')),
      sample: await ask<{ cpuMicros: number; rss: number; heapUsed: number }>(cp.child, 'sample'),
      at: performance.now(),
    }
    cp.child.send('reset-loop')
    const load = loadavg()
    let maxRss = before.sample.rss
    const samples = Math.max(1, Math.floor(SECONDS / 5))
    for (let i = 0; i < samples; i++) {
      await new Promise((resolve) => setTimeout(resolve, (SECONDS * 1000) / samples))
      maxRss = Math.max(maxRss, (await ask<{ rss: number }>(cp.child, 'sample')).rss)
    }
    const after = {
      sim: await simStats(),
      witnessed: await metricValue(url, 'acdp_log_witness_checks_total', labels('witnessed')),
      failures: await metricValue(url, 'acdp_log_witness_checks_total', labels('failure')),
      alerts: await metricValue(url, 'acdp_log_witness_checks_total', labels('alert')),
      sample: await ask<{ cpuMicros: number; rss: number; heapUsed: number }>(cp.child, 'sample'),
      at: performance.now(),
    }
    const elapsed = (after.at - before.at) / 1000
    const observed = after.witnessed - before.witnessed
    const cpuSeconds = (after.sample.cpuMicros - before.sample.cpuMicros) / 1e6
    const loop = await ask<{ loopP50Ms: number; loopP99Ms: number; loopMaxMs: number }>(cp.child, 'stop')
    const mib = (bytes: number) => (bytes / 1048576).toFixed(0)
    console.log(
      [
        `  observations: ${(observed / elapsed).toFixed(1)}/s witnessed (demand ${(REGISTRIES / INTERVAL_SECONDS).toFixed(1)}/s) over ${elapsed.toFixed(0)} s`,
        `  totals since start: failures ${after.failures}, alerts ${after.alerts}`,
        `  control plane CPU: ${((cpuSeconds * 1e6) / Math.max(1, observed)).toFixed(0)} µs per observation, ${((100 * cpuSeconds) / elapsed).toFixed(0)} % of one core`,
        `  registry simulator CPU: ${((100 * (after.sim.cpuMicros - before.sim.cpuMicros)) / 1e6 / elapsed).toFixed(0)} % of one core`,
        `  TLS connections opened by the witness: ${after.sim.tlsConnections - before.sim.tlsConnections} in the window (${after.sim.tlsResumed - before.sim.tlsResumed} resumed sessions), ${after.sim.tlsConnections} since start`,
        `  control plane memory: RSS ${mib(before.sample.rss)} → ${mib(after.sample.rss)} MiB (max ${mib(maxRss)}), heap after GC ${mib(before.sample.heapUsed)} → ${mib(after.sample.heapUsed)} MiB`,
        `  event-loop delay: p50 ${loop.loopP50Ms.toFixed(0)} ms, p99 ${loop.loopP99Ms.toFixed(0)} ms, max ${loop.loopMaxMs.toFixed(0)} ms`,
        `  load average at start: ${load.map((l) => l.toFixed(2)).join(' ')}; at end: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      ].join('\n'),
    )
  } finally {
    for (const s of sims) s.child.send('stop')
    // Give the control plane its graceful shutdown (and its CPU profile), bounded.
    if (cp.child.exitCode === null) {
      const exited = new Promise((resolve) => cp.child.once('exit', resolve))
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))])
      if (cp.child.exitCode === null) cp.child.kill('SIGTERM')
    }
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(pkiFile, { force: true })
  }
}

const role = process.argv[2]
if (role === '--registries') {
  await serveRegistries(
    JSON.parse(readFileSync(process.argv[3] as string, 'utf8')) as Pki,
    Number(process.argv[4]),
    Number(process.argv[5]),
  )
} else if (role === '--control-plane') {
  await serveControlPlane(JSON.parse(readFileSync(process.argv[3] as string, 'utf8')) as Pki, process.argv[4] as string)
} else {
  await main()
}
