/**
 * The per-agent write budget under concurrency (`limits.publish_rate_per_minute`, RFC-ACDP-0008 §4.3; product spec
 * behaviour 6): requests from one agent that are in flight together can never spend more than the budget. The
 * budget is peeked before verification (an agent already over it costs no DID work) and a token is TAKEN
 * atomically once the signature is proven, so a burst that passes the peek together still gets exactly the budget
 * admitted. Memory budget always; the shared PostgreSQL budget (`rate_limit.backend = "postgres"`) with
 * ACDP_TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto'
import { type LifecycleEvent, signLifecycleEvent } from '@acdp/protocol'
import { type Database, openPostgresTestSchema, testDatabaseUrl } from '@acdp/storage'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { RegistryConfigInput } from '../src/core/config.js'
import { createRegistryMetrics, type RegistryMetrics } from '../src/core/metrics.js'
import { openSharedRateLimitStore, type SharedRateLimitStore } from '../src/rate-limit/rate-limit-store.js'
import {
  countRows,
  didKeyProducer,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const BUDGET = 5
const BURST = 20
const enc = encodeURIComponent

const start = useTestRegistry()
const url = testDatabaseUrl()
if (url === undefined) {
  console.log('[agent write budget] shared PostgreSQL budget skipped: set ACDP_TEST_DATABASE_URL')
}

interface Backend {
  name: string
  open(config: RegistryConfigInput, metrics: RegistryMetrics): Promise<TestRegistry>
  /** A minute passes for the budget (the shared bucket refills on the database clock: emptied instead). */
  refill(r: TestRegistry): Promise<void>
}

const stores: SharedRateLimitStore[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

const memory: Backend = {
  name: 'memory',
  open: (config, metrics) => start({ config, deps: { metrics } }),
  refill: async (r) => r.clock.advance(60_000),
}

/** The registry on a throwaway PostgreSQL schema, its per-agent budget in that schema's rate_limit_bucket. */
const shared: Backend = {
  name: 'postgres (shared)',
  async open(config, metrics) {
    const databaseUrl = url as string
    const database = (await openPostgresTestSchema(databaseUrl)) as Database<unknown>
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)
    const schema = (rows[0] as { schema: string }).schema
    // Its own pool on the same schema, as in production; it connects on first use (after the harness migrates).
    const store = await openSharedRateLimitStore({ url: databaseUrl, timeoutMs: 5000, schema })
    stores.push(store)
    return start({
      openDatabase: async () => database,
      config: {
        ...config,
        storage: { backend: 'postgres', postgres_url: databaseUrl },
        rate_limit: { enabled: true, backend: 'postgres', global_per_minute: 10_000, backend_timeout_ms: 5000 },
      },
      deps: { metrics, sharedRateLimits: store },
    })
  },
  async refill(r) {
    r.clock.advance(60_000)
    await sql`delete from rate_limit_bucket`.execute(r.database.db)
  },
}

const backends = url === undefined ? [memory] : [memory, shared]

function signed(p: Producer, title: string) {
  return signRequest(p, minimalUnsigned(p, { title }))
}

function signedEvent(r: TestRegistry, p: Producer, ctxId: string): LifecycleEvent {
  return signLifecycleEvent(
    {
      event_id: randomUUID(),
      ctx_id: ctxId,
      event_type: 'retracted',
      occurred_at: new Date(r.clock.nowMs).toISOString(),
      actor: p.did,
    },
    { algorithm: p.algorithm, keyId: p.keyId, privateKey: p.privateKey },
  )
}

const retract = (r: TestRegistry, ctxId: string, event: LifecycleEvent) =>
  r.app.inject({
    method: 'POST',
    url: `/contexts/${enc(ctxId)}/retract`,
    headers: { 'content-type': 'application/acdp+json' },
    payload: JSON.stringify({ event }),
  })

async function rejections(metrics: RegistryMetrics, scope: string): Promise<number> {
  const text = await metrics.registry.metrics()
  const line = text.split('\n').find((l) => l.startsWith(`acdp_registry_rate_limit_rejections_total{scope="${scope}"}`))
  return line === undefined ? 0 : Number(line.split(' ').pop())
}

describe.each(backends)('per-agent write budget under concurrency ($name)', (backend) => {
  it(`admits exactly ${BUDGET} of ${BURST} concurrent publishes from one agent and refuses the rest with 429`, async () => {
    const metrics = createRegistryMetrics()
    const r = await backend.open({ limits: { publish_rate_per_minute: BUDGET } }, metrics)
    // did:web: verification waits on a DID fetch, so the whole burst is in flight past the peek together.
    const p = didWebProducer(`did:web:agents.example.com:${randomUUID()}`)
    r.dids.host([p])
    const before = await countRows(r.database)
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => publish(r.app, signed(p, `burst ${i}`))))
    const codes = answers.map((a) => a.statusCode)
    expect(codes.filter((c) => c === 201)).toHaveLength(BUDGET)
    expect(codes.filter((c) => c === 429)).toHaveLength(BURST - BUDGET)
    for (const limited of answers.filter((a) => a.statusCode === 429)) {
      expect(limited.json().error).toMatchObject({
        code: 'rate_limited',
        details: { agent_id: p.did, scope: 'publish_per_agent' },
      })
      const retryAfter = Number(limited.headers['retry-after'])
      expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true)
      expect(limited.json().error.details.retry_after_seconds).toBe(retryAfter)
    }
    expect(Number((await countRows(r.database)).context)).toBe(Number(before.context) + BUDGET)
    expect(await rejections(metrics, 'publish_per_agent')).toBe(BURST - BUDGET)
    // Another agent's bucket is its own.
    expect((await publish(r.app, signed(didKeyProducer(), 'other'))).statusCode).toBe(201)
  })

  it(`admits exactly ${BUDGET} of ${BURST} concurrent lifecycle events from one producer`, async () => {
    const metrics = createRegistryMetrics()
    const r = await backend.open({ lifecycle: { enabled: true }, limits: { publish_rate_per_minute: BUDGET } }, metrics)
    const p = didWebProducer(`did:web:agents.example.com:${randomUUID()}`)
    r.dids.host([p])
    const ids: string[] = []
    // Publishing draws on the same bucket: BUDGET contexts a minute.
    while (ids.length < BURST) {
      for (let i = 0; i < BUDGET && ids.length < BURST; i++) {
        const res = await publish(r.app, signed(p, `ctx ${ids.length}`))
        expect(res.statusCode).toBe(201)
        ids.push(res.json().ctx_id as string)
      }
      await backend.refill(r)
    }
    const answers = await Promise.all(ids.map((id) => retract(r, id, signedEvent(r, p, id))))
    const codes = answers.map((a) => a.statusCode)
    expect(codes.filter((c) => c === 200)).toHaveLength(BUDGET)
    expect(codes.filter((c) => c === 429)).toHaveLength(BURST - BUDGET)
    for (const limited of answers.filter((a) => a.statusCode === 429)) {
      expect(limited.json().error.code).toBe('rate_limited')
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    const retracted = await Promise.all(
      ids.map(async (id) => (await r.app.inject({ method: 'GET', url: `/contexts/${enc(id)}` })).json()),
    )
    expect(retracted.filter((c) => c.registry_state.status === 'retracted')).toHaveLength(BUDGET)
    expect(await rejections(metrics, 'lifecycle_per_agent')).toBe(BURST - BUDGET)
  })
})
