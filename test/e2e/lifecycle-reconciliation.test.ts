/**
 * Lifecycle events the webhooks lost, reconciled from the registry state: a registry of this repository
 * (receipts, log and lifecycle on) delivers its webhooks through a loopback relay the test takes down; a
 * retraction made while it is down is dropped by the best-effort queue (no retries). The control plane's walk
 * re-reads the registry's held publications and ingests the served `registry_state.lifecycle_events` it misses,
 * each signature verified (RFC-ACDP-0013 §5): afterwards the run's lineage node shows retracted, with exactly one
 * context_retracted event, and the late webhook of that retraction stores nothing. A retraction of a context
 * whose publication was itself lost is recovered with the publication. SQLite and PostgreSQL.
 */
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import {
  createProducer,
  createProducerKey,
  type ProducerKey,
  signLifecycleEvent,
  signTimestampedWebhook,
} from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually as waitFor } from '../support/eventually.js'
import { startRelayedRegistry } from '../support/relayed-registry.js'
import { startRelay } from '../support/webhook-relay.js'
import type { RunningRegistry } from '../../packages/registry/src/start.js'
import {
  bearer,
  openTestApp,
  TEST_WEBHOOK_SECRET,
  type TestApp,
  USER_KEY,
} from '../../packages/control-plane/test/support/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const AUTHORITY = 'lifecycle.reconcile.test'
const TENANT = 'acme'
const RUN = 'lifecycle-run'
const WAIT_MS = 15_000

/** Polls every 50 ms for up to WAIT_MS. */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitFor(what, probe, { timeoutMs: WAIT_MS, intervalMs: 50 })

