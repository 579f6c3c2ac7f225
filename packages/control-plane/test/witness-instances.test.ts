/**
 * Several instances on one database (ARCHITECTURE "Scaling out"): each registry is observed by exactly one
 * instance per due poll, a lease held by an instance that died expires and the registry is observed again, and
 * the alert worklist is durable: a detection is visible to a fresh instance, with its stream event in the history
 * and its webhook delivery in the outbox. Runs on every dialect (on PostgreSQL the claim uses FOR UPDATE SKIP
 * LOCKED through the pool; no session-level lock exists that could leak).
 */
import { testDatabaseTargets } from '@acdp/storage'
import type { FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { createMetrics } from '../src/core/metrics.js'
import { createMemoryEventBus } from '../src/events/event-bus.js'
import { createWitnessStore } from '../src/witness/witness-store.js'
import { ADMIN_KEY, bearer } from './support/test-app.js'
import { INTERVAL_SECONDS, openWitnessApp, TENANT, type WitnessTestApp } from './support/witness-app.js'

describe.each(testDatabaseTargets())('witness instances on $name', (target) => {
  let t: WitnessTestApp
  const extra: FastifyInstance[] = []
  afterEach(async () => {
    for (const app of extra.splice(0)) await app.close()
    await t?.close()
  })

  /** A second app instance on the same database (own bus, metrics, outbound client). */
  async function secondInstance(): Promise<FastifyInstance> {
    const metrics = createMetrics({ collectProcessMetrics: false })
    const app = await buildApp(t.config, {
      ...t.deps,
      metrics,
      bus: createMemoryEventBus(),
      outbound: t.sim.outbound(),
      webhookOutbox: undefined,
    })
    await app.ready()
    extra.push(app)
    return app
  }

  it('two instances polling at once observe every registry exactly once', async () => {
    t = await openWitnessApp(target)
    const registries = []
    for (let i = 0; i < 24; i++) registries.push(await t.enroll(`r${i}`, 1 + (i % 5)))
    const other = await secondInstance()
    t.advance(INTERVAL_SECONDS * 1000)
    const [a, b] = await Promise.all([t.app.witness.poller!.pollDue(), other.witness.poller!.pollDue()])
    expect(a + b).toBe(24)
    for (const registry of registries) expect(registry.hits.get('/log/checkpoint')).toBe(1)
    for (const registry of registries) {
      expect((await t.get(`/registries/${registry.authority}/log-witness`)).json()).toMatchObject({
        treeSize: registry.tree.size,
        alert: null,
      })
    }
  })

  it('a lease left by a dead instance expires, then the registry is observed again', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('orphan', 2)
    const store = createWitnessStore(t.deps.database)
    await store.syncCursors(t.deps.clock().getTime())
    const dead = await store.claimDueRegistries({
      leaseOwner: 'dead-instance:1',
      now: t.deps.clock().getTime(),
      leaseMs: 60_000,
      limit: 10,
      excluded: [],
    })
    expect(dead.map((r) => r.authority)).toEqual([registry.authority])
    // Still leased: nobody observes it.
    expect(await t.nextPoll()).toBe(0)
    expect(registry.hits.get('/log/checkpoint')).toBeUndefined()
    // The dead instance's late write is refused once the lease has passed to someone else.
    t.advance(60_000)
    expect(await t.nextPoll()).toBe(1)
    expect(
      await store.releaseLease({ authority: registry.authority, leaseOwner: 'dead-instance:1', now: 0, nextPollAt: 0 }),
    ).toBe(false)
    expect((await t.get(`/registries/${registry.authority}/log-witness`)).json()).toMatchObject({ treeSize: 2 })
  })

  it('an alert is durable: a fresh instance lists it, the stream history and the webhook outbox hold its event', async () => {
    t = await openWitnessApp(target, { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_INTERVAL_MS: '-1' })
    const hook = await t.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': TENANT },
      payload: { url: 'https://127.0.0.1:9/hook', events: ['log_witness_alert'], secret: 'hook-secret-0123456789' },
    })
    expect(hook.statusCode).toBe(201)
    const registry = await t.enroll('durable', 4)
    await t.nextPoll()
    registry.behaviour = { kind: 'split_view' }
    await t.nextPoll()

    const other = await secondInstance()
    const headers = { ...bearer(ADMIN_KEY), 'x-tenant-id': TENANT }
    const alerts = (await other.inject({ method: 'GET', url: '/registries/log-witness/alerts', headers })).json()
    expect(alerts.data).toEqual([expect.objectContaining({ authority: registry.authority, reason: 'root_mismatch' })])
    const events = (await other.inject({ method: 'GET', url: '/events?eventType=log_witness_alert', headers })).json()
    expect(JSON.stringify(events)).toContain(alerts.data[0].id)
    const deliveries = await other.inject({ method: 'GET', url: `/webhooks/${hook.json().id}/deliveries`, headers })
    expect(deliveries.statusCode).toBe(200)
    expect(JSON.stringify(deliveries.json())).toContain('log_witness_alert')
  })
})
