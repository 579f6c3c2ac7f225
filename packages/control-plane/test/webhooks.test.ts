/**
 * Outbound webhooks: subscription CRUD over HTTP, the transactional outbox, and delivery over real sockets to a
 * local receiver (through the real SSRF-safe outbound client, loopback opened by its allowlist): signatures,
 * retries with backoff until the receiver recovers, exactly-once delivery, restart survival, and (with
 * ACDP_TEST_DATABASE_URL) two dispatchers on one PostgreSQL outbox without duplicates.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import {
  createOutboundClient,
  type OutboundClient,
  verifyTimestampedWebhook,
  verifyWebhookSignature,
} from '@acdp/protocol'
import {
  type Database,
  migrateToLatest,
  openDatabase,
  openPostgresTestSchema,
  type TestDatabaseTarget,
  testDatabaseTargets,
  testDatabaseUrl,
} from '@acdp/storage'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { installErrorHandlers } from '../src/core/errors.js'
import { createMetrics } from '../src/core/metrics.js'
import { registerWebhookRoutes } from '../src/webhooks/webhooks-routes.js'
import { createMemoryEventBus, type EventBus } from '../src/events/event-bus.js'
import { createSecretKeyring, openSecret } from '../src/core/secret-box.js'
import { toStoredEvent } from '../src/ingest/ingest.js'
import { busEventFromStored } from '../src/events/sse-event.js'
import {
  createWebhookDispatcher,
  createWebhookOutbox,
  parseRetryAfterMs,
  type WebhookDeliverySettings,
  type OutboxWebhookSender,
} from '../src/webhooks/webhook-delivery.js'
import {
  createSubscription,
  createSubscriptionCache,
  formatUuidV4,
  type SubscriptionCache,
  subscriptionSecretContext,
  type WebhookSubscriptionDeps,
} from '../src/webhooks/webhook-subscriptions.js'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { migration0100Webhooks } from '../src/store/migrations/0100_webhooks.js'
import { CONTROL_PLANE_MIGRATIONS, MIGRATION_TABLE } from '../src/store/migrations/index.js'
import type { ControlPlaneTables, StoredEvent } from '../src/store/schema.js'
import type { ControlPlaneStore, NewEvent, StoreTransaction } from '../src/store/store.js'
import { buildPublishEvent } from './support/new-event.js'
import { createWebhookStore, type WebhookStore } from '../src/webhooks/webhook-store.js'

// ---------------------------------------------------------------------------------------------------------------
// Harness

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

const MIGRATIONS = CONTROL_PLANE_MIGRATIONS.some((m) => m.name === migration0100Webhooks.name)
  ? [...CONTROL_PLANE_MIGRATIONS]
  : [...CONTROL_PLANE_MIGRATIONS, migration0100Webhooks]

const KEYRING = createSecretKeyring(new Uint8Array(32).fill(5))
const random = (size: number) => new Uint8Array(globalThis.crypto.getRandomValues(new Uint8Array(size)))

/** A received delivery. */
interface Received {
  headers: IncomingHttpHeaders
  body: string
  status: number
}

/** A local receiver whose answer is programmable; records every request it got. */
async function startReceiver(answer: (n: number, request: Received) => number | [number, Record<string, string>]) {
  const received: Received[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const record: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: 0 }
      const result = answer(received.length + 1, record)
      const [status, headers] = Array.isArray(result) ? result : [result, {}]
      record.status = status
      received.push(record)
      res.writeHead(status, headers).end(status >= 200 && status < 300 ? 'ok' : 'nope')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  )
  return { url: `http://127.0.0.1:${port}/hook`, received }
}

function loopbackClient(): OutboundClient {
  const client = createOutboundClient({ allowCidrs: ['127.0.0.1/32'], allowHttpForAllowlisted: true })
  cleanups.push(() => client.close())
  return client
}

let sequence = 0

function newEvent(tenantId: string, overrides: Partial<NewEvent> = {}): NewEvent {
  sequence += 1
  const at = 1_767_225_600_000 + sequence
  const identity = {
    tenantId,
    dedupKey: `evt:w-${sequence}-${Math.random()}`,
    eventId: `evt-${sequence}`,
    ctxId: `acdp://reg.example/${sequence}`,
    runId: 'run-1',
    agentId: 'did:key:z6MkTest',
    registryBaseUrl: null,
    eventTs: at,
    receivedAt: at,
  }
  return buildPublishEvent(identity, overrides)
}

