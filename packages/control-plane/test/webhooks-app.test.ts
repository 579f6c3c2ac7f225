/**
 * The live features through the whole app (buildApp): a signed registry delivery on POST /ingest/acdp reaches an
 * outbound webhook subscriber (signed, timestamped) and an authenticated SSE stream; subscriptions are managed over
 * the authenticated /webhooks routes; /metrics counts it all. Real sockets for the receiver and the stream.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifyTimestampedWebhook, verifyWebhookSignature } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const LOOPBACK_ENV = { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', OUTBOUND_ALLOW_HTTP: 'true' }

interface Received {
  headers: IncomingHttpHeaders
  body: string
}

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.()
})

async function startReceiver(status: () => number) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(status()).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe.each(testDatabaseTargets())('live features through the app on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t?.close()
  })

  it('delivers an ingested event to a subscriber created over the API, signed and timestamped', async () => {
    t = await openTestApp(target, LOOPBACK_ENV)
    const receiver = await startReceiver(() => 202)
    const created = await t.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: bearer(USER_KEY),
      payload: { url: receiver.url, events: ['context_published'] },
    })
    expect(created.statusCode).toBe(201)
    const { id, secret } = created.json() as { id: string; secret: string }

    const body = publishedEvent({ run_id: 'run-7' })
    expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)
    // Not subscribed: retrievals are stored but not delivered.
    expect((await t.app.inject(signedDelivery(retrievedEvent()))).statusCode).toBe(204)
    await waitUntil(() => receiver.received.length === 1)

    const [delivery] = receiver.received as [Received]
    expect(verifyWebhookSignature(secret, delivery.body, delivery.headers['x-acdp-signature'] as string)).toBe(true)
    expect(delivery.headers['x-acdp-timestamp']).toBe(String(Math.floor(T0 / 1000)))
    expect(
      verifyTimestampedWebhook(secret, delivery.body, delivery.headers['x-acdp-signature-timestamped'] as string, {
        timestamp: delivery.headers['x-acdp-timestamp'] as string,
        nowSeconds: Math.floor(T0 / 1000),
        toleranceSeconds: 300,
      }),
    ).toBe(true)
    expect(delivery.headers['x-acdp-event']).toBe('context_published')
    const parsed = JSON.parse(delivery.body) as Record<string, unknown>
    expect(parsed).toMatchObject({
      id: delivery.headers['x-acdp-event-id'],
      event: 'context_published',
      eventId: body.event_id,
      runId: 'run-7',
      timestamp: '2026-01-15T11:59:00.000Z',
      data: { type: 'context_published', runId: 'run-7', ctxId: body.ctx_id, ts: '2026-01-15T11:59:00.000Z' },
    })

    await waitUntil(async () => (await t.counter('acdp_webhook_deliveries_total', { status: 'delivered' })) === 1)
    const deliveries = await t.app.inject({
      method: 'GET',
      url: `/webhooks/${id}/deliveries`,
      headers: bearer(USER_KEY),
    })
    expect(deliveries.json()).toMatchObject({
      total: 1,
      data: [{ status: 'delivered', attempts: 1, responseStatus: 202 }],
    })
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toContain('acdp_webhook_deliveries_total{status="delivered"} 1')
  })

  it('does not write outbox rows for a replayed (deduplicated) delivery', async () => {
    t = await openTestApp(target, LOOPBACK_ENV)
    const receiver = await startReceiver(() => 200)
    const { id } = (
      await t.app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: bearer(USER_KEY),
        payload: { url: receiver.url },
      })
    ).json() as { id: string }
    const delivery = signedDelivery(publishedEvent())
    expect((await t.app.inject(delivery)).statusCode).toBe(204)
    expect((await t.app.inject(delivery)).statusCode).toBe(204)
    await waitUntil(() => receiver.received.length === 1)
    await new Promise((r) => setTimeout(r, 100))
    const list = await t.app.inject({ method: 'GET', url: `/webhooks/${id}/deliveries`, headers: bearer(USER_KEY) })
    expect(list.json().total).toBe(1)
    expect(receiver.received).toHaveLength(1)
  })

  it('requires a credential on the webhook, stream and domain-pack routes but not on /metrics', async () => {
    t = await openTestApp(target, LOOPBACK_ENV)
    for (const [method, url] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['GET', '/events/stream'],
      ['GET', '/runs/r/events/stream'],
      ['GET', '/domain-packs'],
    ] as const) {
      const res = await t.app.inject({ method, url })
      expect([method, url, res.statusCode, res.json().errorCode]).toEqual([method, url, 401, 'UNAUTHORIZED'])
    }
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200)
  })

  it('streams an ingested event to an authenticated SSE client of the same tenant', async () => {
    t = await openTestApp(target, LOOPBACK_ENV)
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const port = (t.app.server.address() as AddressInfo).port
    const frames: string[] = []
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/runs/run-9/events/stream',
        headers: { ...bearer(USER_KEY), accept: 'text/event-stream' },
      })
      req.on('response', resolve).on('error', reject).end()
    })
    expect(response.statusCode).toBe(200)
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => frames.push(chunk))
    const body = publishedEvent({ run_id: 'run-9' })
    expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)
    await waitUntil(() => frames.join('').includes('event: context_published'))
    const text = frames.join('')
    expect(text).toMatch(
      /id: \d+\nevent: context_published\ndata: \{"type":"context_published","ts":"2026-01-15T11:59:00.000Z","runId":"run-9"/,
    )
    response.destroy()
  })
})
