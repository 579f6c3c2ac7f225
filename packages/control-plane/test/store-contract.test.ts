/**
 * Store contract suite: the same behaviour on every dialect (SQLite always; PostgreSQL with
 * ACDP_TEST_DATABASE_URL). Each test opens a fresh database.
 */
import { type Database, migrateToLatest, testDatabaseTargets } from '@acdp/storage'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CONTROL_PLANE_MIGRATIONS } from '../src/store/migrations/index.js'
import type { ControlPlaneTables } from '../src/store/schema.js'
import type { ControlPlaneStore, NewEvent } from '../src/store/store.js'
import { buildPublishEvent } from './support/new-event.js'
import { openMigratedStore } from './support/store-targets.js'

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
const BUCKET = 300_000

let seq = 0
function event(overrides: Partial<NewEvent> = {}): NewEvent {
  seq += 1
  const identity = {
    tenantId: 'tenant-a',
    dedupKey: `evt:${seq}`,
    eventId: `${seq}`,
    ctxId: `acdp://reg.example/ctx-${seq}`,
    runId: 'run-1',
    agentId: 'did:key:z6MkAgent',
    registryBaseUrl: 'https://reg.example',
    eventTs: T0,
    receivedAt: T0,
  }
  return buildPublishEvent(identity, overrides)
}