interface Harness {
  database: Database<ControlPlaneTables>
  store: ControlPlaneStore
  webhookStore: WebhookStore
  bus: EventBus
  cache: SubscriptionCache
  outbox: ReturnType<typeof createWebhookOutbox>
  metrics: ReturnType<typeof createMetrics>
  subscriptionDeps: WebhookSubscriptionDeps
  /**
   * Commits an event with the outbox hook inside its transaction (none when the outbox says it would write
   * nothing), then publishes it: as the ingest does.
   */
  ingest(tenantId: string, overrides?: Partial<NewEvent>): Promise<StoredEvent>
  dispatcher(settings?: Partial<WebhookDeliverySettings>, client?: OutboundClient): OutboxWebhookSender
  counter(status: string): Promise<number>
}

async function openHarness(
  database: Database<ControlPlaneTables>,
  options: { migrate?: boolean } = {},
): Promise<Harness> {
  if (options.migrate !== false) await migrateToLatest(database, MIGRATIONS, { table: MIGRATION_TABLE })
  const store = createKyselyStore(database)
  const webhookStore = createWebhookStore(database as Database<unknown>)
  const bus = createMemoryEventBus()
  const metrics = createMetrics({ collectProcessMetrics: false })
  const cache = createSubscriptionCache({ webhookStore, bus, now: () => Date.now() })
  const outbox = createWebhookOutbox({ webhookStore, cache, random, clock: () => new Date() })
  const subscriptionDeps: WebhookSubscriptionDeps = {
    webhookStore,
    secrets: KEYRING,
    random,
    clock: () => new Date(),
    checkUrl: (url) => loopbackClient().checkUrl(url),
    bus,
  }
  const dispatchers: OutboxWebhookSender[] = []
  cleanups.push(async () => {
    for (const d of dispatchers) await d.close()
    cache.close()
    await bus.close()
  })
  return {
    database,
    store,
    webhookStore,
    bus,
    cache,
    outbox,
    metrics,
    subscriptionDeps,
    async ingest(tenantId, overrides) {
      const event = newEvent(tenantId, overrides)
      let stored: StoredEvent | undefined
      const hook = outbox.mayEnqueue(tenantId, event.type)
        ? async (tx: StoreTransaction, eventId: number) => {
            stored = toStoredEvent(eventId, event, {})
            await outbox.enqueue(tx, stored)
          }
        : undefined
      const id = await store.recordEvent(event, hook)
      if (id === undefined) throw new Error('duplicate event in test')
      stored ??= toStoredEvent(id, event, {})
      bus.publish(busEventFromStored(stored))
      return stored
    },
    dispatcher(settings = {}, client) {
      const dispatcher = createWebhookDispatcher({
        webhookStore,
        outbound: client ?? loopbackClient(),
        secrets: KEYRING,
        clock: () => new Date(),
        random,
        metrics,
        bus,
        cache,
        settings: { retryBaseMs: 20, retryMaxMs: 200, sweepIntervalMs: 1000, ...settings },
      })
      dispatchers.push(dispatcher)
      return dispatcher
    },
    async counter(status) {
      const metric = await metrics.registry.getSingleMetric('acdp_webhook_deliveries_total')?.get()
      return metric?.values.find((v) => v.labels.status === status)?.value ?? 0
    },
  }
}

async function openTargetHarness(target: TestDatabaseTarget): Promise<Harness> {
  const database = (await target.open()) as Database<ControlPlaneTables>
  const harness = await openHarness(database)
  cleanups.unshift(() => database.close())
  return harness
}

async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

async function statuses(harness: Harness): Promise<string[]> {
  const rows = await (harness.database.db as unknown as import('kysely').Kysely<Record<string, { status: string }>>)
    .selectFrom('webhook_deliveries')
    .select('status')
    .execute()
  return rows.map((r) => r.status)
}

/** Checks both signatures of a received delivery with `secret`. */
function expectSigned(delivery: Received, secret: string): void {
  expect(verifyWebhookSignature(secret, delivery.body, delivery.headers['x-acdp-signature'] as string)).toBe(true)
  const timestamp = delivery.headers['x-acdp-timestamp'] as string
  expect(
    verifyTimestampedWebhook(secret, delivery.body, delivery.headers['x-acdp-signature-timestamped'] as string, {
      timestamp,
      nowSeconds: Math.floor(Date.now() / 1000),
      toleranceSeconds: 300,
    }),
  ).toBe(true)
}

