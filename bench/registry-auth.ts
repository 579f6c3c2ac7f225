/**
 * Registry bearer-auth benchmark (`npm run bench:registry-auth`; figures in docs/performance/journal.md "Bearer authentication (2026-11-24)"). In-process
 * through `app.inject` (no sockets), so it measures the registry's own handling cost of:
 *
 *   1. token issuance: POST /auth/challenge → sign → POST /auth/token (did:key agents, HS256), one client and
 *      then BENCH_ISSUANCE_CONCURRENCY clients at once (default 8);
 *   2. GET /contexts/<ctx_id> anonymous vs with a bearer (JWT verification + revocation lookup);
 *   3. POST /contexts with auth off vs on (a bearer verified on every publish), interleaved A B B A on two
 *      registries started side by side, bodies signed before the clock starts.
 *
 * SQLite files in a temp dir. BENCH_OPERATIONS (default 2000 per phase). Each line prints wall time per operation,
 * the process CPU time per operation (`process.cpuUsage`: on a loaded machine the meaningful one) and the load
 * average: on a shared machine the numbers are only comparable with each other.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { didKeyKeyId, encodeBase64, encodeDidKey, generateSigningKey, signEd25519 } from '@acdp/protocol'
import { resolveConfig, startRegistry } from '@acdp/registry'

const OPERATIONS = Number(process.env['BENCH_OPERATIONS'] ?? 2000)
/** Clients issuing tokens at once in the concurrent issuance phase (BENCH_ISSUANCE_CONCURRENCY, default 8). */
const ISSUANCE_CONCURRENCY = Number(process.env['BENCH_ISSUANCE_CONCURRENCY'] ?? 8)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-registry-auth-'))
const startBenchRegistry = (name: string, authEnabled: boolean) =>
  startRegistry(
    resolveConfig({
      registry: { authority: 'bench.registry.test', log_level: 'silent' },
      storage: { backend: 'sqlite', sqlite_path: join(dir, `${name}.db`) },
      auth: authEnabled ? { enabled: true, jwt_secret: randomBytes(32).toString('base64') } : {},
      limits: { challenge_rate_per_minute: 0, publish_rate_per_minute: 0 },
      rate_limit: { enabled: false },
    }),
  )
const registry = await startBenchRegistry('auth-on', true)
const openRegistry = await startBenchRegistry('auth-off', false)
const app = registry.app
const agents = Array.from({ length: 16 }, () => {
  const key = generateSigningKey('ed25519')
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey: key.publicKey })
  return { did, keyId: didKeyKeyId(did), seed: key.privateKey }
})
const json = { 'content-type': 'application/json' }

/** CPU spent by the bench's agents signing challenges (subtracted for the registry's own cost per token). */
let clientSigningCpuMicros = 0

