/**
 * Registry bearer-auth benchmark (`npm run bench:registry-auth`; figures in docs/performance.md). In-process
 * through `app.inject` (no sockets), so it measures the registry's own handling cost of:
 *
 *   1. token issuance: POST /auth/challenge → sign → POST /auth/token (did:key agents, HS256);
 *   2. GET /contexts/<ctx_id> anonymous vs with a bearer (JWT verification + revocation lookup).
 *
 * SQLite file in a temp dir. BENCH_OPERATIONS (default 2000 per phase). Prints the load average beside each
 * figure: on a shared machine the numbers are only comparable with each other.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { didKeyKeyId, encodeBase64, encodeDidKey, generateSigningKey, signEd25519 } from '@acdp/protocol'
import { resolveConfig, startRegistry } from '@acdp/registry'

const OPERATIONS = Number(process.env['BENCH_OPERATIONS'] ?? 2000)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-registry-auth-'))
const registry = await startRegistry(
  resolveConfig({
    registry: { authority: 'bench.registry.test', log_level: 'silent' },
    storage: { backend: 'sqlite', sqlite_path: join(dir, 'registry.db') },
    auth: { enabled: true, jwt_secret: randomBytes(32).toString('base64') },
    limits: { challenge_rate_per_minute: 0, publish_rate_per_minute: 0 },
    rate_limit: { enabled: false },
  }),
)
const app = registry.app
const agents = Array.from({ length: 16 }, () => {
  const key = generateSigningKey('ed25519')
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey: key.publicKey })
  return { did, keyId: didKeyKeyId(did), seed: key.privateKey }
})
const json = { 'content-type': 'application/json' }

async function issue(agent: (typeof agents)[number]): Promise<string> {
  const challenge = (
    await app.inject({ method: 'POST', url: '/auth/challenge', headers: json, payload: { agent_id: agent.did } })
  ).json() as { nonce: string; expires_at: string; signing_input: string }
  const signature = encodeBase64(signEd25519(agent.seed, new TextEncoder().encode(challenge.signing_input)))
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

async function phase(name: string, run: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < 50; i++) await run(i)
  const started = process.hrtime.bigint()
  for (let i = 0; i < OPERATIONS; i++) await run(i)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(
    `${name.padEnd(34)} ${(OPERATIONS / seconds).toFixed(0).padStart(7)} ops/s  ${((seconds / OPERATIONS) * 1e6).toFixed(0).padStart(6)} µs/op  load ${load()}`,
  )
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

  await phase('token issuance (challenge + token)', async (i) => {
    await issue(agents[i % agents.length] as (typeof agents)[number])
  })
  await phase('GET /contexts/{id} anonymous', async () => {
    const res = await app.inject({ url })
    if (res.statusCode !== 200) throw new Error(String(res.statusCode))
  })
  await phase('GET /contexts/{id} with bearer', async () => {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } })
    if (res.statusCode !== 200) throw new Error(String(res.statusCode))
  })
} finally {
  await registry.close()
  rmSync(dir, { recursive: true, force: true })
}

async function signedMinimal(agent: (typeof agents)[number]): Promise<string> {
  const { computeContentHash, signContentHash } = await import('@acdp/protocol')
  const unsigned = {
    version: 1,
    supersedes: null,
    agent_id: agent.did,
    contributors: [],
    title: 'bench',
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