// ---------------------------------------------------------------------------------------------------------------

describe.each(testDatabaseTargets())('webhook delivery on $name', (target) => {
  it('delivers every event exactly once after the receiver fails and then recovers, signed', async () => {
    const harness = await openTargetHarness(target)
    let isDown = true
    const receiver = await startReceiver(() => (isDown ? 500 : 204))
    const { secret } = await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    const dispatcher = harness.dispatcher()
    dispatcher.start()

    const events: StoredEvent[] = []
    for (let i = 0; i < 5; i++)
      events.push(await harness.ingest('tenant-a', { type: i % 2 ? 'context_retrieved' : 'context_published' }))
    await waitUntil(() => receiver.received.length >= 10)
    expect(await statuses(harness)).toEqual(Array(5).fill('pending'))
    isDown = false
    await waitUntil(async () => (await statuses(harness)).every((s) => s === 'delivered'))

    const accepted = receiver.received.filter((r) => r.status === 204)
    expect(accepted).toHaveLength(5)
    const bodies = accepted.map((r) => JSON.parse(r.body) as Record<string, unknown>)
    expect(new Set(bodies.map((b) => b.id)).size).toBe(5)
    expect(bodies.map((b) => (b.data as { eventId: string }).eventId).sort()).toEqual(
      events.map((e) => e.eventId).sort(),
    )
    for (const delivery of receiver.received) {
      expectSigned(delivery, secret)
      const body = JSON.parse(delivery.body) as { id: string; event: string; runId: string; timestamp: string }
      expect(delivery.headers['x-acdp-event']).toBe(body.event)
      expect(delivery.headers['x-acdp-event-id']).toBe(body.id)
      expect(delivery.headers['content-type']).toBe('application/json')
      expect(body.runId).toBe('run-1')
    }
    // Every failed attempt was retried with the same delivery id and body.
    for (const ok of accepted) {
      const id = ok.headers['x-acdp-event-id']
      const attempts = receiver.received.filter((r) => r.headers['x-acdp-event-id'] === id)
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1)
      expect(Number(ok.headers['x-acdp-delivery-attempt'])).toBe(attempts.length)
    }
    expect(await harness.counter('delivered')).toBe(5)
    expect(await harness.counter('retry')).toBeGreaterThanOrEqual(10)
  })

  it('matches subscriptions by event type and skips inactive ones and other tenants', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 200)
    const deps = harness.subscriptionDeps
    const retractions = await createSubscription(deps, 'tenant-a', {
      url: `${receiver.url}?r`,
      events: ['context_retracted'],
    })
    await createSubscription(deps, 'tenant-a', { url: `${receiver.url}?off`, active: false })
    const other = await createSubscription(deps, 'tenant-b', { url: `${receiver.url}?b` })
    harness.dispatcher().start()
    await harness.ingest('tenant-a', { type: 'context_published' })
    const retracted = await harness.ingest('tenant-a', { type: 'context_retracted' })
    const forB = await harness.ingest('tenant-b', { type: 'context_published' })
    await waitUntil(() => receiver.received.length >= 2)
    await new Promise((r) => setTimeout(r, 100))
    expect(receiver.received).toHaveLength(2)
    const toRetractions = receiver.received.find((r) => r.headers['x-acdp-event'] === 'context_retracted') as Received
    expect((JSON.parse(toRetractions.body) as { data: { eventId: string } }).data.eventId).toBe(retracted.eventId)
    expectSigned(toRetractions, retractions.secret)
    const toB = receiver.received.find((r) => r !== toRetractions) as Received
    expect((JSON.parse(toB.body) as { data: { eventId: string } }).data.eventId).toBe(forB.eventId)
    expectSigned(toB, other.secret)
  })

  it('keeps retrying across a restart: a new dispatcher on the same outbox finishes the job', async () => {
    const harness = await openTargetHarness(target)
    let isDown = true
    const receiver = await startReceiver(() => (isDown ? 503 : 200))
    await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    const first = harness.dispatcher()
    first.start()
    const event = await harness.ingest('tenant-a')
    await waitUntil(() => receiver.received.length >= 2)
    await first.close()
    const attemptsBefore = receiver.received.length
    isDown = false
    const second = harness.dispatcher()
    second.start()
    await waitUntil(async () => (await statuses(harness))[0] === 'delivered')
    const accepted = receiver.received.filter((r) => r.status === 200)
    expect(accepted).toHaveLength(1)
    expect((JSON.parse(accepted[0]?.body ?? '{}') as { data: { eventId: string } }).data.eventId).toBe(event.eventId)
    expect(Number(accepted[0]?.headers['x-acdp-delivery-attempt'])).toBe(attemptsBefore + 1)
  })

  it('gives up after maxAttempts and can be redelivered through the API later', async () => {
    const harness = await openTargetHarness(target)
    let isDown = true
    const receiver = await startReceiver(() => (isDown ? 500 : 200))
    const subscription = await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    const dispatcher = harness.dispatcher({ maxAttempts: 3 })
    dispatcher.start()
    await harness.ingest('tenant-a')
    await waitUntil(async () => (await statuses(harness))[0] === 'failed')
    expect(receiver.received).toHaveLength(3)
    expect(await harness.counter('failed')).toBe(1)

    const app = await routesApp(harness, () => dispatcher.kick())
    const list = await app.inject({
      method: 'GET',
      url: `/webhooks/${subscription.id}/deliveries`,
      headers: { 'x-test-tenant': 'tenant-a' },
    })
    expect(list.statusCode).toBe(200)
    const [delivery] = list.json().data as Array<{
      id: string
      status: string
      attempts: number
      responseStatus: number
    }>
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, responseStatus: 500 })
    isDown = false
    const redeliver = await app.inject({
      method: 'POST',
      url: `/webhooks/${subscription.id}/deliveries/${delivery?.id}/redeliver`,
      headers: { 'x-test-tenant': 'tenant-a' },
    })
    expect(redeliver.statusCode).toBe(202)
    await waitUntil(async () => (await statuses(harness))[0] === 'delivered')
    expect(receiver.received.filter((r) => r.status === 200)).toHaveLength(1)
    const otherTenant = await app.inject({
      method: 'POST',
      url: `/webhooks/${subscription.id}/deliveries/${delivery?.id}/redeliver`,
      headers: { 'x-test-tenant': 'tenant-b' },
    })
    expect(otherTenant.statusCode).toBe(404)
  })

  it('fails at once, without retrying, when the outbound policy refuses the destination', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 200)
    await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    // This dispatcher's client has no loopback allowlist: the (once allowed) URL is now refused.
    const strict = createOutboundClient({ allowCidrs: [] })
    cleanups.push(() => strict.close())
    harness.dispatcher({}, strict).start()
    await harness.ingest('tenant-a')
    await waitUntil(async () => (await statuses(harness))[0] === 'failed')
    expect(receiver.received).toHaveLength(0)
    expect(await harness.counter('failed')).toBe(1)
    expect(await harness.counter('retry')).toBe(0)
  })

  it('honours Retry-After on 429', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver((n) => (n === 1 ? [429, { 'retry-after': '1' }] : 200))
    await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    harness.dispatcher({ retryBaseMs: 10, retryMaxMs: 20 }).start()
    await harness.ingest('tenant-a')
    await waitUntil(() => receiver.received.length >= 2, 5000)
    const first = Number(receiver.received[0]?.headers['x-acdp-timestamp'])
    const second = Number(receiver.received[1]?.headers['x-acdp-timestamp'])
    expect(second - first).toBeGreaterThanOrEqual(1)
  })

  it('lets only the current claim holder settle a delivery', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 200)
    await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    await harness.ingest('tenant-a')
    const now = Date.now()
    const [first] = await harness.webhookStore.claimDueDeliveries({
      now,
      limit: 10,
      leaseOwner: 'a',
      leaseUntil: now + 50,
    })
    expect(first).toBeDefined()
    expect(
      await harness.webhookStore.claimDueDeliveries({ now, limit: 10, leaseOwner: 'b', leaseUntil: now + 50 }),
    ).toEqual([])
    // The lease expires: another worker re-claims, and the first one's late outcome is refused.
    const [again] = await harness.webhookStore.claimDueDeliveries({
      now: now + 60,
      limit: 10,
      leaseOwner: 'c',
      leaseUntil: now + 1000,
    })
    expect(again?.id).toBe(first?.id)
    // Each claim counted one attempt: the lost one is not given the same number again.
    expect([first?.attempt, again?.attempt]).toEqual([1, 2])
    const outcome = { status: 'delivered' as const, responseStatus: 200 }
    expect(await harness.webhookStore.settleDelivery({ id: first?.id as string, leaseOwner: 'a', now, outcome })).toBe(
      false,
    )
    expect(await harness.webhookStore.settleDelivery({ id: first?.id as string, leaseOwner: 'c', now, outcome })).toBe(
      true,
    )
  })

  it('counts the attempt when the row is claimed: after a worker died having sent, the repeat carries attempt 2', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 204)
    const subscription = await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    await harness.ingest('tenant-a')
    // A worker claims the row and dies (it may have sent: its outcome is never recorded).
    const claimedAt = Date.now()
    const [lost] = await harness.webhookStore.claimDueDeliveries({
      now: claimedAt,
      limit: 10,
      leaseOwner: 'dead-worker',
      leaseUntil: claimedAt + 50,
    })
    expect(lost?.attempt).toBe(1)
    const [inFlight] = await harness.webhookStore.listDeliveries('tenant-a', subscription.id, 10)
    expect(inFlight).toMatchObject({ status: 'pending', attempts: 1 })
    // Its lease expires; a live dispatcher takes the row over.
    await waitUntil(() => Date.now() > claimedAt + 50)
    harness.dispatcher().start()
    await waitUntil(async () => (await statuses(harness))[0] === 'delivered')
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]?.headers['x-acdp-event-id']).toBe(lost?.id)
    expect(receiver.received[0]?.headers['x-acdp-delivery-attempt']).toBe('2')
    const [settled] = await harness.webhookStore.listDeliveries('tenant-a', subscription.id, 10)
    expect(settled).toMatchObject({ status: 'delivered', attempts: 2 })
  })

  it('bounds a crash loop with maxAttempts: claims whose worker died count towards it', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 500)
    await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    await harness.ingest('tenant-a')
    let at = Date.now()
    for (const owner of ['dead-1', 'dead-2']) {
      const claims = await harness.webhookStore.claimDueDeliveries({
        now: at,
        limit: 10,
        leaseOwner: owner,
        leaseUntil: at + 20,
      })
      expect(claims).toHaveLength(1)
      at += 21
    }
    await waitUntil(() => Date.now() > at)
    harness.dispatcher({ maxAttempts: 3 }).start()
    await waitUntil(async () => (await statuses(harness))[0] === 'failed')
    // The third attempt was the only one that reached the receiver, and the last one allowed.
    expect(receiver.received.map((r) => r.headers['x-acdp-delivery-attempt'])).toEqual(['3'])
    expect(await harness.counter('failed')).toBe(1)
  })

  it('does not enqueue when the tenant has no subscription, and enqueues once a subscription appears', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 200)
    await harness.ingest('tenant-a')
    expect(await statuses(harness)).toEqual([])
    // The cache said "none"; creating a subscription invalidates it through the bus.
    await createSubscription(harness.subscriptionDeps, 'tenant-a', { url: receiver.url })
    await harness.ingest('tenant-a')
    expect(await statuses(harness)).toEqual(['pending'])
  })

  it('says it may enqueue unless the cached subscriptions match none of the event type; a change re-opens it', async () => {
    const harness = await openTargetHarness(target)
    const receiver = await startReceiver(() => 200)
    // Not cached yet: the hook must run (it reads the subscriptions inside the ingest transaction).
    expect(harness.outbox.mayEnqueue('tenant-a', 'context_published')).toBe(true)
    await harness.ingest('tenant-a')
    expect(harness.outbox.mayEnqueue('tenant-a', 'context_published')).toBe(false)
    await createSubscription(harness.subscriptionDeps, 'tenant-a', {
      url: receiver.url,
      events: ['context_retracted'],
    })
    expect(harness.outbox.mayEnqueue('tenant-a', 'context_published')).toBe(true)
    await harness.ingest('tenant-a')
    // Cached again: one subscription, for retractions only.
    expect(harness.outbox.mayEnqueue('tenant-a', 'context_published')).toBe(false)
    expect(harness.outbox.mayEnqueue('tenant-a', 'context_retracted')).toBe(true)
    expect(harness.outbox.mayEnqueue('tenant-b', 'context_published')).toBe(true)
    await harness.ingest('tenant-a', { type: 'context_retracted', isPublish: false })
    expect(await statuses(harness)).toEqual(['pending'])
  })
})