async function issue(agent: (typeof agents)[number]): Promise<string> {
  const challenge = (
    await app.inject({ method: 'POST', url: '/auth/challenge', headers: json, payload: { agent_id: agent.did } })
  ).json() as { nonce: string; expires_at: string; signing_input: string }
  // The agent's own work (its signature) is timed apart: in production it runs on the agent's machine.
  const clientCpu = process.cpuUsage()
  const signature = encodeBase64(signEd25519(agent.seed, new TextEncoder().encode(challenge.signing_input)))
  const spent = process.cpuUsage(clientCpu)
  clientSigningCpuMicros += spent.user + spent.system
  const res = await app.inject({
    method: 'POST',
    url: '/auth/token',
    headers: json,
    payload: {
      agent_id: agent.did,
      key_id: agent.keyId,
      nonce: challenge.nonce,
      expires_at: challenge.expires_at,
      algorithm: 'ed25519',
      signature,
    },
  })
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`)
  return (res.json() as { token: string }).token
}

async function phase(name: string, run: (i: number) => Promise<void>, warmUp = 50, concurrency = 1): Promise<number> {
  for (let i = 0; i < warmUp; i++) await run(i)
  const cpuBefore = process.cpuUsage()
  const started = process.hrtime.bigint()
  // `concurrency` clients share the operations, each awaiting its own answer before its next request.
  let next = 0
  const client = async () => {
    for (let i = next++; i < OPERATIONS; i = next++) await run(warmUp + i)
  }
  await Promise.all(Array.from({ length: concurrency }, client))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = process.cpuUsage(cpuBefore)
  const cpuMicros = (cpu.user + cpu.system) / OPERATIONS
  console.log(
    `${name.padEnd(36)} ${(OPERATIONS / seconds).toFixed(0).padStart(7)} ops/s  ${((seconds / OPERATIONS) * 1e6).toFixed(0).padStart(6)} µs/op  ${cpuMicros.toFixed(0).padStart(6)} µs CPU/op  load ${load()}`,
  )
  return cpuMicros
}

/** Publish bodies for `agent`, signed up front so the timed loop measures the registry only. */
async function signedBodies(agent: (typeof agents)[number], count: number, tag: string): Promise<string[]> {
  const bodies: string[] = []
  for (let i = 0; i < count; i++) bodies.push(await signedMinimal(agent, `bench ${tag} ${i}`))
  return bodies
}

/** POST /contexts over `bodies` on `target`, with `authorization` when given; every answer must be 201. */
function publishPhase(target: typeof app, bodies: string[], authorization?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/acdp+json' }
  if (authorization !== undefined) headers['authorization'] = authorization
  return async (i: number) => {
    const res = await target.inject({ method: 'POST', url: '/contexts', headers, payload: bodies[i] as string })
    if (res.statusCode !== 201) throw new Error(`publish: ${res.statusCode} ${res.body}`)
  }
}

try {
  const token = await issue(agents[0] as (typeof agents)[number])
  const published = await app.inject({
    method: 'POST',
    url: '/contexts',
    headers: { 'content-type': 'application/acdp+json', authorization: `Bearer ${token}` },
    payload: await signedMinimal(agents[0] as (typeof agents)[number]),
  })
  if (published.statusCode !== 201) throw new Error(`publish: ${published.statusCode} ${published.body}`)
  const url = `/contexts/${encodeURIComponent((published.json() as { ctx_id: string }).ctx_id)}`

  clientSigningCpuMicros = 0
  const issuanceCpu = await phase('token issuance (challenge + token)', async (i) => {
    await issue(agents[i % agents.length] as (typeof agents)[number])
  })
  // Several clients at once: the Ed25519 checks run on libuv's pool, so a second core takes part.
  await phase(
    `token issuance, ${ISSUANCE_CONCURRENCY} clients at once`,
    async (i) => {
      await issue(agents[i % agents.length] as (typeof agents)[number])
    },
    50,
    ISSUANCE_CONCURRENCY,
  )
  // The phase's warm-up issued 50 tokens too; their signatures are in the client total.
  const registryCpu = issuanceCpu - clientSigningCpuMicros / (OPERATIONS + 50)
  console.log(
    `token issuance, registry side only: ${registryCpu.toFixed(0)} µs CPU/token → ${(1e6 / registryCpu).toFixed(0)} tokens/s per core`,
  )
  await phase('GET /contexts/{id} anonymous', async () => {
    const res = await app.inject({ url })
    if (res.statusCode !== 200) throw new Error(String(res.statusCode))
  })
  await phase('GET /contexts/{id} with bearer', async () => {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } })
    if (res.statusCode !== 200) throw new Error(String(res.statusCode))
  })

  // Publish, auth off (A) vs on (B), interleaved A B B A; each phase its own bodies (every publish is new).
  const publisher = agents[1] as (typeof agents)[number]
  const publisherToken = `Bearer ${await issue(publisher)}`
  const warmUp = 50
  // Both registries' publish paths warmed (JIT) before the first timed round, so round 1 is not the cold one.
  for (const [target, authorization] of [
    [openRegistry.app, undefined],
    [app, publisherToken],
  ] as const) {
    const bodies = await signedBodies(publisher, 300, `warm ${authorization === undefined ? 'off' : 'on'}`)
    const run = publishPhase(target, bodies, authorization)
    for (let i = 0; i < bodies.length; i++) await run(i)
  }
  const cpu = { off: [] as number[], on: [] as number[] }
  for (const [round, mode] of (['off', 'on', 'on', 'off'] as const).entries()) {
    const bodies = await signedBodies(publisher, warmUp + OPERATIONS, `${mode} ${round}`)
    const run = mode === 'off' ? publishPhase(openRegistry.app, bodies) : publishPhase(app, bodies, publisherToken)
    cpu[mode].push(await phase(`POST /contexts auth ${mode}`, run, warmUp))
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
  console.log(
    `publish CPU/op with auth on vs off: ${(((mean(cpu.on) - mean(cpu.off)) / mean(cpu.off)) * 100).toFixed(1)} %`,
  )
} finally {
  await registry.close()
  await openRegistry.close()
  rmSync(dir, { recursive: true, force: true })
}

async function signedMinimal(agent: (typeof agents)[number], title = 'bench'): Promise<string> {
  const { computeContentHash, signContentHash } = await import('@acdp/protocol')
  const unsigned = {
    // did:key producers arrived in 0.2.0; a body without acdp_version is 0.1.0 (did:web only).
    acdp_version: '0.2.0',
    version: 1,
    supersedes: null,
    agent_id: agent.did,
    contributors: [],
    title,
    type: 'data_snapshot',
    data_refs: [],
    derived_from: [],
    visibility: 'public',
  }
  const contentHash = computeContentHash(unsigned)
  const value = signContentHash({ algorithm: 'ed25519', privateKey: agent.seed, contentHash })
  return JSON.stringify({
    ...unsigned,
    content_hash: contentHash,
    signature: { algorithm: 'ed25519', key_id: agent.keyId, value },
  })
}