describe.each(testDatabaseTargets())('lifecycle reconciliation on $name', (target) => {
  let t: TestApp
  let registry: RunningRegistry
  let relay: Awaited<ReturnType<typeof startRelay>>
  let dataDir: string
  let registryUrl: string
  let offsetMs = 0
  const clock = () => new Date(Date.now() + offsetMs)

  afterEach(async () => {
    await registry?.close()
    relay?.server.close()
    await t?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function setUp(): Promise<void> {
    // The registry signs its webhooks with the wall clock: each test starts with the control plane on it.
    offsetMs = 0
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-lifecycle-reconcile-'))
    t = await openTestApp(
      target,
      {
        LOG_RECONCILE_ENABLED: 'true',
        LOG_RECONCILE_SCHEDULE: 'false',
        LOG_RECONCILE_LIFECYCLE_PAGE_SIZE: '2', // several walks, so the round-robin position is exercised
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        OUTBOUND_ALLOW_HTTP: 'true',
        ENROLLMENT_CACHE_MS: '0',
      },
      { clock },
    )
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const planeUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    relay = await startRelay(() => planeUrl)
    ;({ registry, url: registryUrl } = await startRelayedRegistry(t, relay, {
      authority: AUTHORITY,
      tenant: TENANT,
      dataDir,
      receiptSeedByte: 0x52,
      lifecycle: true,
    }))
  }

  const get = (url: string) =>
    t.app.inject({ method: 'GET', url, headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT } })

  async function events(type: string): Promise<Json[]> {
    return (await get(`/events?eventType=${type}&limit=500`)).json().data
  }

  /** Retracts `ctxId` at the registry with an event signed by its producer (RFC-ACDP-0013 §6). */
  async function retract(key: ProducerKey, ctxId: string): Promise<void> {
    const event = signLifecycleEvent(
      {
        event_id: randomUUID(),
        ctx_id: ctxId,
        event_type: 'retracted',
        occurred_at: new Date().toISOString(),
        actor: key.did,
        reason: 'source withdrawn',
      },
      { algorithm: key.algorithm, keyId: key.keyId, privateKey: key.privateKey },
    )
    const answer = await fetch(`${registryUrl}/contexts/${encodeURIComponent(ctxId)}/retract`, {
      method: 'POST',
      headers: { 'content-type': 'application/acdp+json' },
      body: JSON.stringify({ event }),
    })
    expect(answer.status).toBe(200)
  }

  async function walk(times: number): Promise<void> {
    const reconciler = t.app.logReconcile.reconciler
    if (reconciler === undefined) throw new Error('log reconciliation not enabled')
    for (let i = 0; i < times; i += 1) {
      await reconciler.reconcileNow()
      offsetMs += 60_000
    }
  }

  it('recovers a retraction the webhooks lost, exactly once, and the late webhook stores nothing', async () => {
    await setUp()
    const key = createProducerKey()
    const producer = createProducer({ registryUrl, key })
    const published: string[] = []
    for (let i = 0; i < 5; i += 1) {
      published.push((await producer.publish({ title: `ctx ${i}`, type: 'analysis' }, { runId: RUN })).ctxId)
    }
    await eventually('the live publications', async () =>
      (await events('context_published')).length === 5 ? true : undefined,
    )

    relay.setDown(true)
    const retracted = published[3] as string
    await retract(key, retracted)
    await eventually('the refused retraction webhook', async () => (relay.refused() === 1 ? true : undefined))
    relay.setDown(false)
    expect(await events('context_retracted')).toHaveLength(0)

    // 5 held publications at 2 per walk: the third walk reaches the fourth one.
    await walk(3)
    const stored = await events('context_retracted')
    expect(stored).toHaveLength(1)
    expect(stored[0].ctxId).toBe(retracted)
    expect(stored[0].rawPayload.recovered_from_registry_state.lifecycle_event.event_type).toBe('retracted')
    expect(await t.counter('acdp_log_reconcile_lifecycle_events_total', { result: 'recovered' })).toBe(1)
    const lineage = (await get(`/runs/${RUN}/lineage`)).json()
    const node = lineage.nodes.find((n: Json) => n.ctxId === retracted)
    expect(node).toMatchObject({ retracted: true, status: 'retracted' })
    expect(lineage.nodes.filter((n: Json) => n.retracted)).toHaveLength(1)

    // The round-robin comes back to it: held, nothing stored.
    await walk(3)
    expect(await events('context_retracted')).toHaveLength(1)
    expect(await t.counter('acdp_log_reconcile_lifecycle_events_total', { result: 'held' })).toBeGreaterThanOrEqual(1)

    // The registry's webhook of that retraction arrives late (its own fresh webhook event id): a duplicate.
    const late = stored[0].rawPayload
    const raw = JSON.stringify({
      type: 'context_retracted',
      event_id: randomUUID(),
      schema_version: late.schema_version,
      registry_authority: AUTHORITY,
      ctx_id: retracted.replace(/^acdp:\/\//, ''),
      lineage_id: late.lineage_id,
      actor: late.actor,
      lifecycle_event_id: late.lifecycle_event_id,
      reason: late.reason,
      at: late.at,
    })
    const ts = Math.floor(clock().getTime() / 1000)
    const answer = await t.app.inject({
      method: 'POST',
      url: '/ingest/acdp',
      payload: raw,
      headers: {
        'content-type': 'application/json',
        'x-acdp-timestamp': String(ts),
        'x-acdp-signature-timestamped': signTimestampedWebhook(TEST_WEBHOOK_SECRET, ts, raw),
      },
    })
    expect(answer.statusCode).toBe(204)
    expect(await events('context_retracted')).toHaveLength(1)
  })

  it('recovers the retraction of a context whose publication was lost too, with the publication', async () => {
    await setUp()
    const key = createProducerKey()
    const producer = createProducer({ registryUrl, key })
    relay.setDown(true)
    const lost = (await producer.publish({ title: 'lost', type: 'analysis' }, { runId: RUN })).ctxId
    await retract(key, lost)
    await eventually('both refused webhooks', async () => (relay.refused() === 2 ? true : undefined))
    relay.setDown(false)

    await walk(1)
    expect((await events('context_published')).map((e: Json) => e.ctxId)).toEqual([lost])
    const stored = await events('context_retracted')
    expect(stored.map((e: Json) => e.ctxId)).toEqual([lost])
    // Recovered with the publication, and the round-robin re-check of the same walk found it held.
    expect(await t.counter('acdp_log_reconcile_lifecycle_events_total', { result: 'recovered' })).toBe(1)
  })

  it('refuses served lifecycle events that do not verify or are not bound to the context, storing nothing', async () => {
    await setUp()
    const key = createProducerKey()
    const producer = createProducer({ registryUrl, key })
    const ctxId = (await producer.publish({ title: 'kept', type: 'analysis' }, { runId: RUN })).ctxId
    await eventually('the publication', async () =>
      (await events('context_published')).length === 1 ? true : undefined,
    )
    // A registry serving an event its actor never signed: the served answer is rewritten on the way.
    const forged = {
      event_id: randomUUID(),
      ctx_id: ctxId,
      event_type: 'retracted',
      occurred_at: new Date().toISOString(),
      actor: key.did,
      signature: { algorithm: 'ed25519', key_id: key.keyId, value: Buffer.alloc(64, 7).toString('base64') },
    }
    // Validly signed, but by someone who is neither the producer nor the registry.
    const stranger = createProducerKey()
    const byStranger = signLifecycleEvent(
      {
        event_id: randomUUID(),
        ctx_id: ctxId,
        event_type: 'retracted',
        occurred_at: forged.occurred_at,
        actor: stranger.did,
      },
      { algorithm: stranger.algorithm, keyId: stranger.keyId, privateKey: stranger.privateKey },
    )
    // Validly signed by the producer, but for another context than the one served.
    const otherContext = signLifecycleEvent(
      {
        event_id: randomUUID(),
        ctx_id: `acdp://${AUTHORITY}/${randomUUID()}`,
        event_type: 'retracted',
        occurred_at: forged.occurred_at,
        actor: key.did,
      },
      { algorithm: key.algorithm, keyId: key.keyId, privateKey: key.privateKey },
    )
    const honest = registryUrl
    const server = createServer(async (req, res) => {
      const answer = await fetch(`${honest}${req.url ?? '/'}`)
      const text = await answer.text()
      if (answer.status !== 200 || !(req.url ?? '').startsWith('/contexts/')) {
        return void res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
      }
      const envelope = JSON.parse(text)
      envelope.registry_state.lifecycle_events = [forged, byStranger, otherContext]
      res.writeHead(200, { 'content-type': 'application/acdp+json' }).end(JSON.stringify(envelope))
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const forging = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      await t.store.upsertEnrollment({ authority: AUTHORITY, tenantId: TENANT, baseUrl: forging, now: 1 })
      await walk(1)
      expect(await events('context_retracted')).toHaveLength(0)
      expect(await t.counter('acdp_log_reconcile_lifecycle_events_total', { result: 'refused' })).toBe(3)
    } finally {
      server.close()
    }
  })
})