// ---------------------------------------------------------------------------------------------------------------

async function routesApp(harness: Harness, kickDelivery: () => void = () => {}): Promise<FastifyInstance> {
  const app = Fastify()
  // The app's validator (app.ts): TypeBox, which refuses unknown members instead of stripping them.
  app.setValidatorCompiler(TypeBoxValidatorCompiler)
  installErrorHandlers(app)
  app.decorateRequest('tenantId', '')
  app.addHook('onRequest', async (request) => {
    const tenant = request.headers['x-test-tenant']
    request.tenantId = typeof tenant === 'string' ? tenant : 'tenant-a'
  })
  registerWebhookRoutes(app, { ...harness.subscriptionDeps, kickDelivery })
  await app.ready()
  cleanups.push(() => app.close())
  return app
}

describe('webhook subscription routes', () => {
  async function open() {
    const database = (await openDatabase({ kind: 'sqlite', path: ':memory:' })) as Database<ControlPlaneTables>
    const harness = await openHarness(database)
    cleanups.unshift(() => database.close())
    return { harness, app: await routesApp(harness) }
  }
  const A = { 'x-test-tenant': 'tenant-a' }
  const B = { 'x-test-tenant': 'tenant-b' }

  it('creates a subscription, returns its secret once, and stores the secret sealed', async () => {
    const { harness, app } = await open()
    const created = await app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: A,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['context_published'], secret: 'a-secret-of-16-chars' },
    })
    expect(created.statusCode).toBe(201)
    const body = created.json()
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'tenant-a',
      url: 'http://127.0.0.1:9/hook',
      events: ['context_published'],
      active: true,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      secret: 'a-secret-of-16-chars',
    })
    const list = await app.inject({ method: 'GET', url: '/webhooks', headers: A })
    expect(list.json()).toEqual([{ ...body, secret: undefined }].map(({ secret: _s, ...rest }) => rest))
    const one = await app.inject({ method: 'GET', url: `/webhooks/${body.id}`, headers: A })
    expect(one.json()).not.toHaveProperty('secret')
    const [record] = await harness.webhookStore.listSubscriptions('tenant-a')
    expect(record?.secretSealed).not.toContain('a-secret-of-16-chars')
    expect(openSecret(KEYRING, record?.secretSealed as string, subscriptionSecretContext(body.id))).toBe(
      'a-secret-of-16-chars',
    )
  })

  it('generates a secret when none is given', async () => {
    const { app } = await open()
    const created = await app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: A,
      payload: { url: 'http://127.0.0.1:9/' },
    })
    expect(created.statusCode).toBe(201)
    expect(created.json().secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
  })

  it('updates, then deletes, and answers 404 NOT_FOUND for unknown or foreign ids on every verb', async () => {
    const { app } = await open()
    const { id } = (
      await app.inject({ method: 'POST', url: '/webhooks', headers: A, payload: { url: 'http://127.0.0.1:9/' } })
    ).json() as { id: string }
    const patched = await app.inject({
      method: 'PATCH',
      url: `/webhooks/${id}`,
      headers: A,
      payload: { active: false, events: ['x'] },
    })
    expect(patched.statusCode).toBe(200)
    expect(patched.json()).toMatchObject({ id, active: false, events: ['x'] })
    expect(patched.json()).not.toHaveProperty('secret')

    const unknown = formatUuidV4(new Uint8Array(16).fill(1))
    const cases = [
      { method: 'GET', url: `/webhooks/${unknown}`, headers: A },
      { method: 'PATCH', url: `/webhooks/${unknown}`, headers: A, payload: { active: true } },
      { method: 'DELETE', url: `/webhooks/${unknown}`, headers: A },
      { method: 'GET', url: '/webhooks/not-a-uuid', headers: A },
      { method: 'GET', url: `/webhooks/${id}`, headers: B },
      { method: 'PATCH', url: `/webhooks/${id}`, headers: B, payload: { active: true } },
      { method: 'DELETE', url: `/webhooks/${id}`, headers: B },
      { method: 'GET', url: `/webhooks/${id}/deliveries`, headers: B },
    ] as const
    for (const c of cases) {
      const res = await app.inject(c as never)
      expect([c.method, c.url, res.statusCode, res.json()]).toEqual([
        c.method,
        c.url,
        404,
        { statusCode: 404, errorCode: 'NOT_FOUND', message: expect.any(String) },
      ])
    }
    expect((await app.inject({ method: 'GET', url: '/webhooks', headers: B })).json()).toEqual([])
    expect((await app.inject({ method: 'DELETE', url: `/webhooks/${id}`, headers: A })).statusCode).toBe(204)
    expect((await app.inject({ method: 'GET', url: `/webhooks/${id}`, headers: A })).statusCode).toBe(404)
  })

  it.each([
    ['an unknown member', { url: 'http://127.0.0.1:9/', extra: 1 }],
    ['a missing url', { events: [] }],
    ['a relative url', { url: '/hook' }],
    ['a non-http scheme', { url: 'ftp://127.0.0.1/hook' }],
    ['a private address outside the allowlist', { url: 'http://10.1.2.3/hook' }],
    ['the metadata address', { url: 'http://169.254.169.254/latest' }],
    ['credentials in the url', { url: 'http://user:pw@127.0.0.1:9/' }],
    ['a short secret', { url: 'http://127.0.0.1:9/', secret: 'short' }],
    ['a malformed event type', { url: 'http://127.0.0.1:9/', events: ['has space'] }],
  ])('refuses a subscription with %s (400)', async (_name, payload) => {
    const { app } = await open()
    const res = await app.inject({ method: 'POST', url: '/webhooks', headers: A, payload })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
  })

  it('refuses an empty PATCH body', async () => {
    const { app } = await open()
    const { id } = (
      await app.inject({ method: 'POST', url: '/webhooks', headers: A, payload: { url: 'http://127.0.0.1:9/' } })
    ).json() as { id: string }
    const res = await app.inject({ method: 'PATCH', url: `/webhooks/${id}`, headers: A, payload: {} })
    expect(res.statusCode).toBe(400)
  })
})

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2026, 0, 1)
  it.each([
    ['delta seconds', '120', 120_000],
    ['zero', '0', 0],
    ['an HTTP-date in the future', new Date(now + 5000).toUTCString(), 5000],
    ['an HTTP-date in the past', new Date(now - 5000).toUTCString(), 0],
    ['garbage', 'soon', undefined],
    ['a negative number', '-5', undefined],
    ['absent', undefined, undefined],
  ])('parses %s', (_name, value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected)
  })
})

