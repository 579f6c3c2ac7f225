/**
 * Live streams over real sockets: frames, heartbeat, Last-Event-ID resume, per-run and tenant filtering, the
 * slow-client bound, shutdown, and (with ACDP_TEST_DATABASE_URL) two instances on one PostgreSQL database.
 *
 * The streams run on the real store (SQLite in memory, or a throwaway PostgreSQL schema), the real bus and the real
 * hub; events are committed through the core store's recordEvent and then published, as the ingest does.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { connect as netConnect, type Socket } from 'node:net'
import { type Database, migrateToLatest, openDatabase, openPostgresTestSchema, testDatabaseUrl } from '@acdp/storage'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { createMetrics } from '../src/core/metrics.js'
import { registerStreamRoutes } from '../src/streams/streams-routes.js'
import type { BusEvent, EventBus } from '../src/events/event-bus.js'
import { createMemoryEventBus } from '../src/events/event-bus.js'
import { createPostgresEventBus } from '../src/events/event-bus-postgres.js'
import { SseHub, type SseHubOptions, type StreamHistory } from '../src/streams/sse.js'
import { createEventHistory, type EventHistory } from '../src/streams/sse-history.js'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { CONTROL_PLANE_MIGRATIONS, MIGRATION_TABLE } from '../src/store/migrations/index.js'
import type { ControlPlaneTables } from '../src/store/schema.js'
import type { ControlPlaneStore, NewEvent } from '../src/store/store.js'
import { buildPublishEvent } from './support/new-event.js'

// ---------------------------------------------------------------------------------------------------------------
// Harness

interface Frame {
  id?: string
  event?: string
  data?: string
  retry?: string
}

interface SseClient {
  response: IncomingMessage
  frames: Frame[]
  /** Resolves with all frames once `predicate(frames)` holds; rejects after timeoutMs. */
  waitFor(predicate: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<Frame[]>
  /** Event frames only (heartbeats excluded). */
  events(): Frame[]
  ended: Promise<void>
  close(): void
}

function parseFrame(block: string): Frame | undefined {
  const frame: Frame = {}
  let hasField = false
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'id' || field === 'event' || field === 'data' || field === 'retry') {
      frame[field] = value
      hasField = true
    }
  }
  return hasField ? frame : undefined
}

function connectSse(port: number, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers } })
    req.on('error', reject)
    req.on('response', (response) => {
      const frames: Frame[] = []
      const waiters = new Set<() => void>()
      let buffer = ''
      let resolveEnded: () => void = () => {}
      const ended = new Promise<void>((r) => {
        resolveEnded = r
      })
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        buffer += chunk
        let index = buffer.indexOf('\n\n')
        while (index !== -1) {
          const frame = parseFrame(buffer.slice(0, index))
          buffer = buffer.slice(index + 2)
          if (frame) frames.push(frame)
          index = buffer.indexOf('\n\n')
        }
        for (const waiter of [...waiters]) waiter()
      })
      response.on('close', () => {
        resolveEnded()
        for (const waiter of [...waiters]) waiter()
      })
      response.on('error', () => resolveEnded())
      resolve({
        response,
        frames,
        events: () => frames.filter((f) => f.id !== undefined),
        ended,
        close: () => req.destroy(),
        waitFor(predicate, timeoutMs = 5000) {
          return new Promise((resolveWait, rejectWait) => {
            const check = () => {
              if (predicate(frames)) {
                cleanup()
                resolveWait(frames)
              }
            }
            const timer = setTimeout(() => {
              cleanup()
              rejectWait(new Error(`timed out; frames so far: ${JSON.stringify(frames)}`))
            }, timeoutMs)
            const cleanup = () => {
              clearTimeout(timer)
              waiters.delete(check)
            }
            waiters.add(check)
            check()
          })
        },
      })
    })
    req.end()
  })
}

let dedupCounter = 0

