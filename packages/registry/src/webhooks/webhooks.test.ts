import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createOutboundClient,
  type OutboundClient,
  type RegistryWebhookEventFields,
  verifyTimestampedWebhook,
  verifyWebhookSignature,
  verifyWebhookV2,
} from '@acdp/protocol'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  assertWebhookConfigAllowed,
  computeWebhookBackoffMs,
  createWebhookDispatcher,
  toEventCtxId,
  type WebhookConfig,
  type WebhookDispatcher,
  type WebhookOutcome,
} from './webhooks.js'

const SECRET = 'test-webhook-secret-0123456789'
const NOW = new Date('2026-05-01T12:00:00.000Z')
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const PUBLISHED: RegistryWebhookEventFields = {
  type: 'context_published',
  registry_authority: 'registry.example.com',
  registry_base_url: 'https://registry.example.com',
  ctx_id: 'registry.example.com/550e8400-e29b-41d4-a716-446655440000',
  lineage_id: 'lin:sha256:ca770dc5d7c41109753bd3d045c2b7bd4cf687ab9cd2552ff17a37bcecbd0810',
  agent_id: 'did:web:agents.example.com:collector',
  context_type: 'observation',
  visibility: 'public',
  version: 1,
  created_at: '2026-05-01T12:00:00.000Z',
  derived_from: [],
  run_id: 'run-42',
}

interface Received {
  headers: IncomingMessage['headers']
  body: Buffer
}

