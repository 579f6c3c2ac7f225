/**
 * The shared rate-limit backend (`rate_limit.backend = "postgres"`, migration 0006) against a real PostgreSQL:
 * the bucket statements' contract (atomic takes, peek writes nothing, charge never below zero, refill on the
 * database clock, pruning) and the budget's `backend_timeout_ms` / `backend_unavailable` behaviour when another
 * connection holds the bucket table's lock. Needs ACDP_TEST_DATABASE_URL; without it, one line says so.
 */
import { type Database, openPostgresTestSchema, testDatabaseUrl } from '@acdp/storage'
import { sql } from 'kysely'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { SharedRateBudget } from '../src/rate-limit/shared-rate-budget.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import { openSharedRateLimitStore, type SharedRateLimitStore } from '../src/rate-limit/rate-limit-store.js'
import type { RegistryDatabase } from '../src/store/schema.js'

const url = testDatabaseUrl()
if (url === undefined) {
  console.log('[shared rate limit] skipped: set ACDP_TEST_DATABASE_URL to run the PostgreSQL backend contract')
}

describe.skipIf(url === undefined)('shared rate-limit store on postgres', () => {
  let database: Database<RegistryDatabase> | undefined
  const stores: SharedRateLimitStore[] = []
  const clients: pg.Client[] = []
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end()
    for (const store of stores.splice(0)) await store.close()
    await database?.close()
    database = undefined
  })

  /** A migrated throwaway schema and `count` stores (separate pools, as separate instances have) on it. */
  async function open(count = 1, timeoutMs = 2000): Promise<{ schema: string; stores: SharedRateLimitStore[] }> {
    database = (await openPostgresTestSchema(url as string)) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)
    const schema = (rows[0] as { schema: string }).schema
    const opened = await Promise.all(
      Array.from({ length: count }, () => openSharedRateLimitStore({ url: url as string, timeoutMs, schema })),
    )
    stores.push(...opened)
    return { schema, stores: opened }
  }

  async function bucketRows(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from rate_limit_bucket`.execute(
      (database as Database<RegistryDatabase>).db,
    )
    return (rows[0] as { n: number }).n
  }

  it('admits exactly the budget, then refuses with the tokens left; scopes and keys are separate buckets', async () => {
    const [store] = (await open()).stores as [SharedRateLimitStore]
    const takes = []
    for (let i = 0; i < 4; i++) takes.push(await store.take('auth_global', 'global', 3))
    expect(takes.map((t) => t.admitted)).toEqual([true, true, true, false])
    expect(takes[3]?.tokens).toBeLessThan(1)
    expect((await store.take('auth_per_ip', 'global', 3)).admitted).toBe(true)
    expect((await store.take('auth_global', 'other', 3)).admitted).toBe(true)
  })

  it('never admits more than the global budget to concurrent /auth/* requests on separate pools', async () => {
    const [a, b] = (await open(2)).stores as [SharedRateLimitStore, SharedRateLimitStore]
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? a : b).takeInOrder(
          { scope: 'auth_per_ip', key: `203.0.113.${i}`, perMinute: 5 },
          { scope: 'auth_global', key: 'global', perMinute: 7 },
        ),
      ),
    )
    expect(results.filter((r) => r.second?.admitted === true)).toHaveLength(7)
  })

  it('never admits more than the budget to concurrent takers on separate pools', async () => {
    const [a, b] = (await open(2)).stores as [SharedRateLimitStore, SharedRateLimitStore]
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).take('auth_global', 'global', 10)),
    )
    expect(results.filter((r) => r.admitted)).toHaveLength(10)
  })

  it('takes two buckets in order in one statement: the second only when the first admitted', async () => {
    const [store] = (await open()).stores as [SharedRateLimitStore]
    const ip = (key: string) => ({ scope: 'auth_per_ip', key, perMinute: 1 }) as const
    const global = { scope: 'auth_global', key: 'global', perMinute: 2 } as const
    const first = await store.takeInOrder(ip('198.51.100.1'), global)
    expect([first.first.admitted, first.second?.admitted]).toEqual([true, true])
    // The address is empty: the global bucket is not touched.
    const again = await store.takeInOrder(ip('198.51.100.1'), global)
    expect([again.first.admitted, again.second]).toEqual([false, undefined])
    const second = await store.takeInOrder(ip('198.51.100.2'), global)
    expect([second.first.admitted, second.second?.admitted]).toEqual([true, true])
    // The global bucket is empty: the address's token is spent, the request refused.
    const third = await store.takeInOrder(ip('198.51.100.3'), global)
    expect([third.first.admitted, third.second?.admitted]).toEqual([true, false])
    expect(third.second?.tokens).toBeLessThan(1)
    await expect(store.takeInOrder(global, global)).rejects.toBeInstanceOf(TypeError)
  })

  it('peeks without writing, charges without going below zero', async () => {
    const [store] = (await open()).stores as [SharedRateLimitStore]
    expect(await store.peek('agent_write', 'did:key:z6Mkpeek', 2)).toBe(2)
    expect(await bucketRows()).toBe(0)
    for (let i = 0; i < 4; i++) await store.charge('agent_write', 'did:key:z6Mkpeek', 2)
    const left = await store.peek('agent_write', 'did:key:z6Mkpeek', 2)
    expect(left).toBeGreaterThanOrEqual(0)
    expect(left).toBeLessThan(1)
    expect((await store.take('agent_write', 'did:key:z6Mkpeek', 2)).admitted).toBe(false)
  })

  it('refills a bucket last touched a minute ago (database clock), and prunes only such buckets', async () => {
    const [store] = (await open()).stores as [SharedRateLimitStore]
    for (let i = 0; i < 2; i++) await store.take('auth_per_ip', '203.0.113.9', 2)
    await store.take('auth_per_ip', '203.0.113.10', 2)
    expect((await store.take('auth_per_ip', '203.0.113.9', 2)).admitted).toBe(false)
    // A minute passes for this bucket only: its last update moves 60 s into the past.
    await sql`update rate_limit_bucket set updated_at_ms = updated_at_ms - 60000 where bucket_key = '203.0.113.9'`.execute(
      (database as Database<RegistryDatabase>).db,
    )
    expect(await store.peek('auth_per_ip', '203.0.113.9', 2)).toBe(2)
    expect(await store.prune()).toBe(1)
    expect(await bucketRows()).toBe(1)
    expect((await store.take('auth_per_ip', '203.0.113.9', 2)).admitted).toBe(true)
  })

  it('refuses on the per-process bucket without asking the database once this instance used the budget', async () => {
    const [store] = (await open()).stores as [SharedRateLimitStore]
    const outcomes: string[] = []
    const budget = new SharedRateBudget({
      scope: 'challenge_per_agent',
      perMinute: 2,
      store,
      timeoutMs: 2000,
      unavailable: 'allow',
      observe: (_scope, outcome) => outcomes.push(outcome),
    })
    const agent = 'did:key:z6Mkprefilter'
    expect([await budget.take(agent, 0), await budget.take(agent, 0)]).toEqual([0, 0])
    expect(await budget.take(agent, 0)).toBeGreaterThanOrEqual(1)
    expect(await budget.retryAfterSeconds(agent, 0)).toBeGreaterThanOrEqual(1)
    expect(outcomes).toEqual(['admitted', 'admitted'])
    // Another instance's budget object (its own pre-filter) still asks, and the shared bucket refuses it.
    const other = new SharedRateBudget({
      scope: 'challenge_per_agent',
      perMinute: 2,
      store,
      timeoutMs: 2000,
      unavailable: 'allow',
      observe: (_scope, outcome) => outcomes.push(outcome),
    })
    expect(await other.take(agent, 0)).toBeGreaterThanOrEqual(1)
    expect(outcomes).toEqual(['admitted', 'admitted', 'refused'])
  })

  describe('when the database is slow (another connection holds a lock on the bucket table)', () => {
    async function holdBucketLock(schema: string): Promise<pg.Client> {
      const client = new pg.Client({ connectionString: url as string, options: `-c search_path=${schema}` })
      await client.connect()
      clients.push(client)
      await client.query('begin')
      // Blocks readers too: every statement of the limiter waits on it.
      await client.query('lock table rate_limit_bucket in access exclusive mode')
      return client
    }

    it('gives up on the statement within backend_timeout_ms, server side', async () => {
      const {
        schema,
        stores: [store],
      } = (await open(1, 200)) as { schema: string; stores: [SharedRateLimitStore] }
      await holdBucketLock(schema)
      await expect(store.take('auth_global', 'global', 5)).rejects.toThrow(/lock timeout|statement timeout/)
    })

    it.each([
      ['allow', 0],
      ['deny', 1],
    ] as const)(
      'backend_unavailable = %s answers %i (seconds to wait) and reports the failure',
      async (policy, wait) => {
        const {
          schema,
          stores: [store],
        } = (await open(1, 200)) as { schema: string; stores: [SharedRateLimitStore] }
        await holdBucketLock(schema)
        const failures: string[] = []
        const budget = new SharedRateBudget({
          scope: 'auth_global',
          perMinute: 5,
          store,
          timeoutMs: 200,
          unavailable: policy,
          onUnavailable: (scope) => failures.push(scope),
        })
        expect(await budget.take('global', 0)).toBe(wait)
        expect(await budget.retryAfterSeconds('global', 0)).toBe(wait)
        await budget.charge('global', 0)
        expect(failures).toEqual(['auth_global', 'auth_global', 'auth_global'])
      },
    )
  })
})
