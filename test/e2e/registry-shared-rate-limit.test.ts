/**
 * Two registry processes (the built bin, real sockets) on one PostgreSQL share one rate-limit budget
 * (`rate_limit.backend = "postgres"`; issue 10 "Limits"): a burst of /auth/challenge requests spread over both
 * is admitted exactly `global_per_minute` times in all, and every other request gets 429 with Retry-After.
 * Needs ACDP_TEST_DATABASE_URL and the build (`npm run build`); without the database it prints one line and skips.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDatabaseUrl } from '@acdp/storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CrashBackend, openCrashBackend } from '../crash/backends.js'
import { BINS, freePort, ServiceProcess } from '../crash/service-process.js'

const url = testDatabaseUrl()
if (url === undefined) {
  console.log('[shared rate limit, two processes] skipped: set ACDP_TEST_DATABASE_URL to run it')
}

/** One token every 15 s: the burst below ends long before a single token comes back. */
const GLOBAL_PER_MINUTE = 4
const REQUESTS = 16
const SECRET = randomBytes(32).toString('base64')

function registryToml(port: number, postgresUrl: string): string {
  return [
    '[registry]',
    'authority = "registry.example.com"',
    `port = ${port}`,
    'bind = "127.0.0.1"',
    'log_level = "warn"',
    '[storage]',
    'backend = "postgres"',
    `postgres_url = "${postgresUrl}"`,
    '[auth]',
    'enabled = true',
    `jwt_secret = "${SECRET}"`,
    '[limits]',
    'challenge_rate_per_minute = 1000',
    '[rate_limit]',
    'backend = "postgres"',
    'per_ip_per_minute = 1000',
    `global_per_minute = ${GLOBAL_PER_MINUTE}`,
  ].join('\n')
}

describe.skipIf(url === undefined)('two registry processes on one PostgreSQL', () => {
  let backend: CrashBackend | undefined
  let dir: string | undefined
  const processes: ServiceProcess[] = []

  beforeAll(async () => {
    backend = await openCrashBackend('postgres', 'ratelimit')
    dir = mkdtempSync(join(tmpdir(), 'acdp-shared-rate-limit-'))
    for (const name of ['a', 'b']) {
      const port = await freePort()
      const path = join(dir, `${name}.toml`)
      writeFileSync(path, registryToml(port, backend.postgresUrl))
      processes.push(new ServiceProcess({ bin: BINS.registry, args: ['--config', path], env: {}, port }))
    }
    // One after the other: both migrate the same database (the second finds it current).
    for (const process of processes) await process.start()
  }, 200_000)

  afterAll(async () => {
    for (const process of processes) await process.stop()
    await backend?.dispose()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it('admits global_per_minute requests in all and answers the rest 429 with Retry-After', async () => {
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const target = processes[i % 2] as ServiceProcess
        const agent = `did:key:z6Mk${randomBytes(16).toString('hex')}`
        const res = await fetch(`${target.baseUrl}/auth/challenge`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ agent_id: agent }),
        })
        const body = (await res.json()) as { error?: { code: string } }
        return { port: target.spec.port, status: res.status, retryAfter: res.headers.get('retry-after'), body }
      }),
    )
    const admitted = answers.filter((a) => a.status !== 429)
    const refused = answers.filter((a) => a.status === 429)
    expect(admitted).toHaveLength(GLOBAL_PER_MINUTE)
    expect(refused).toHaveLength(REQUESTS - GLOBAL_PER_MINUTE)
    for (const answer of refused) {
      expect(answer.body.error?.code).toBe('rate_limited')
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    // Both processes answered, so neither budget alone explains the total.
    expect(new Set(answers.map((a) => a.port)).size).toBe(2)
  })
})