const pgUrl = testDatabaseUrl()

describe.runIf(pgUrl)('two dispatchers on one PostgreSQL outbox', () => {
  it('deliver every event exactly once between them', async () => {
    const first = (await openPostgresTestSchema(pgUrl as string)) as Database<ControlPlaneTables>
    const harnessA = await openHarness(first)
    const schema = (await first.pool?.query<{ s: string }>('SELECT current_schema() AS s'))?.rows[0]?.s as string
    const second = await openDatabase<ControlPlaneTables>({ kind: 'postgres', url: pgUrl as string, schema })
    const harnessB = await openHarness(second, { migrate: false })
    cleanups.unshift(async () => {
      await second.close()
      await first.close()
    })
    const receiver = await startReceiver((n) => (n % 3 === 0 ? 500 : 200))
    await createSubscription(harnessA.subscriptionDeps, 'tenant-a', { url: receiver.url })
    await createSubscription(harnessA.subscriptionDeps, 'tenant-a', { url: `${receiver.url}?second` })
    const settings = { concurrency: 4, retryBaseMs: 5, retryMaxMs: 20, sweepIntervalMs: 50 }
    harnessA.dispatcher(settings).start()
    harnessB.dispatcher(settings).start()
    const total = 60
    for (let i = 0; i < total; i++) {
      // Ingest alternates between the instances' stores, as behind a load balancer.
      await (i % 2 ? harnessB : harnessA).ingest('tenant-a')
    }
    await waitUntil(async () => {
      const s = await statuses(harnessA)
      return s.length === total * 2 && s.every((x) => x === 'delivered')
    }, 30_000)
    const accepted = receiver.received.filter((r) => r.status === 200)
    const ids = accepted.map((r) => r.headers['x-acdp-event-id'])
    expect(ids).toHaveLength(total * 2)
    expect(new Set(ids).size).toBe(total * 2)
    // Both dispatchers took part.
    expect((await harnessA.counter('delivered')) + (await harnessB.counter('delivered'))).toBe(total * 2)
    expect(await harnessA.counter('delivered')).toBeGreaterThan(0)
    expect(await harnessB.counter('delivered')).toBeGreaterThan(0)
  })
})
