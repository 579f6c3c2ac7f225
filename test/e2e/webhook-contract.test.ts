/**
 * The webhook contract between the two servers, end to end: a registry of this repository (receipts, log and
 * lifecycle on) emits every event type it has (`@acdp/protocol` WEBHOOK_EVENT_HEADER_NAMES) to a real control
 * plane on loopback, through a relay that records each delivery and the control plane's answer. Every body the
 * registry sends must pass the protocol's closed envelope schema of its type (the sender's side of the contract)
 * and be accepted and stored by the control plane's ingest (the receiver's side).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import {
  ContextPublishedWebhookEvent,
  ContextRepublishedWebhookEvent,
  ContextRetractedWebhookEvent,
  ContextRetrievedWebhookEvent,
  createProducer,
  createProducerKey,
  type ProducerKey,
  SearchExecutedWebhookEvent,
  signLifecycleEvent,
  WEBHOOK_EVENT_HEADER_NAMES,
  type WebhookEventType,
} from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually } from '../support/eventually.js'
import { startRelayedRegistry } from '../support/relayed-registry.js'
import { type ForwardedDelivery, startRelay, type WebhookRelay } from '../support/webhook-relay.js'
import type { RunningRegistry } from '../../packages/registry/src/start.js'
import { bearer, openTestApp, type TestApp, USER_KEY } from '../../packages/control-plane/test/support/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const AUTHORITY = 'webhook.contract.test'
const TENANT = 'acme'
const RUN = 'contract-run'

/** The protocol's closed envelope schema per body `type`. */
const ENVELOPES: Record<WebhookEventType, TSchema> = {
  context_published: ContextPublishedWebhookEvent,
  context_retrieved: ContextRetrievedWebhookEvent,
  search_executed: SearchExecutedWebhookEvent,
  context_retracted: ContextRetractedWebhookEvent,
  context_republished: ContextRepublishedWebhookEvent,
}

const sqlite = testDatabaseTargets().find((target) => target.name === 'sqlite')!

describe('the registry webhook contract, registry to control plane', () => {
  let t: TestApp
  let registry: RunningRegistry
  let relay: WebhookRelay
  let dataDir: string
  let registryUrl: string

  afterEach(async () => {
    await registry?.close()
    relay?.server.close()
    await t?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function setUp(): Promise<void> {
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-webhook-contract-'))
    // The registry signs its deliveries with the wall clock: the control plane runs on it too.
    t = await openTestApp(sqlite, { ENROLLMENT_CACHE_MS: '0' }, { clock: () => new Date() })
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const planeUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    relay = await startRelay(() => planeUrl)
    ;({ registry, url: registryUrl } = await startRelayedRegistry(t, relay, {
      authority: AUTHORITY,
      tenant: TENANT,
      dataDir,
      receiptSeedByte: 0x43,
      lifecycle: true,
    }))
  }

  /** Appends a lifecycle event signed by the producer (RFC-ACDP-0013 §6). */
  async function lifecycle(key: ProducerKey, ctxId: string, action: 'retract' | 'republish'): Promise<void> {
    const event = signLifecycleEvent(
      {
        event_id: randomUUID(),
        ctx_id: ctxId,
        event_type: action === 'retract' ? 'retracted' : 'republished',
        occurred_at: new Date().toISOString(),
        actor: key.did,
        ...(action === 'retract' ? { reason: 'source withdrawn' } : {}),
      },
      { algorithm: key.algorithm, keyId: key.keyId, privateKey: key.privateKey },
    )
    const answer = await fetch(`${registryUrl}/contexts/${encodeURIComponent(ctxId)}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/acdp+json' },
      body: JSON.stringify({ event }),
    })
    expect(answer.status).toBe(200)
  }

  /** The delivery of body type `type`, once the relay has passed it on. */
  const delivered = (type: WebhookEventType): Promise<ForwardedDelivery> =>
    eventually(
      `the ${type} delivery`,
      async () => relay.forwarded.find((d) => JSON.parse(d.body.toString('utf8')).type === type),
      { timeoutMs: 15_000, intervalMs: 20 },
    )

  it('delivers every event type in the protocol shape, and the control plane stores each one', async () => {
    await setUp()
    const key = createProducerKey()
    const producer = createProducer({ registryUrl, key })
    const { ctxId } = await producer.publish({ title: 'contract', type: 'analysis' }, { runId: RUN })
    await delivered('context_published')
    expect((await fetch(`${registryUrl}/contexts/${encodeURIComponent(ctxId)}`)).status).toBe(200)
    await delivered('context_retrieved')
    expect((await fetch(`${registryUrl}/contexts/search?q=contract&limit=5`)).status).toBe(200)
    await delivered('search_executed')
    await lifecycle(key, ctxId, 'retract')
    await delivered('context_retracted')
    await lifecycle(key, ctxId, 'republish')
    await delivered('context_republished')

    const types = Object.keys(WEBHOOK_EVENT_HEADER_NAMES) as WebhookEventType[]
    for (const type of types) {
      const delivery = await delivered(type)
      const body: Json = JSON.parse(delivery.body.toString('utf8'))
      expect([...Value.Errors(ENVELOPES[type], body)], `${type} against the protocol schema`).toEqual([])
      expect(delivery.headers['x-acdp-event']).toBe(WEBHOOK_EVENT_HEADER_NAMES[type])
      expect(delivery.headers['x-acdp-event-id']).toBe(body.event_id)
      expect(delivery.status, `the control plane's answer to ${type}`).toBe(204)
      const stored = await t.app.inject({
        method: 'GET',
        url: `/events?eventType=${type}&limit=10`,
        headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT },
      })
      expect(stored.json().data.map((e: Json) => e.eventId)).toEqual([body.event_id])
    }
    // The publication's members reached the control plane's projections in the wire form.
    const published: Json = JSON.parse((await delivered('context_published')).body.toString('utf8'))
    expect(published.ctx_id).toBe(ctxId.replace(/^acdp:\/\//, ''))
    expect(published.run_id).toBe(RUN)
    expect(published.registry_receipt.ctx_id).toBe(ctxId)
    const lineage = (
      await t.app.inject({
        method: 'GET',
        url: `/runs/${RUN}/lineage`,
        headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT },
      })
    ).json()
    expect(lineage.nodes.map((n: Json) => n.ctxId)).toEqual([ctxId])
  })
})
