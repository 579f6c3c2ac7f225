/**
 * Webhooks end to end: a publish and a retrieval on the real app, delivered by the real dispatcher through the
 * outbound policy client to a receiver on loopback, verified the way the control plane verifies them.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOutboundClient, type OutboundClient, verifyWebhookSignature } from '@acdp/protocol'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createWebhookDispatcher, type WebhookDispatcher } from '../src/webhooks/webhooks.js'
import {
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  publish,
  signRequest,
  type TestRegistry,
} from './support/registry-harness.js'

const SECRET = 'end-to-end-webhook-secret'

describe('webhook delivery from the registry app', () => {
  let server: Server
  let url: string
  let client: OutboundClient
  let dispatcher: WebhookDispatcher
  let registry: TestRegistry
  const received: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = []

  beforeEach(async () => {
    received.length = 0
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest/acdp`
    client = createOutboundClient({ allowCidrs: ['127.0.0.1/32'], allowHttpForAllowlisted: true })
    const clock = () => new Date('2026-05-01T12:00:00.000Z')
    dispatcher = createWebhookDispatcher(
      { enabled: true, url, secret: SECRET, timeout_seconds: 5, max_retries: 3, queue_capacity: 64 },
      {
        client,
        log: { info() {}, warn() {}, error() {} },
        clock,
        random: (n) => randomBytes(n),
        sleep: async () => {},
      },
    )
    registry = await createTestRegistry({ deps: { webhooks: dispatcher } })
  })

  afterEach(async () => {
    await registry.close()
    await dispatcher.close()
    await client.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('delivers one signed context.published per first publish and one context.retrieved per read', async () => {
    const p = didKeyProducer()
    const body = signRequest(p, minimalUnsigned(p, { title: 'delivered' }))
    const first = await publish(registry.app, body, { 'idempotency-key': 'k1', 'x-run-id': 'run-a' })
    expect(first.statusCode).toBe(201)
    const replay = await publish(registry.app, body, { 'idempotency-key': 'k1', 'x-run-id': 'run-b' })
    expect(replay.statusCode).toBe(200)
    const { ctx_id } = first.json() as { ctx_id: string }
    await registry.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctx_id)}` })

    await vi.waitFor(() => expect(received).toHaveLength(2))
    await dispatcher.close()
    expect(received).toHaveLength(2)
    const [published, retrieved] = received.map((r) => ({ ...r, json: JSON.parse(r.body.toString('utf8')) }))
    for (const delivery of [published!, retrieved!]) {
      expect(verifyWebhookSignature(SECRET, delivery.body, delivery.headers['x-acdp-signature'] as string)).toBe(true)
      expect(delivery.headers['x-acdp-event-id']).toBe(delivery.json.event_id)
      expect(delivery.json.schema_version).toBe('1.0')
    }
    expect(published!.headers['x-acdp-event']).toBe('context.published')
    expect(published!.json).toMatchObject({
      type: 'context_published',
      ctx_id: ctx_id.slice('acdp://'.length),
      agent_id: p.did,
      run_id: 'run-a',
    })
    expect(retrieved!.headers['x-acdp-event']).toBe('context.retrieved')
    expect(retrieved!.json).toMatchObject({ type: 'context_retrieved', requester_did: null })
  })

  it('never fails or delays a publish when the receiver is down', async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    server = createServer()
    const p = didKeyProducer()
    const res = await publish(registry.app, signRequest(p, minimalUnsigned(p)))
    expect(res.statusCode).toBe(201)
    expect(dispatcher.stats().queue_in_flight).toBeLessThanOrEqual(1)
  })
})