/** A real receiver on loopback whose answer per request is scripted by the test. */
class Receiver {
  readonly received: Received[] = []
  respond: (index: number, res: ServerResponse) => void = (_i, res) => res.writeHead(204).end()
  private server: Server | undefined
  url = ''

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks) })
        this.respond(this.received.length - 1, res)
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/ingest/acdp`
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
  }
}

function loopbackClient(): OutboundClient {
  return createOutboundClient({ allowCidrs: ['127.0.0.1/32'], allowHttpForAllowlisted: true })
}

function config(url: string, overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    enabled: true,
    url,
    secret: SECRET,
    timeout_seconds: 5,
    max_retries: 3,
    queue_capacity: 1024,
    ...overrides,
  }
}

function silentLog() {
  const warnings: Array<{ obj: object; msg: string }> = []
  return {
    warnings,
    log: {
      info: () => {},
      warn: (obj: object, msg: string) => warnings.push({ obj, msg }),
      error: (obj: object, msg: string) => warnings.push({ obj, msg }),
    },
  }
}

describe('webhook dispatcher against a real receiver', () => {
  const receiver = new Receiver()
  let client: OutboundClient
  let dispatcher: WebhookDispatcher | undefined
  let delays: number[]
  let outcomes: WebhookOutcome[]

  beforeEach(async () => {
    await receiver.start()
    receiver.received.length = 0
    receiver.respond = (_i, res) => res.writeHead(204).end()
    client = loopbackClient()
    delays = []
    outcomes = []
  })

  afterEach(async () => {
    await dispatcher?.close({ drainTimeoutMs: 2000 })
    dispatcher = undefined
    await client.close()
    await receiver.stop()
  })

  function build(
    overrides: Partial<WebhookConfig> = {},
    extra: { sleep?: (ms: number, signal: AbortSignal) => Promise<void> } = {},
  ) {
    const { log, warnings } = silentLog()
    dispatcher = createWebhookDispatcher(config(receiver.url, overrides), {
      client,
      log,
      clock: () => NOW,
      random: (n) => randomBytes(n),
      jitter: () => 0,
      sleep:
        extra.sleep ??
        (async (ms) => {
          delays.push(ms)
        }),
      onOutcome: (o) => outcomes.push(o),
    })
    return { dispatcher, warnings }
  }

  it('delivers a flat, signed context_published envelope with the spec headers', async () => {
    const { dispatcher } = build()
    const eventId = dispatcher.emit(PUBLISHED, { tenantId: 'acme' })
    await dispatcher.close()

    expect(eventId).toMatch(UUID_V4)
    expect(receiver.received).toHaveLength(1)
    const [delivery] = receiver.received
    const body = JSON.parse(delivery!.body.toString('utf8'))
    expect(body).toEqual({ ...PUBLISHED, event_id: eventId, schema_version: '1.0' })
    expect(delivery!.headers['content-type']).toBe('application/json')
    expect(delivery!.headers['x-acdp-event']).toBe('context.published')
    expect(delivery!.headers['x-acdp-event-id']).toBe(eventId)
    expect(delivery!.headers['x-tenant-id']).toBe('acme')
    expect(verifyWebhookSignature(SECRET, delivery!.body, delivery!.headers['x-acdp-signature'] as string)).toBe(true)
    expect(
      verifyTimestampedWebhook(SECRET, delivery!.body, delivery!.headers['x-acdp-signature-timestamped'] as string, {
        timestamp: delivery!.headers['x-acdp-timestamp'] as string,
        nowSeconds: NOW.getTime() / 1000,
        toleranceSeconds: 0,
      }),
    ).toBe(true)
    const check = {
      timestamp: delivery!.headers['x-acdp-timestamp'] as string,
      nowSeconds: NOW.getTime() / 1000,
      toleranceSeconds: 0,
    }
    const v2 = delivery!.headers['x-acdp-signature-v2'] as string
    expect(verifyWebhookV2(SECRET, delivery!.body, v2, { tenantId: 'acme', runId: undefined, eventId }, check)).toBe(
      true,
    )
    // The tenant and the event id are inside the MAC: the same bytes under another tenant or id do not verify.
    expect(verifyWebhookV2(SECRET, delivery!.body, v2, { tenantId: 'beta', runId: undefined, eventId }, check)).toBe(
      false,
    )
    expect(verifyWebhookV2(SECRET, delivery!.body, v2, { tenantId: undefined, runId: undefined, eventId }, check)).toBe(
      false,
    )
    expect(
      verifyWebhookV2(SECRET, delivery!.body, v2, { tenantId: 'acme', runId: undefined, eventId: 'x' }, check),
    ).toBe(false)
    expect(outcomes).toEqual(['enqueued', 'delivered'])
  })

  it('sends no X-Tenant-Id for an event that is not tenant-scoped', async () => {
    const { dispatcher } = build()
    dispatcher.emit({
      type: 'context_retrieved',
      registry_authority: 'registry.example.com',
      ctx_id: 'registry.example.com/550e8400-e29b-41d4-a716-446655440000',
      requester_did: null,
      at: '2026-05-01T12:00:00.000Z',
    })
    await dispatcher.close()
    expect(receiver.received[0]!.headers['x-tenant-id']).toBeUndefined()
    const [delivery] = receiver.received
    const bound = { tenantId: undefined, runId: undefined, eventId: delivery!.headers['x-acdp-event-id'] as string }
    const check = {
      timestamp: delivery!.headers['x-acdp-timestamp'] as string,
      nowSeconds: NOW.getTime() / 1000,
      toleranceSeconds: 0,
    }
    expect(
      verifyWebhookV2(SECRET, delivery!.body, delivery!.headers['x-acdp-signature-v2'] as string, bound, check),
    ).toBe(true)
    expect(receiver.received[0]!.headers['x-acdp-event']).toBe('context.retrieved')
    expect(JSON.parse(receiver.received[0]!.body.toString()).requester_did).toBeNull()
  })

  it.each([
    { failures: 1, status: 500 },
    { failures: 2, status: 503 },
    { failures: 3, status: 429 },
  ])(
    'retries $failures× after $status and then delivers, with a stable event id and the same bytes',
    async ({ failures, status }) => {
      receiver.respond = (i, res) => res.writeHead(i < failures ? status : 200).end()
      const { dispatcher } = build({ max_retries: 3 })
      const eventId = dispatcher.emit(PUBLISHED)
      await dispatcher.close()

      expect(receiver.received).toHaveLength(failures + 1)
      const ids = new Set(receiver.received.map((r) => r.headers['x-acdp-event-id']))
      expect([...ids]).toEqual([eventId])
      const bodies = new Set(receiver.received.map((r) => r.body.toString('hex')))
      expect(bodies.size).toBe(1)
      for (const r of receiver.received) {
        expect(verifyWebhookSignature(SECRET, r.body, r.headers['x-acdp-signature'] as string)).toBe(true)
      }
      expect(delays).toEqual([250, 500, 1000].slice(0, failures))
      expect(outcomes.filter((o) => o === 'retried')).toHaveLength(failures)
      expect(outcomes.at(-1)).toBe('delivered')
    },
  )

  it('gives up after max_retries retries and drops the event', async () => {
    receiver.respond = (_i, res) => res.writeHead(502).end()
    const { dispatcher, warnings } = build({ max_retries: 2 })
    dispatcher.emit(PUBLISHED)
    await dispatcher.close()
    expect(receiver.received).toHaveLength(3)
    expect(delays).toEqual([250, 500])
    expect(outcomes.at(-1)).toBe('failed_exhausted')
    expect(warnings.some((w) => w.msg.includes('retries exhausted'))).toBe(true)
  })

  it.each([400, 401, 403, 404, 410, 422])('treats a %i answer as permanent and never retries', async (status) => {
    receiver.respond = (_i, res) => res.writeHead(status).end()
    const { dispatcher } = build()
    dispatcher.emit(PUBLISHED)
    await dispatcher.close()
    expect(receiver.received).toHaveLength(1)
    expect(delays).toEqual([])
    expect(outcomes.at(-1)).toBe('failed_permanent')
  })

  it('retries a transport error (connection reset) and then delivers', async () => {
    receiver.respond = (i, res) => (i === 0 ? res.socket?.destroy() : res.writeHead(200).end())
    const { dispatcher } = build()
    dispatcher.emit(PUBLISHED)
    await dispatcher.close()
    expect(receiver.received).toHaveLength(2)
    expect(delays).toEqual([250])
    expect(outcomes.at(-1)).toBe('delivered')
  })

  it('honours a longer Retry-After on 429, within the 15 s cap', async () => {
    receiver.respond = (i, res) =>
      i === 0 ? res.writeHead(429, { 'retry-after': '2' }).end() : res.writeHead(200).end()
    const { dispatcher } = build()
    dispatcher.emit(PUBLISHED)
    await dispatcher.close()
    expect(delays).toEqual([2000])
  })

  it('drops events with a warning when the queue is full, without blocking the caller', async () => {
    const held: ServerResponse[] = []
    receiver.respond = (_i, res) => held.push(res)
    const { dispatcher, warnings } = build({ queue_capacity: 2 })
    const first = dispatcher.emit(PUBLISHED)
    const second = dispatcher.emit(PUBLISHED)
    const third = dispatcher.emit(PUBLISHED)

    expect(first).toMatch(UUID_V4)
    expect(second).toMatch(UUID_V4)
    expect(third).toBeUndefined()
    expect(dispatcher.stats()).toEqual({ enabled: true, queue_in_flight: 2, queue_capacity: 2 })
    expect(outcomes).toEqual(['enqueued', 'enqueued', 'dropped_queue_full'])
    expect(warnings.map((w) => w.msg)).toContain('webhook queue full; event dropped')

    await vi.waitFor(() => expect(held).toHaveLength(2))
    for (const res of held) res.writeHead(200).end()
    await dispatcher.close()
    expect(receiver.received).toHaveLength(2)
    expect(dispatcher.stats().queue_in_flight).toBe(0)
  })

  it('accepts new events again once the queue has room', async () => {
    const { dispatcher } = build({ queue_capacity: 1 })
    dispatcher.emit(PUBLISHED)
    await vi.waitFor(() => expect(dispatcher.stats().queue_in_flight).toBe(0))
    expect(dispatcher.emit(PUBLISHED)).toMatch(UUID_V4)
  })

  it('refuses events after close and drains what was queued', async () => {
    const { dispatcher } = build()
    for (let i = 0; i < 10; i += 1) dispatcher.emit(PUBLISHED)
    await dispatcher.close()
    expect(receiver.received).toHaveLength(10)
    expect(dispatcher.emit(PUBLISHED)).toBeUndefined()
  })

  it('drops events still backing off when the drain deadline passes', async () => {
    receiver.respond = (_i, res) => res.writeHead(503).end()
    const { dispatcher } = build(
      { max_retries: 5 },
      {
        sleep: (_ms, signal) =>
          new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
      },
    )
    dispatcher.emit(PUBLISHED)
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1))
    await dispatcher.close({ drainTimeoutMs: 50 })
    expect(receiver.received).toHaveLength(1)
    expect(outcomes.at(-1)).toBe('dropped_shutdown')
    expect(dispatcher.stats().queue_in_flight).toBe(0)
  })

  it('delivers to a receiver that is refused by policy as a permanent failure', async () => {
    const strict = createOutboundClient({ allowCidrs: [] })
    const { log } = silentLog()
    const local = createWebhookDispatcher(config(receiver.url), {
      client: strict,
      log,
      clock: () => NOW,
      random: (n) => randomBytes(n),
      sleep: async (ms) => {
        delays.push(ms)
      },
      onOutcome: (o) => outcomes.push(o),
    })
    local.emit(PUBLISHED)
    await local.close()
    await strict.close()
    expect(receiver.received).toHaveLength(0)
    expect(outcomes).toEqual(['enqueued', 'failed_permanent'])
  })
})

describe('disabled webhooks', () => {
  it('accepts and discards events without touching the network', async () => {
    const dispatcher = createWebhookDispatcher(config('https://hooks.example.com', { enabled: false }), {
      client: {
        request: () => Promise.reject(new Error('must not be called')),
        checkUrl: () => Promise.resolve(),
      },
      log: silentLog().log,
      clock: () => NOW,
      random: (n) => randomBytes(n),
    })
    expect(dispatcher.emit(PUBLISHED)).toBeUndefined()
    expect(dispatcher.stats()).toEqual({ enabled: false, queue_in_flight: 0, queue_capacity: 1024 })
    await dispatcher.close()
  })
})

describe('webhook startup checks', () => {
  const client = createOutboundClient({ allowCidrs: [] })
  afterAll(() => client.close())

  it.each([
    { name: 'plain http', url: 'http://hooks.example.com/x', message: /webhook\.url/ },
    { name: 'loopback', url: 'https://127.0.0.1/x', message: /webhook\.url/ },
    { name: 'private address', url: 'https://10.1.2.3/x', message: /webhook\.url/ },
    { name: 'metadata address', url: 'https://169.254.169.254/x', message: /webhook\.url/ },
    { name: 'credentials in URL', url: 'https://user:pw@93.184.216.34/x', message: /webhook\.url/ },
    { name: 'not a URL', url: 'not a url', message: /webhook\.url/ },
    { name: 'empty', url: '', message: /webhook\.url must be set/ },
  ])('refuses a webhook.url that fails the outbound policy ($name)', async ({ url, message }) => {
    await expect(assertWebhookConfigAllowed(config(url), client)).rejects.toThrow(message)
  })

  it('accepts a public HTTPS IP literal without connecting', async () => {
    await expect(assertWebhookConfigAllowed(config('https://93.184.216.34/ingest/acdp'), client)).resolves.toBe(
      undefined,
    )
  })

  it.each([
    { name: 'empty secret', overrides: { secret: '' }, message: /webhook\.secret/ },
    { name: 'zero capacity', overrides: { queue_capacity: 0 }, message: /queue_capacity/ },
    { name: 'negative retries', overrides: { max_retries: -1 }, message: /max_retries/ },
    { name: 'zero timeout', overrides: { timeout_seconds: 0 }, message: /timeout_seconds/ },
  ])('refuses $name', async ({ overrides, message }) => {
    await expect(assertWebhookConfigAllowed(config('https://93.184.216.34/x', overrides), client)).rejects.toThrow(
      message,
    )
  })

  it('checks nothing when webhooks are disabled', async () => {
    await expect(assertWebhookConfigAllowed(config('', { enabled: false, secret: '' }), client)).resolves.toBe(
      undefined,
    )
  })
})

describe('webhook backoff', () => {
  it.each([
    { retry: 0, jitter: 0, expected: 250 },
    { retry: 1, jitter: 0, expected: 500 },
    { retry: 2, jitter: 0, expected: 1000 },
    { retry: 5, jitter: 0, expected: 8000 },
    { retry: 6, jitter: 0, expected: 15_000 },
    { retry: 60, jitter: 0, expected: 15_000 },
    { retry: 0, jitter: 0.999, expected: 299 },
    { retry: 5, jitter: 0.999, expected: 9598 },
    { retry: 6, jitter: 0.999, expected: 15_000 },
  ])('retry $retry with jitter $jitter waits $expected ms', ({ retry, jitter, expected }) => {
    expect(computeWebhookBackoffMs(retry, jitter)).toBe(expected)
  })

  it.each([
    { retryAfter: 0, expected: 250 },
    { retryAfter: 3, expected: 3000 },
    { retryAfter: 3600, expected: 15_000 },
  ])('a Retry-After of $retryAfter s gives $expected ms on the first retry', ({ retryAfter, expected }) => {
    expect(computeWebhookBackoffMs(0, 0, retryAfter)).toBe(expected)
  })
})

describe('event ctx_id form', () => {
  it.each([
    {
      wire: 'acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000',
      event: 'registry.example.com/550e8400-e29b-41d4-a716-446655440000',
    },
    { wire: 'registry.example.com/x', event: 'registry.example.com/x' },
  ])('$wire becomes $event', ({ wire, event }) => {
    expect(toEventCtxId(wire)).toBe(event)
  })
})