function newEvent(tenantId: string, overrides: Partial<NewEvent> = {}): NewEvent {
  dedupCounter += 1
  const now = 1_767_225_600_000 + dedupCounter
  const identity = {
    tenantId,
    dedupKey: `evt:test-${dedupCounter}-${Math.random()}`,
    eventId: `evt-${dedupCounter}`,
    ctxId: `acdp://reg.example/${dedupCounter}`,
    runId: null,
    agentId: 'did:key:z6MkTest',
    registryBaseUrl: null,
    eventTs: now,
    receivedAt: now,
  }
  return buildPublishEvent(identity, overrides)
}

interface Instance {
  app: FastifyInstance
  port: number
  hub: SseHub
  bus: EventBus
  store: ControlPlaneStore
  history: EventHistory
  metrics: ReturnType<typeof createMetrics>
  /** Commits an event and publishes it, as the ingest does; returns the published bus event. */
  ingest(tenantId: string, overrides?: Partial<NewEvent>): Promise<BusEvent>
  close(): Promise<void>
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

async function startInstance(options: {
  database: Database<ControlPlaneTables>
  bus?: EventBus
  hub?: Partial<SseHubOptions>
  wrapHistory?: (history: EventHistory) => StreamHistory
  ownsDatabase?: boolean
}): Promise<Instance> {
  const { database } = options
  const store = createKyselyStore(database)
  const history = createEventHistory(store)
  const bus = options.bus ?? createMemoryEventBus()
  const metrics = createMetrics({ collectProcessMetrics: false })
  const hub = new SseHub({
    bus,
    history: options.wrapHistory ? options.wrapHistory(history) : history,
    metrics,
    clock: () => new Date(),
    heartbeatMs: 60_000,
    shutdownRetryMs: 1000,
    ...options.hub,
  })
  const app = Fastify()
  app.addHook('preClose', (done) => {
    hub.close()
    done()
  })
  registerStreamRoutes(app, {
    sse: hub,
    tenantOf: (request) => {
      const tenant = request.headers['x-test-tenant']
      return typeof tenant === 'string' ? tenant : 'default'
    },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  let isClosed = false
  const instance: Instance = {
    app,
    port,
    hub,
    bus,
    store,
    history,
    metrics,
    async ingest(tenantId, overrides) {
      const id = await store.recordEvent(newEvent(tenantId, overrides))
      if (id === undefined) throw new Error('duplicate')
      const event = await history.load({ id: String(id), tenantId, runId: null, type: '' })
      if (!event) throw new Error('not stored')
      bus.publish(event)
      return event
    },
    async close() {
      if (isClosed) return
      isClosed = true
      await app.close()
      await bus.close()
      if (options.ownsDatabase !== false) await store.close()
    },
  }
  cleanups.push(() => instance.close())
  return instance
}

async function openSqlite(): Promise<Database<ControlPlaneTables>> {
  const database = await openDatabase<ControlPlaneTables>({ kind: 'sqlite', path: ':memory:' })
  await migrateToLatest(database, [...CONTROL_PLANE_MIGRATIONS], { table: MIGRATION_TABLE })
  return database
}

async function startSqliteInstance(options: Omit<Parameters<typeof startInstance>[0], 'database'> = {}) {
  return startInstance({ ...options, database: await openSqlite() })
}

function parsed(frame: Frame): Record<string, unknown> {
  return JSON.parse(frame.data ?? 'null') as Record<string, unknown>
}

async function metricValue(instance: Instance, name: string, labels: Record<string, string> = {}) {
  const metric = instance.metrics.registry.getSingleMetric(name)
  const values = (await metric?.get())?.values ?? []
  return values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value ?? 0
}

// ---------------------------------------------------------------------------------------------------------------

describe('SSE streams', () => {
  it('streams committed events as id/event/data frames with the broadcast members', async () => {
    const instance = await startSqliteInstance()
    const client = await connectSse(instance.port, '/events/stream')
    expect(client.response.statusCode).toBe(200)
    expect(client.response.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(client.response.headers['cache-control']).toContain('no-cache')

    const published = await instance.ingest('default', { runId: 'run-1', type: 'context_published' })
    const [frame] = (await client.waitFor((f) => f.some((x) => x.id !== undefined))).filter((f) => f.id)
    expect(frame).toEqual({ id: published.id, event: 'context_published', data: published.data })
    expect(parsed(frame as Frame)).toMatchObject({
      type: 'context_published',
      runId: 'run-1',
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      registryAuthority: 'reg.example',
    })
    client.close()
  })

  it('tracks open streams in active_sse_connections', async () => {
    const instance = await startSqliteInstance()
    const a = await connectSse(instance.port, '/events/stream')
    const b = await connectSse(instance.port, '/runs/r/events/stream')
    expect(await metricValue(instance, 'active_sse_connections')).toBe(2)
    a.close()
    await vi_waitUntil(async () => (await metricValue(instance, 'active_sse_connections')) === 1)
    b.close()
    await vi_waitUntil(async () => (await metricValue(instance, 'active_sse_connections')) === 0)
    expect(await metricValue(instance, 'acdp_sse_streams_terminated_total', { reason: 'client_closed' })).toBe(2)
  })

  it('sends a heartbeat frame with {ts} and no id every heartbeat interval', async () => {
    const instance = await startSqliteInstance({ hub: { heartbeatMs: 40 } })
    const client = await connectSse(instance.port, '/events/stream')
    const frames = await client.waitFor((f) => f.filter((x) => x.event === 'heartbeat').length >= 2)
    const heartbeat = frames.find((f) => f.event === 'heartbeat') as Frame
    expect(heartbeat.id).toBeUndefined()
    expect(Object.keys(parsed(heartbeat))).toEqual(['ts'])
    expect(Number.isNaN(Date.parse(parsed(heartbeat).ts as string))).toBe(false)
    client.close()
  })

  it('filters the per-run stream to its run and the global stream by eventType', async () => {
    const instance = await startSqliteInstance()
    const run = await connectSse(instance.port, '/runs/run-a/events/stream')
    const typed = await connectSse(instance.port, '/events/stream?eventType=context_retracted,search_executed')
    const all = await connectSse(instance.port, '/events/stream')
    const e1 = await instance.ingest('default', { runId: 'run-a' })
    await instance.ingest('default', { runId: 'run-b' })
    const e3 = await instance.ingest('default', { runId: null, type: 'context_retracted' })
    const e4 = await instance.ingest('default', { runId: 'run-a', type: 'search_executed' })
    await all.waitFor((f) => f.filter((x) => x.id).length === 4)
    await run.waitFor((f) => f.filter((x) => x.id).length === 2)
    await typed.waitFor((f) => f.filter((x) => x.id).length === 2)
    expect(run.events().map((f) => f.id)).toEqual([e1.id, e4.id])
    expect(typed.events().map((f) => f.id)).toEqual([e3.id, e4.id])
    for (const c of [run, typed, all]) c.close()
  })

  it('never shows one tenant the events of another', async () => {
    const instance = await startSqliteInstance()
    const tenantA = await connectSse(instance.port, '/events/stream', { 'x-test-tenant': 'tenant-a' })
    const tenantB = await connectSse(instance.port, '/events/stream', { 'x-test-tenant': 'tenant-b' })
    const runB = await connectSse(instance.port, '/runs/shared-run/events/stream', { 'x-test-tenant': 'tenant-b' })
    const a1 = await instance.ingest('tenant-a', { runId: 'shared-run' })
    const b1 = await instance.ingest('tenant-b', { runId: 'shared-run' })
    await tenantA.waitFor((f) => f.some((x) => x.id === a1.id))
    await tenantB.waitFor((f) => f.some((x) => x.id === b1.id))
    await runB.waitFor((f) => f.some((x) => x.id === b1.id))
    expect(tenantA.events().map((f) => f.id)).toEqual([a1.id])
    expect(tenantB.events().map((f) => f.id)).toEqual([b1.id])
    expect(runB.events().map((f) => f.id)).toEqual([b1.id])
    for (const c of [tenantA, tenantB, runB]) c.close()
  })

  it('does not replay another tenant’s history after a Last-Event-ID', async () => {
    const instance = await startSqliteInstance()
    const first = await instance.ingest('tenant-a')
    await instance.ingest('tenant-b')
    const a2 = await instance.ingest('tenant-a')
    const client = await connectSse(instance.port, '/events/stream', {
      'x-test-tenant': 'tenant-a',
      'last-event-id': first.id,
    })
    await client.waitFor((f) => f.some((x) => x.id === a2.id))
    const live = await instance.ingest('tenant-a')
    await client.waitFor((f) => f.some((x) => x.id === live.id))
    expect(client.events().map((f) => f.id)).toEqual([a2.id, live.id])
    client.close()
  })

  it('resumes after Last-Event-ID from history, then continues live without gaps or duplicates', async () => {
    let releaseReplay: () => void = () => {}
    const replayGate = new Promise<void>((r) => {
      releaseReplay = r
    })
    let replayStarted: () => void = () => {}
    const replayStartedSignal = new Promise<void>((r) => {
      replayStarted = r
    })
    const instance = await startSqliteInstance({
      // Holds the first history read until live events have been published meanwhile.
      wrapHistory: (history) => ({
        ...history,
        async readAfter(query) {
          replayStarted()
          await replayGate
          return history.readAfter(query)
        },
      }),
    })
    const e1 = await instance.ingest('default', { runId: 'r' })
    const e2 = await instance.ingest('default', { runId: 'r' })
    const e3 = await instance.ingest('default', { runId: 'r' })
    const client = await connectSse(instance.port, '/runs/r/events/stream', { 'last-event-id': e1.id })
    await replayStartedSignal
    // Committed and published while the replay is in flight: held, then delivered once.
    const e4 = await instance.ingest('default', { runId: 'r' })
    const e5 = await instance.ingest('default', { runId: 'r' })
    releaseReplay()
    await client.waitFor((f) => f.some((x) => x.id === e5.id))
    const e6 = await instance.ingest('default', { runId: 'r' })
    await client.waitFor((f) => f.some((x) => x.id === e6.id))
    expect(client.events().map((f) => f.id)).toEqual([e2.id, e3.id, e4.id, e5.id, e6.id])
    // Replayed frames are byte-identical to live ones.
    expect(client.events()[0]?.data).toBe(e2.data)
    client.close()
  })

  it('replays across several history pages and accepts lastEventId as a query parameter', async () => {
    const instance = await startSqliteInstance({ hub: { replayPageSize: 3 } })
    const events: BusEvent[] = []
    for (let i = 0; i < 10; i++) events.push(await instance.ingest('default'))
    const client = await connectSse(instance.port, `/events/stream?lastEventId=${events[1]?.id}`)
    await client.waitFor((f) => f.some((x) => x.id === events[9]?.id))
    expect(client.events().map((f) => f.id)).toEqual(events.slice(2).map((e) => e.id))
    client.close()
  })

  it('re-reads history when live events overflow the hold buffer during a replay', async () => {
    let releaseReplay: () => void = () => {}
    const gate = new Promise<void>((r) => {
      releaseReplay = r
    })
    let calls = 0
    const instance = await startSqliteInstance({
      hub: { maxPendingEvents: 2 },
      wrapHistory: (history) => ({
        ...history,
        async readAfter(query) {
          calls += 1
          if (calls === 1) await gate
          return history.readAfter(query)
        },
      }),
    })
    const e1 = await instance.ingest('default')
    const client = await connectSse(instance.port, '/events/stream', { 'last-event-id': e1.id })
    await vi_waitUntil(async () => calls === 1)
    const later: BusEvent[] = []
    for (let i = 0; i < 5; i++) later.push(await instance.ingest('default'))
    releaseReplay()
    await client.waitFor((f) => f.some((x) => x.id === later[4]?.id))
    expect(client.events().map((f) => f.id)).toEqual(later.map((e) => e.id))
    client.close()
  })

  it('answers 400 VALIDATION_ERROR to a malformed Last-Event-ID', async () => {
    const instance = await startSqliteInstance()
    const res = await instance.app.inject({
      method: 'GET',
      url: '/events/stream',
      headers: { 'last-event-id': 'abc\r' },
    })
    expect(res.statusCode).toBe(400)
  })

  it('disconnects a client that stops reading once its buffer bound is reached, and keeps serving the others', async () => {
    const bound = 64 * 1024
    const instance = await startSqliteInstance({ hub: { maxBufferedBytes: bound } })
    const serverSockets: Socket[] = []
    instance.app.server.on('connection', (socket: Socket) => serverSockets.push(socket))
    const fast = await connectSse(instance.port, '/events/stream')
    // A raw socket that sends the request and never reads: the kernel buffers fill, then Node's.
    const slow = netConnect({ host: '127.0.0.1', port: instance.port })
    await new Promise<void>((r) => slow.once('connect', () => r()))
    slow.write('GET /events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n')
    slow.pause()
    const slowClosed = new Promise<void>((r) => slow.once('close', () => r()))
    await vi_waitUntil(async () => (await metricValue(instance, 'active_sse_connections')) === 2)

    const data = JSON.stringify({ type: 'bulk', filler: 'x'.repeat(16 * 1024) })
    const frameBytes = data.length + 64
    let maxUnsent = 0
    const slowDropped = async () =>
      (await metricValue(instance, 'acdp_sse_streams_terminated_total', { reason: 'slow_client' })) === 1
    // Publishes until the hub drops the stalled client (the kernel's loopback buffers absorb a few MB first); the
    // reading client is paced so that it, unlike the stalled one, never falls behind.
    let sent = 0
    while (!(await slowDropped()) && sent < 6000) {
      sent += 1
      instance.bus.publish({ id: String(sent), tenantId: 'default', runId: null, type: 'bulk', data })
      for (const socket of serverSockets) maxUnsent = Math.max(maxUnsent, socket.writableLength)
      const expected = sent
      await fast.waitFor((f) => f.filter((x) => x.id).length >= expected)
    }
    expect(await slowDropped()).toBe(true)
    // The stalled client sees its connection closed once it reads again.
    slow.resume()
    await slowClosed
    // What the server holds for any client never exceeds the bound plus the one frame that tipped it over.
    expect(maxUnsent).toBeLessThanOrEqual(bound + frameBytes)
    expect(fast.events()).toHaveLength(sent)
    expect(await metricValue(instance, 'active_sse_connections')).toBe(1)
    slow.destroy()
    fast.close()
  })

  it('ends every stream with the shutdown frame when the app closes', async () => {
    const instance = await startSqliteInstance()
    const client = await connectSse(instance.port, '/events/stream')
    await instance.close()
    await client.ended
    const last = client.frames.at(-1)
    expect(last).toEqual({ event: 'shutdown', retry: '1000', data: '{"reason":"server_shutdown"}' })
  })
})

const pgUrl = testDatabaseUrl()

/** One instance per database (databases sharing one schema), each with its own PostgreSQL bus. */
async function startPostgresInstances(databases: Array<Database<ControlPlaneTables>>): Promise<Instance[]> {
  const instances: Instance[] = []
  for (const [index, database] of databases.entries()) {
    const history = createEventHistory(createKyselyStore(database))
    const bus = await createPostgresEventBus({
      pool: database.pool as NonNullable<typeof database.pool>,
      loadEvent: (ref) => history.load(ref),
      instanceId: `test-${index}-${Math.random()}`,
    })
    instances.push(await startInstance({ database, bus, ownsDatabase: false }))
  }
  return instances
}

describe.runIf(pgUrl)('SSE across two instances on one PostgreSQL database', () => {
  let schema = ''

  async function openTwo(): Promise<[Database<ControlPlaneTables>, Database<ControlPlaneTables>]> {
    const first = (await openPostgresTestSchema(pgUrl as string)) as Database<ControlPlaneTables>
    await migrateToLatest(first, [...CONTROL_PLANE_MIGRATIONS], { table: MIGRATION_TABLE })
    schema = (await first.pool?.query<{ s: string }>('SELECT current_schema() AS s'))?.rows[0]?.s as string
    const second = await openDatabase<ControlPlaneTables>({ kind: 'postgres', url: pgUrl as string, schema })
    return [first, second]
  }

  async function startPair() {
    const [dbA, dbB] = await openTwo()
    const instances = await startPostgresInstances([dbA, dbB])
    // Close order: instances first (their pools), then the schema-owning database last.
    cleanups.unshift(async () => {
      await dbB.close()
      await dbA.close()
    })
    return instances as [Instance, Instance]
  }

  it('delivers an event ingested on instance A to an SSE client on instance B, once', async () => {
    const [a, b] = await startPair()
    const onB = await connectSse(b.port, '/events/stream', { 'x-test-tenant': 'tenant-x' })
    const onA = await connectSse(a.port, '/events/stream', { 'x-test-tenant': 'tenant-x' })
    const e1 = await a.ingest('tenant-x', { runId: 'r1' })
    const e2 = await b.ingest('tenant-x', { runId: 'r1' })
    await onB.waitFor((f) => f.filter((x) => x.id).length === 2)
    await onA.waitFor((f) => f.filter((x) => x.id).length === 2)
    await new Promise((r) => setTimeout(r, 200))
    // Each event exactly once on each instance. Across instances the order is not fixed: B publishes its own e2
    // at once while e1 reaches it through NOTIFY, so on a busy machine e2 may be written first.
    const byId = (frames: Array<{ id?: string }>) => frames.map((f) => f.id).sort()
    expect(byId(onB.events())).toEqual([e1.id, e2.id].sort())
    expect(onB.events().find((f) => f.id === e1.id)?.data).toBe(e1.data)
    expect(byId(onA.events())).toEqual([e1.id, e2.id].sort())
    onA.close()
    onB.close()
  })

  it('relays an event larger than a NOTIFY payload by reference', async () => {
    const [a, b] = await startPair()
    const onB = await connectSse(b.port, '/events/stream', { 'x-test-tenant': 'tenant-y' })
    const parents = Array.from({ length: 300 }, (_, i) => `acdp://reg.example/parent-${i}-0123456789abcdef`)
    const big = await a.ingest('tenant-y', { derivedFrom: parents })
    expect(Buffer.byteLength(big.data)).toBeGreaterThan(8000)
    await onB.waitFor((f) => f.some((x) => x.id === big.id))
    expect(onB.events()[0]?.data).toBe(big.data)
    onB.close()
  })

  it('catches a client up from history after the LISTEN connection of its instance is lost', async () => {
    const [a, b] = await startPair()
    const onB = await connectSse(b.port, '/events/stream', { 'x-test-tenant': 'tenant-z' })
    const first = await a.ingest('tenant-z')
    await onB.waitFor((f) => f.some((x) => x.id === first.id))
    // Kill the LISTEN sessions of this schema's channel only; A's relay to B is lost until B reconnects.
    const admin = await openDatabase<ControlPlaneTables>({ kind: 'postgres', url: pgUrl as string })
    const killed = await admin.pool?.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN acdp_ev_' || left(md5($1), 16)",
      [schema],
    )
    expect(killed?.rows).toHaveLength(2)
    await admin.close()
    const missed = await a.ingest('tenant-z')
    await onB.waitFor((f) => f.some((x) => x.id === missed.id), 15_000)
    const after = await a.ingest('tenant-z')
    await onB.waitFor((f) => f.some((x) => x.id === after.id), 15_000)
    expect(onB.events().map((f) => f.id)).toEqual([first.id, missed.id, after.id])
    onB.close()
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Order and resume under concurrent ingest: ids are taken before commit and transactions commit out of order, so
// without the sequencer live frames arrived out of id order and a client resuming with the last id it received
// skipped lower ids that committed later, and saw again ids replayed and then delivered live.

/** Event ids (the `eventId` data member) in arrival order, and the `id:` of each event frame. */
interface Observed {
  eventIds: string[]
  frameIds: string[]
}

function observe(observed: Observed, frames: Frame[]): void {
  for (const frame of frames) {
    if (frame.id === undefined) continue
    observed.eventIds.push(String(parsed(frame).eventId))
    observed.frameIds.push(frame.id)
  }
}

/** Reconnects every `everyMs` with the last id received, cycling through the instances `ports()` still lists. */
function startResumingClient(ports: () => number[], tenantId: string, everyMs: number) {
  const observed: Observed = { eventIds: [], frameIds: [] }
  let isStopped = false
  let reconnects = 0
  const loop = (async () => {
    let lastId = '0'
    for (let turn = 0; !isStopped; turn++) {
      const live = ports()
      const port = live[turn % live.length] as number
      const client = await connectSse(port, '/events/stream', {
        'x-test-tenant': tenantId,
        'last-event-id': lastId,
      }).catch(() => undefined)
      if (client) {
        reconnects += 1
        // Paces the reconnects (the scenario under test), never used to prove anything absent.
        await Promise.race([new Promise((r) => setTimeout(r, everyMs)), client.ended])
        client.close()
        observe(observed, client.frames)
        for (const frame of client.events()) if (frame.id !== '') lastId = frame.id as string
      } else await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return {
    observed,
    reconnects: () => reconnects,
    async stop() {
      isStopped = true
      await loop
    },
  }
}

/** Missing, repeated and out-of-order counts of `observed` against the committed events `truth` (id order). */
function deliveryFaults(observed: Observed, truth: BusEvent[]) {
  const seen = new Map<string, number>()
  for (const id of observed.eventIds) seen.set(id, (seen.get(id) ?? 0) + 1)
  const expected = truth.map((event) => String(JSON.parse(event.data).eventId))
  let inversions = 0
  for (let i = 1; i < observed.frameIds.length; i++) {
    if (Number(observed.frameIds[i]) <= Number(observed.frameIds[i - 1])) inversions += 1
  }
  return {
    missing: expected.filter((id) => !seen.has(id)).length,
    repeated: [...seen.values()].reduce((sum, n) => sum + n - 1, 0),
    inversions,
  }
}

/**
 * Ingests at least `perWorker` events on each of `workers` concurrent writers of `instance`, and goes on while
 * `keepGoing()`; a writer stops at the first failure (its instance was killed).
 */
async function ingestConcurrently(
  instance: Instance,
  tenantId: string,
  workers: number,
  perWorker: number,
  keepGoing: () => boolean = () => false,
) {
  let committed = 0
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = 0; i < perWorker || keepGoing(); i++) {
        try {
          await instance.ingest(tenantId)
          committed += 1
        } catch {
          return
        }
      }
    }),
  )
  return committed
}

async function committedEvents(instance: Instance, tenantId: string): Promise<BusEvent[]> {
  return instance.history.readAfter({ tenantId, afterId: '0', limit: 100_000 })
}

/**
 * Runs the scenario on `instances` (the first one survives): a continuous client on the first instance and a
 * client resuming every 300 ms across the live instances, concurrent ingest on every instance, `kill` of the
 * others half-way when given; then a marker event on the survivor, which both clients must reach.
 */
async function runOrderScenario(instances: Instance[], kill?: (instance: Instance) => Promise<void>) {
  const tenantId = `order-${Math.random()}`
  const survivor = instances[0] as Instance
  const alive = new Set(instances)
  const continuous = await connectSse(survivor.port, '/events/stream', { 'x-test-tenant': tenantId })
  const resuming = startResumingClient(() => [...alive].map((i) => i.port), tenantId, 300)
  const ingests = instances.map((instance, index) => {
    // The survivor writes until the resuming client has reconnected a few times, however fast the machine is.
    if (index === 0 || kill === undefined) {
      return ingestConcurrently(instance, tenantId, 16, 70, () => resuming.reconnects() < 6)
    }
    // Half the writes, the kill while the other half is in flight.
    return ingestConcurrently(instance, tenantId, 16, 35).then(async (first) => {
      const rest = ingestConcurrently(instance, tenantId, 16, 35)
      await new Promise((r) => setTimeout(r, 50))
      alive.delete(instance)
      await kill(instance)
      return first + (await rest)
    })
  })
  await Promise.all(ingests)
  const marker = await survivor.ingest(tenantId)
  const markerId = String(JSON.parse(marker.data).eventId)
  const reached = (observed: Observed) => observed.eventIds.includes(markerId)
  const continuousSeen: Observed = { eventIds: [], frameIds: [] }
  let continuousEnded = false
  void continuous.ended.then(() => {
    continuousEnded = true
  })
  try {
    await continuous.waitFor((frames) => frames.some((f) => f.id !== undefined && f.data?.includes(markerId)), 30_000)
  } catch (error) {
    const terminated = await survivor.metrics.registry
      .getSingleMetricAsString('acdp_sse_streams_terminated_total')
      .catch((e) => String(e))
    const committed = await committedEvents(survivor, tenantId)
    throw new Error(
      `continuous client: ended=${continuousEnded} last=${continuous.events().at(-1)?.id} marker=${marker.id} ` +
        `committed=${committed.length} lastCommitted=${committed.at(-1)?.id} open=${survivor.hub.size} ` +
        `resumingLast=${resuming.observed.frameIds.at(-1)} reconnects=${resuming.reconnects()}\n${terminated}`,
      { cause: error },
    )
  }
  observe(continuousSeen, continuous.frames)
  continuous.close()
  await vi_waitUntil(() => reached(resuming.observed), 30_000)
  await resuming.stop()
  const truth = await committedEvents(survivor, tenantId)
  return { truth, continuous: continuousSeen, resuming: resuming.observed, reconnects: resuming.reconnects() }
}

function expectExactlyOnceInOrder(result: Awaited<ReturnType<typeof runOrderScenario>>) {
  const expected = result.truth.map((event) => String(JSON.parse(event.data).eventId))
  expect(result.truth.length).toBeGreaterThan(1000)
  expect(result.reconnects).toBeGreaterThan(3)
  for (const observed of [result.continuous, result.resuming]) {
    expect(deliveryFaults(observed, result.truth)).toEqual({ missing: 0, repeated: 0, inversions: 0 })
    expect(observed.eventIds).toEqual(expected)
  }
}

describe('SSE order and resume under concurrent ingest (SQLite, one instance)', () => {
  it('delivers every committed event once, in id order, to a continuous and to a resuming client', async () => {
    const instance = await startSqliteInstance()
    expectExactlyOnceInOrder(await runOrderScenario([instance]))
  }, 60_000)
})

describe.runIf(pgUrl)('SSE order and resume under concurrent ingest (two PostgreSQL instances)', () => {
  it('delivers every committed event once, in id order, with one instance killed half-way', async () => {
    const first = (await openPostgresTestSchema(pgUrl as string)) as Database<ControlPlaneTables>
    await migrateToLatest(first, [...CONTROL_PLANE_MIGRATIONS], { table: MIGRATION_TABLE })
    const schema = (await first.pool?.query<{ s: string }>('SELECT current_schema() AS s'))?.rows[0]?.s as string
    // The doomed instance's sessions carry an application name, so the kill can end exactly them.
    const doomedName = `acdp-sse-order-${process.pid}-${Date.now()}`
    const doomedUrl = new URL(pgUrl as string)
    doomedUrl.searchParams.set('application_name', doomedName)
    const second = await openDatabase<ControlPlaneTables>({ kind: 'postgres', url: doomedUrl.toString(), schema })
    // Its pooled sessions (idle or in a transaction) report the kill as errors, which are the point here.
    second.pool?.on('error', () => undefined)
    second.pool?.on('connect', (client) => client.on('error', () => undefined))
    const instances = await startPostgresInstances([first, second])
    cleanups.unshift(async () => {
      await second.close()
      await first.close()
    })
    const result = await runOrderScenario(instances, async (doomed) => {
      // As close to kill -9 as one process allows: its streams are cut without a shutdown frame, its open
      // transactions are aborted by the server (permanent holes in the id sequence) and its LISTEN session ends.
      doomed.app.server.close()
      doomed.app.server.closeAllConnections()
      await first.pool?.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        doomedName,
      ])
    })
    expectExactlyOnceInOrder(result)
  }, 60_000)
})

/** Polls `condition` every 10 ms until it holds (5 s limit). */
async function vi_waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}