describe.each(testDatabaseTargets())('store contract on $name', (target) => {
  let store: ControlPlaneStore
  let database: Database<ControlPlaneTables>
  let migrationTable: string

  beforeEach(async () => {
    ;({ store, database, migrationTable } = await openMigratedStore(target))
  })
  afterEach(async () => {
    await store.close()
  })

  it('migrations are idempotent: a second run applies nothing', async () => {
    const again = await migrateToLatest(database, [...CONTROL_PLANE_MIGRATIONS], { table: migrationTable })
    expect(again.applied).toEqual([])
  })

  it('records an event and returns its id; the same dedup key again writes nothing', async () => {
    const first = event({ dedupKey: 'evt:dup' })
    const id = await store.recordEvent(first)
    expect(typeof id).toBe('number')
    expect(await store.recordEvent({ ...first, ctxId: 'acdp://reg.example/other' })).toBeUndefined()
    const rows = await store.listEvents({ tenantId: 'tenant-a', order: 'asc', limit: 10 })
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ id, ctxId: first.ctxId, type: 'context_published', rawPayload: '{}' })
    const run = await store.getRun('tenant-a', 'run-1')
    expect(run).toMatchObject({ eventsCount: 1, contextsCount: 1, registries: ['reg.example'] })
    expect((await store.getAgent('tenant-a', 'did:key:z6MkAgent'))?.eventCount).toBe(1)
    expect((await store.listRegistries('tenant-a'))[0]?.eventCount).toBe(1)
  })

  it('the same dedup key in another tenant is a different event', async () => {
    await store.recordEvent(event({ dedupKey: 'evt:x' }))
    expect(await store.recordEvent(event({ dedupKey: 'evt:x', tenantId: 'tenant-b' }))).toBeTypeOf('number')
  })

  it('rolls back every projection when the in-transaction hook fails', async () => {
    await expect(
      store.recordEvent(event({ dedupKey: 'evt:rollback' }), async () => {
        throw new Error('outbox unavailable')
      }),
    ).rejects.toThrow('outbox unavailable')
    expect(await store.listEvents({ tenantId: 'tenant-a', order: 'asc', limit: 10 })).toEqual([])
    expect(await store.getRun('tenant-a', 'run-1')).toBeUndefined()
    expect(await store.getAgent('tenant-a', 'did:key:z6MkAgent')).toBeUndefined()
    // The dedup key was rolled back too, so the retry succeeds.
    expect(await store.recordEvent(event({ dedupKey: 'evt:rollback' }))).toBeTypeOf('number')
  })

  it('list reads never see the rows of a batch still open: they wait for it or read around it', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    let hookStarted: () => void = () => {}
    const started = new Promise<void>((resolve) => (hookStarted = resolve))
    // The hook holds the batch's transaction open (its event row and run are written), then fails it.
    const write = store.recordEvent(event({ dedupKey: 'evt:open', runId: 'open-run' }), async () => {
      hookStarted()
      await gate
      throw new Error('outbox unavailable')
    })
    await started
    const events = store.listEvents({ tenantId: 'tenant-a', order: 'desc', limit: 10 })
    const runs = store.listRuns({ tenantId: 'tenant-a', limit: 10, offset: 0 })
    release()
    await expect(write).rejects.toThrow('outbox unavailable')
    expect(await events).toEqual([])
    expect(await runs).toEqual({ runs: [], total: 0 })
  })

  it('hands the hook the open transaction so its writes commit with the event', async () => {
    let seenId = -1
    const id = await store.recordEvent(event(), async (tx, eventId) => {
      seenId = eventId
      const count = await tx
        .selectFrom('context_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      expect(Number(count.n)).toBe(1)
    })
    expect(seenId).toBe(id)
  })

  it('50 concurrent first events of one run give one run with exact counters', async () => {
    const events = Array.from({ length: 50 }, (_, i) =>
      event({
        runId: 'run-race',
        registryAuthority: i % 2 === 0 ? 'a.example' : 'b.example',
        agentId: `did:key:agent-${i % 5}`,
        isPublish: i % 10 !== 0,
        type: i % 10 !== 0 ? 'context_published' : 'context_retrieved',
      }),
    )
    const ids = await Promise.all(events.map((e) => store.recordEvent(e)))
    expect(new Set(ids).size).toBe(50)
    const run = await store.getRun('tenant-a', 'run-race')
    expect(run).toMatchObject({ eventsCount: 50, contextsCount: 45, registries: ['a.example', 'b.example'] })
    const { agents, total } = await store.listAgents({ tenantId: 'tenant-a', limit: 50, offset: 0 })
    expect(total).toBe(5)
    expect(agents.reduce((sum, a) => sum + a.eventCount, 0)).toBe(50)
    const registries = await store.listRegistries('tenant-a')
    expect(registries.reduce((sum, r) => sum + r.eventCount, 0)).toBe(50)
  })

  it('events written concurrently (one batch) keep their own outcomes: a failing hook fails only its event', async () => {
    const events = Array.from({ length: 10 }, () => event({ runId: 'batch' }))
    const results = await Promise.allSettled(
      events.map((e, i) =>
        store.recordEvent(e, async () => {
          if (i === 3) throw new Error('hook failed for one event')
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(events.map((_, i) => (i === 3 ? 'rejected' : 'fulfilled')))
    expect((await store.getRun('tenant-a', 'batch'))?.eventsCount).toBe(9)
    expect(await store.listEvents({ tenantId: 'tenant-a', order: 'asc', limit: 50 })).toHaveLength(9)
  })

  it('the same dedup key twice in one batch stores one row; the second is the duplicate', async () => {
    const first = event({ dedupKey: 'evt:twice', runId: 'twice' })
    const [a, b] = await Promise.all([store.recordEvent(first), store.recordEvent({ ...first })])
    expect(typeof a).toBe('number')
    expect(b).toBeUndefined()
    expect((await store.getRun('tenant-a', 'twice'))?.eventsCount).toBe(1)
  })

  it('a batch aggregates counters per key exactly, across tenants, runs and buckets', async () => {
    const events = [
      event({ runId: 'r1', registryAuthority: 'a.example', receivedAt: T0 }),
      event({ runId: 'r1', registryAuthority: 'b.example', receivedAt: T0 + BUCKET }),
      event({ runId: 'r1', tenantId: 'tenant-b', receivedAt: T0 }),
      event({
        runId: 'r2',
        type: 'context_retrieved',
        isPublish: false,
        agentId: null,
        didMethod: null,
        receivedAt: T0,
      }),
    ]
    await Promise.all(events.map((e) => store.recordEvent(e)))
    expect(await store.getRun('tenant-a', 'r1')).toMatchObject({
      eventsCount: 2,
      contextsCount: 2,
      registries: ['a.example', 'b.example'],
      startedAt: T0,
      updatedAt: T0 + BUCKET,
    })
    expect(await store.getRun('tenant-b', 'r1')).toMatchObject({ eventsCount: 1 })
    expect(await store.getRun('tenant-a', 'r2')).toMatchObject({ eventsCount: 1, contextsCount: 0 })
    expect((await store.getAgent('tenant-a', 'did:key:z6MkAgent'))?.eventCount).toBe(2)
    const agg = await store.loadDashboard({ tenantId: 'tenant-a', since: 0, bucketSince: 0 })
    expect(agg.didMethods).toEqual([{ method: 'key', publishCount: 2 }])
  })

  it('stores lineage edges once per (from, to) and lists them by run', async () => {
    const child = event({
      ctxId: 'acdp://reg.example/child',
      derivedFrom: ['acdp://reg.example/p2', 'acdp://reg.example/p1'],
    })
    await store.recordEvent(child)
    await store.recordEvent({ ...child, dedupKey: 'evt:again' })
    const edges = await store.listRunEdges('tenant-a', 'run-1')
    expect(edges).toEqual([
      { from: 'acdp://reg.example/p1', to: 'acdp://reg.example/child' },
      { from: 'acdp://reg.example/p2', to: 'acdp://reg.example/child' },
    ])
    expect(await store.listRunEdges('tenant-b', 'run-1')).toEqual([])
  })

  it('lists run publications in event order, one node per ctx id, with the lifecycle state', async () => {
    await store.recordEvent(event({ ctxId: 'acdp://r/2', eventTs: T0 + 2000 }))
    await store.recordEvent(event({ ctxId: 'acdp://r/1', eventTs: T0 + 1000 }))
    await store.recordEvent(event({ ctxId: 'acdp://r/1', eventTs: T0 + 3000 }))
    await store.recordEvent(event({ type: 'context_retrieved', isPublish: false, ctxId: 'acdp://r/3', agentId: null }))
    await store.recordEvent(
      event({
        type: 'context_retracted',
        isPublish: false,
        ctxId: 'acdp://r/2',
        runId: null,
        eventTs: T0 + 5000,
        lifecycle: { retracted: true, actor: 'did:key:z', reason: 'oops' },
      }),
    )
    const nodes = await store.listRunPublications('tenant-a', 'run-1')
    expect(nodes.map((n) => [n.ctxId, n.retracted])).toEqual([
      ['acdp://r/1', false],
      ['acdp://r/2', true],
    ])
  })

  it('marks a run publication superseded when a later version of its lineage exists in the tenant only', async () => {
    const lineage = { lineageId: 'acdp://r/l1' }
    await store.recordEvent(event({ ...lineage, ctxId: 'acdp://r/l1', version: 1, eventTs: T0 + 1000 }))
    await store.recordEvent(event({ ...lineage, ctxId: 'acdp://r/l1v2', version: 2, eventTs: T0 + 2000 }))
    await store.recordEvent(event({ lineageId: 'acdp://r/l3', ctxId: 'acdp://r/l3', version: 1, eventTs: T0 + 3000 }))
    // A later version in another tenant or only retrieved there supersedes nothing here.
    await store.recordEvent(
      event({ lineageId: 'acdp://r/l3', ctxId: 'acdp://r/l3v2', version: 2, tenantId: 'tenant-b', runId: 'run-9' }),
    )
    await store.recordEvent(
      event({
        type: 'context_retrieved',
        isPublish: false,
        lineageId: 'acdp://r/l3',
        ctxId: 'acdp://r/l3v9',
        version: 9,
      }),
    )
    const nodes = await store.listRunPublications('tenant-a', 'run-1')
    expect(nodes.map((n) => [n.ctxId, n.superseded, n.lineageId, n.version])).toEqual([
      ['acdp://r/l1', true, 'acdp://r/l1', 1],
      ['acdp://r/l1v2', false, 'acdp://r/l1', 2],
      ['acdp://r/l3', false, 'acdp://r/l3', 1],
    ])
  })

  it('applies lifecycle events by event time: an older event never overwrites a newer one', async () => {
    const retract = { retracted: true, actor: null, reason: null }
    const republish = { retracted: false, actor: null, reason: null }
    const base = { type: 'context_retracted', isPublish: false, ctxId: 'acdp://r/9', runId: null }
    await store.recordEvent(event({ ...base, eventTs: T0 + 2000, lifecycle: republish }))
    await store.recordEvent(event({ ...base, eventTs: T0 + 1000, lifecycle: retract }))
    const agg = await store.loadDashboard({ tenantId: 'tenant-a', since: 0, bucketSince: 0 })
    expect(agg.totalRetracted).toBe(0)
    await store.recordEvent(event({ ...base, eventTs: T0 + 3000, lifecycle: retract }))
    expect((await store.loadDashboard({ tenantId: 'tenant-a', since: 0, bucketSince: 0 })).totalRetracted).toBe(1)
  })

  it('keyset pagination over equal timestamps returns every row exactly once, both directions', async () => {
    for (let i = 0; i < 25; i++) await store.recordEvent(event({ eventTs: T0 + (i % 3) * 1000, runId: null }))
    for (const order of ['asc', 'desc'] as const) {
      const seen: number[] = []
      let after: { eventTs: number; id: number } | undefined
      for (;;) {
        const page = await store.listEvents({ tenantId: 'tenant-a', order, limit: 4, ...(after ? { after } : {}) })
        seen.push(...page.map((r) => r.id))
        const last = page.at(-1)
        if (page.length < 4 || last === undefined) break
        after = { eventTs: last.eventTs, id: last.id }
      }
      expect(seen).toHaveLength(25)
      expect(new Set(seen).size).toBe(25)
    }
  })

  it('filters events by run, type, agent, registry and time range', async () => {
    await store.recordEvent(event({ runId: 'r1', agentId: 'did:a', registryAuthority: 'x.example', eventTs: T0 }))
    await store.recordEvent(
      event({ runId: 'r2', type: 'search_executed', isPublish: false, agentId: null, eventTs: T0 + 10 }),
    )
    await store.recordEvent(event({ runId: 'r1', agentId: 'did:b', eventTs: T0 + 20 }))
    const q = { tenantId: 'tenant-a', order: 'asc' as const, limit: 10 }
    expect(await store.listEvents({ ...q, runId: 'r1' })).toHaveLength(2)
    expect(await store.listEvents({ ...q, eventType: 'search_executed' })).toHaveLength(1)
    expect(await store.listEvents({ ...q, agentId: 'did:b' })).toHaveLength(1)
    expect(await store.listEvents({ ...q, registryAuthority: 'x.example' })).toHaveLength(1)
    expect(await store.listEvents({ ...q, fromTs: T0 + 10 })).toHaveLength(2)
    expect(await store.listEvents({ ...q, beforeTs: T0 + 10 })).toHaveLength(1)
    expect(await store.listEvents({ ...q, tenantId: 'tenant-b' })).toEqual([])
  })

  it('listEventKeys lists the ids and times of listEvents in its order; getEventsById reads them within the tenant', async () => {
    for (let i = 0; i < 7; i++) await store.recordEvent(event({ eventTs: T0 + (i % 3) * 1000, runId: `r${i % 2}` }))
    await store.recordEvent(event({ tenantId: 'tenant-b', eventTs: T0 }))
    const queries = [
      { tenantId: 'tenant-a', order: 'desc' as const, limit: 5 },
      { tenantId: 'tenant-a', order: 'asc' as const, limit: 3, runId: 'r1' },
      { tenantId: 'tenant-a', order: 'desc' as const, limit: 4, after: { eventTs: T0 + 1000, id: 5 } },
    ]
    for (const query of queries) {
      const rows = await store.listEvents(query)
      expect(await store.listEventKeys(query)).toEqual(rows.map((r) => ({ id: r.id, eventTs: r.eventTs })))
      const byId = await store.getEventsById(
        'tenant-a',
        rows.map((r) => r.id),
      )
      expect([...byId].sort((a, b) => a.id - b.id)).toEqual([...rows].sort((a, b) => a.id - b.id))
    }
    const [other] = await store.listEvents({ tenantId: 'tenant-b', order: 'asc', limit: 1 })
    expect(other).toBeDefined()
    expect(await store.getEventsById('tenant-a', [other!.id])).toEqual([])
    expect(await store.getEventsById('tenant-a', [])).toEqual([])
  })

  it('startRun creates a running run; a later event keeps the announced scenario', async () => {
    await store.startRun({
      tenantId: 'tenant-a',
      runId: 'r',
      scenarioId: 'sc-1',
      startedAt: T0 - 5000,
      inputs: '{"q":1}',
      now: T0,
    })
    await store.recordEvent(event({ runId: 'r', scenarioId: 'sc-other' }))
    expect(await store.getRun('tenant-a', 'r')).toMatchObject({
      scenarioId: 'sc-1',
      status: 'running',
      startedAt: T0 - 5000,
      inputsJson: '{"q":1}',
      eventsCount: 1,
    })
  })

  it('an event fills in an unknown scenario; startRun after the first event overwrites it', async () => {
    await store.recordEvent(event({ runId: 'r', scenarioId: null }))
    expect((await store.getRun('tenant-a', 'r'))?.scenarioId).toBe('unknown')
    await store.recordEvent(event({ runId: 'r', scenarioId: 'from-event' }))
    expect((await store.getRun('tenant-a', 'r'))?.scenarioId).toBe('from-event')
    await store.startRun({
      tenantId: 'tenant-a',
      runId: 'r',
      scenarioId: 'announced',
      startedAt: null,
      inputs: null,
      now: T0,
    })
    expect(await store.getRun('tenant-a', 'r')).toMatchObject({
      scenarioId: 'announced',
      startedAt: T0,
      eventsCount: 2,
    })
  })

  it('completeRun sets the terminal status and result, creating the run when absent', async () => {
    await store.completeRun({ tenantId: 'tenant-a', runId: 'late', status: 'failed', result: '{"e":"x"}', now: T0 })
    expect(await store.getRun('tenant-a', 'late')).toMatchObject({
      status: 'failed',
      resultJson: '{"e":"x"}',
      completedAt: T0,
    })
    await store.completeRun({ tenantId: 'tenant-a', runId: 'late', status: 'completed', result: null, now: T0 + 1 })
    expect(await store.getRun('tenant-a', 'late')).toMatchObject({
      status: 'completed',
      resultJson: null,
      completedAt: T0 + 1,
    })
  })

  it('lists runs newest first with filters, limit, offset and an exact total', async () => {
    for (let i = 0; i < 7; i++) {
      await store.startRun({
        tenantId: 'tenant-a',
        runId: `run-${i}`,
        scenarioId: i % 2 === 0 ? 'even' : 'odd',
        startedAt: T0 + i,
        inputs: null,
        now: T0,
      })
    }
    await store.completeRun({ tenantId: 'tenant-a', runId: 'run-6', status: 'completed', result: null, now: T0 })
    const page = await store.listRuns({ tenantId: 'tenant-a', limit: 3, offset: 1 })
    expect(page.total).toBe(7)
    expect(page.runs.map((r) => r.runId)).toEqual(['run-5', 'run-4', 'run-3'])
    expect((await store.listRuns({ tenantId: 'tenant-a', scenarioId: 'odd', limit: 50, offset: 0 })).total).toBe(3)
    const done = await store.listRuns({ tenantId: 'tenant-a', status: 'completed', limit: 50, offset: 0 })
    expect(done.runs.map((r) => r.runId)).toEqual(['run-6'])
    expect((await store.listRuns({ tenantId: 'tenant-b', limit: 50, offset: 0 })).total).toBe(0)
  })

  it('lists runs: equal start times by run id, sorted registry sets, combined filters, a page past the end', async () => {
    // Three runs started in the same millisecond (one burst of events), listed by run id within it.
    for (const runId of ['b', 'c', 'a']) {
      await store.startRun({ tenantId: 'tenant-a', runId, scenarioId: 's', startedAt: T0, inputs: null, now: T0 })
    }
    await store.startRun({
      tenantId: 'tenant-a',
      runId: 'z',
      scenarioId: 's',
      startedAt: T0 - 1,
      inputs: '[1]',
      now: T0,
    })
    await store.startRun({ tenantId: 'tenant-b', runId: 'a', scenarioId: 's', startedAt: T0, inputs: null, now: T0 })
    for (const registryAuthority of ['zeta.example:8443', 'alpha.example', 'mid.example']) {
      await store.recordEvent(event({ runId: 'a', registryAuthority }))
    }
    await store.recordEvent(event({ tenantId: 'tenant-b', runId: 'a', registryAuthority: 'other.example' }))
    const all = await store.listRuns({ tenantId: 'tenant-a', limit: 10, offset: 0 })
    expect(all.total).toBe(4)
    expect(all.runs.map((r) => r.runId)).toEqual(['a', 'b', 'c', 'z'])
    expect(all.runs[0]?.registries).toEqual(['alpha.example', 'mid.example', 'zeta.example:8443'])
    expect(all.runs[1]?.registries).toEqual([])
    expect(all.runs[3]).toMatchObject({ inputsJson: '[1]', resultJson: null, startedAt: T0 - 1 })
    const window = {
      tenantId: 'tenant-a',
      scenarioId: 's',
      status: 'running' as const,
      startedFrom: T0,
      startedBefore: T0 + 1,
    }
    const second = await store.listRuns({ ...window, limit: 1, offset: 1 })
    expect(second.runs.map((r) => r.runId)).toEqual(['b'])
    expect(second.total).toBe(3)
    expect(await store.listRuns({ ...window, limit: 5, offset: 3 })).toEqual({ runs: [], total: 3 })
    expect(await store.listRuns({ ...window, startedFrom: T0 + 1, limit: 5, offset: 0 })).toEqual({
      runs: [],
      total: 0,
    })
  })

  it('enrollment upsert keeps omitted members, clears explicit nulls, and is tenant-listed', async () => {
    const created = await store.upsertEnrollment({
      authority: 'reg.example',
      tenantId: 'tenant-a',
      baseUrl: 'https://reg.example',
      registryDid: 'did:web:reg.example',
      webhookSecretSealed: 'sealed-1',
      now: T0,
    })
    expect(created).toMatchObject({ enabled: true, createdAt: T0, updatedAt: T0, webhookSecretSealed: 'sealed-1' })
    const updated = await store.upsertEnrollment({
      authority: 'reg.example',
      tenantId: 'tenant-a',
      enabled: false,
      registryDid: null,
      now: T0 + 5,
    })
    expect(updated).toMatchObject({
      baseUrl: 'https://reg.example',
      registryDid: null,
      webhookSecretSealed: 'sealed-1',
      enabled: false,
      createdAt: T0,
      updatedAt: T0 + 5,
    })
    expect(await store.listEnrollments('tenant-a')).toHaveLength(1)
    expect(await store.listEnrollments('tenant-b')).toEqual([])
    expect((await store.getEnrollment('reg.example'))?.enabled).toBe(false)
    expect(await store.getEnrollment('other.example')).toBeUndefined()
  })

  it('replaceSealedSecret swaps only the expected ciphertext', async () => {
    await store.upsertEnrollment({ authority: 'r.example', tenantId: 't', webhookSecretSealed: 'old', now: T0 })
    expect(await store.replaceSealedSecret('r.example', 'stale', 'new')).toBe(false)
    expect(await store.replaceSealedSecret('r.example', 'old', 'new')).toBe(true)
    expect((await store.getEnrollment('r.example'))?.webhookSecretSealed).toBe('new')
    expect((await store.listSealedEnrollments()).map((e) => e.authority)).toEqual(['r.example'])
  })

  it('the read credential is kept on an update of the same tenant, dropped by a move, set with one, cleared by null', async () => {
    const base = { authority: 'r.example', tenantId: 'tenant-a', now: T0 }
    expect((await store.upsertEnrollment({ ...base, readCredentialSealed: 'read-1' })).readCredentialSealed).toBe(
      'read-1',
    )
    expect((await store.upsertEnrollment({ ...base, enabled: false })).readCredentialSealed).toBe('read-1')
    // Only the read credential: a webhook-secret-less, credential-only row is still one to re-seal.
    expect((await store.listSealedEnrollments()).map((e) => e.authority)).toEqual(['r.example'])
    const moved = await store.upsertEnrollment({ ...base, tenantId: 'tenant-b' })
    expect(moved).toMatchObject({ tenantId: 'tenant-b', readCredentialSealed: null, enabled: false })
    const given = await store.upsertEnrollment({ ...base, readCredentialSealed: 'read-2' })
    expect(given).toMatchObject({ tenantId: 'tenant-a', readCredentialSealed: 'read-2' })
    expect((await store.upsertEnrollment({ ...base, readCredentialSealed: null })).readCredentialSealed).toBeNull()
    expect(await store.listSealedEnrollments()).toEqual([])
  })

  it('replaceSealedReadCredential swaps only the expected ciphertext', async () => {
    await store.upsertEnrollment({ authority: 'r.example', tenantId: 't', readCredentialSealed: 'old', now: T0 })
    expect(await store.replaceSealedReadCredential('r.example', 'stale', 'new')).toBe(false)
    expect(await store.replaceSealedReadCredential('r.example', 'old', 'new')).toBe(true)
    expect((await store.getEnrollment('r.example'))?.readCredentialSealed).toBe('new')
  })

  it('dashboard aggregates are tenant-scoped and limited to the window', async () => {
    await store.recordEvent(event({ runId: 'old', receivedAt: T0 - 3_600_000 * 2, registryAuthority: 'a.example' }))
    await store.recordEvent(
      event({ runId: 'new', receivedAt: T0, registryAuthority: 'a.example', receiptPresent: true }),
    )
    await store.recordEvent(
      event({
        runId: 'new',
        receivedAt: T0,
        registryAuthority: 'a.example',
        type: 'context_retrieved',
        isPublish: false,
        agentId: null,
        didMethod: null,
      }),
    )
    await store.recordEvent(event({ tenantId: 'tenant-b', runId: 'other', receivedAt: T0 }))
    const since = T0 - 3_600_000
    const agg = await store.loadDashboard({
      tenantId: 'tenant-a',
      since,
      bucketSince: Math.floor(since / BUCKET) * BUCKET,
    })
    expect(agg.totalRuns).toBe(1)
    expect(agg.recentRuns.map((r) => r.runId)).toEqual(['new'])
    expect(agg.byScenario).toEqual([{ scenarioId: 'unknown', runCount: 1 }])
    expect(agg.byRegistry).toEqual([
      { registryAuthority: 'a.example', eventCount: 2, publishCount: 1, receiptCount: 1 },
    ])
    expect(agg.didMethods).toEqual([{ method: 'key', publishCount: 1 }])
    expect(agg.totalAgents).toBe(1)
  })

  it('ping answers while the database is open', async () => {
    await expect(store.ping()).resolves.toBeUndefined()
  })
})
