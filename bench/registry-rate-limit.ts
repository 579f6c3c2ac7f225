/**
 * Shared rate-limit backend benchmark (`npm run bench:registry-rate-limit`; figures in docs/performance/journal.md "Shared rate-limit backend"): what
 * `rate_limit.backend = "postgres"` adds to a rate-limited request. POST /auth/challenge through `app.inject` on a
 * registry with PostgreSQL storage, once with memory budgets and once with shared ones (per-IP, global and
 * per-agent challenge: three bucket statements per request), interleaved A B B A. Budgets are far above the load,
 * so nothing is refused. Prints µs/op, this process's CPU per op and the load average.
 *
 * Needs BENCH_DATABASE_URL or ACDP_TEST_DATABASE_URL; uses a throwaway schema. BENCH_OPERATIONS per phase
 * (default 2000).
 */
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { didKeyKeyId, encodeDidKey, generateSigningKey } from '@acdp/protocol'
import { resolveConfig, startRegistry } from '@acdp/registry'
import pg from 'pg'

const url = process.env['BENCH_DATABASE_URL'] ?? process.env['ACDP_TEST_DATABASE_URL']
if (!url) {
  console.log('bench:registry-rate-limit needs BENCH_DATABASE_URL (or ACDP_TEST_DATABASE_URL)')
  process.exit(2)
}
const OPERATIONS = Number(process.env['BENCH_OPERATIONS'] ?? 2000)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

const schema = `acdp_bench_rl_${randomBytes(4).toString('hex')}`
const admin = new pg.Client({ connectionString: url })
await admin.connect()
await admin.query(`create schema ${schema}`)
const scoped = new URL(url)
scoped.searchParams.set('options', `-c search_path=${schema}`)

const agents = Array.from({ length: 64 }, () => {
  const key = generateSigningKey('ed25519')
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey: key.publicKey })
  return { did, keyId: didKeyKeyId(did) }
})

async function phase(backend: 'memory' | 'postgres'): Promise<{ usPerOp: number; cpuUsPerOp: number }> {
  const registry = await startRegistry(
    resolveConfig({
      registry: { authority: 'bench.registry.test', log_level: 'silent' },
      storage: { backend: 'postgres', postgres_url: scoped.href, max_connections: 8 },
      auth: { enabled: true, jwt_secret: randomBytes(32).toString('base64') },
      limits: { challenge_rate_per_minute: 1_000_000_000 },
      rate_limit: { backend, per_ip_per_minute: 1_000_000_000, global_per_minute: 1_000_000_000 },
    }),
  )
  try {
    const request = (i: number) =>
      registry.app.inject({
        method: 'POST',
        url: '/auth/challenge',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ agent_id: agents[i % agents.length]?.did }),
      })
    for (let i = 0; i < 100; i++) await request(i) // warm-up (connections, prepared statements, JIT)
    const cpu = process.cpuUsage()
    const started = process.hrtime.bigint()
    for (let i = 0; i < OPERATIONS; i++) {
      const res = await request(i)
      if (res.statusCode !== 200) throw new Error(`challenge answered ${res.statusCode}: ${res.body}`)
    }
    const elapsedUs = Number(process.hrtime.bigint() - started) / 1000
    const used = process.cpuUsage(cpu)
    return { usPerOp: elapsedUs / OPERATIONS, cpuUsPerOp: (used.user + used.system) / OPERATIONS }
  } finally {
    await registry.close()
  }
}

try {
  for (const backend of ['memory', 'postgres', 'postgres', 'memory'] as const) {
    const { usPerOp, cpuUsPerOp } = await phase(backend)
    console.log(
      `POST /auth/challenge, rate_limit.backend = ${backend.padEnd(8)}: ${Math.round(1e6 / usPerOp)} ops/s, ` +
        `${Math.round(usPerOp)} µs/op, ${Math.round(cpuUsPerOp)} µs CPU/op (this process) — load ${load()}`,
    )
  }
} finally {
  await admin.query(`drop schema ${schema} cascade`)
  await admin.end()
}
