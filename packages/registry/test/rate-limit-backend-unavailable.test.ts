/**
 * `rate_limit.backend_unavailable` through the app (product spec "Limits"): when the shared backend cannot be
 * reached, "allow" keeps serving on each process's own (memory) budget — an outage degrades to per-process
 * limits, never to none — and "deny" refuses /auth/* with 429 and `Retry-After: 1`. The backend here is a
 * PostgreSQL address nothing listens on, so this runs without a database.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { RegistryConfigInput } from '../src/core/config.js'
import { createRegistryMetrics } from '../src/core/metrics.js'
import { openSharedRateLimitStore, type SharedRateLimitStore } from '../src/rate-limit/rate-limit-store.js'
import { postJson } from './support/bearer-login.js'
import { didKeyProducer, useTestRegistry } from './support/registry-harness.js'

const SECRET = Buffer.from('an HS256 test secret of at least thirty-two bytes').toString('base64')

describe('shared rate-limit backend unavailable', () => {
  const start = useTestRegistry()
  let store: SharedRateLimitStore | undefined
  let silent: Server | undefined
  const sockets: Socket[] = []
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy()
    await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()))
    silent = undefined
    await store?.close()
    store = undefined
  })

  /** A port that accepts connections and never says a word: the database is "slow", not down. */
  async function silentPort(): Promise<number> {
    const server = createServer((socket) => sockets.push(socket))
    silent = server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    return typeof address === 'object' && address !== null ? address.port : 0
  }

  async function registryWith(policy: 'allow' | 'deny', port: number) {
    const url = `postgres://postgres@127.0.0.1:${port}/none`
    store = await openSharedRateLimitStore({ url, timeoutMs: 100 })
    const config: RegistryConfigInput = {
      auth: { enabled: true, jwt_secret: SECRET },
      // The app reads the backend choice from here; the harness's own store stays SQLite in memory.
      storage: { backend: 'postgres', postgres_url: url },
      rate_limit: { backend: 'postgres', backend_unavailable: policy, backend_timeout_ms: 100, per_ip_per_minute: 2 },
    }
    return start({ config, deps: { sharedRateLimits: store, metrics: createRegistryMetrics() } })
  }

  const challenge = (app: Awaited<ReturnType<typeof registryWith>>['app']) =>
    postJson(app, '/auth/challenge', { agent_id: didKeyProducer().did })

  it.each([
    ['refused (nothing listens)', async () => 1],
    ['silent (connections hang)', silentPort],
  ])('"allow" admits on the memory budget alone when the database is %s', async (_what, port) => {
    const r = await registryWith('allow', await port())
    expect((await challenge(r.app)).statusCode).toBe(200)
    expect((await challenge(r.app)).statusCode).toBe(200)
    const third = await challenge(r.app)
    expect(third.statusCode).toBe(429)
    expect(third.json().error.code).toBe('rate_limited')
  })

  it('"deny" refuses with 429 and Retry-After: 1, storing no challenge', async () => {
    const r = await registryWith('deny', await silentPort())
    const res = await challenge(r.app)
    expect(res.statusCode).toBe(429)
    expect(res.headers['retry-after']).toBe('1')
    expect(res.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } })
    const rows = await r.database.db.selectFrom('auth_challenge').select('nonce').execute()
    expect(rows).toEqual([])
    const exposition = await (r.deps.metrics as ReturnType<typeof createRegistryMetrics>).registry.metrics()
    expect(exposition).toMatch(/acdp_registry_rate_limit_shared_total\{scope="auth_request",outcome="timeout"\} 1/)
    expect(exposition).toMatch(/acdp_registry_rate_limit_rejections_total\{scope="auth_per_ip"\} 1/)
  })
})
