/**
 * Routing stats and selection on every dialect: arms per (capability, agent) behind the capability gate, learned
 * from run completions and the run's events (retractions count as failures), admin-only stats.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestAgent, type TestAgent } from './support/agent-keys.js'
import { publishedEvent, signedDelivery } from './support/signed-delivery.js'
import { ADMIN_KEY, bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const alice = createTestAgent('alice')
const bob = createTestAgent('bob')
const carol = createTestAgent('carol')
const URI = 'urn:acdp:cap:summarize:analysis:finance'
const OTHER = 'urn:acdp:cap:review:note:ops'

describe.each(testDatabaseTargets())('routing on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t?.close()
  })

  async function declare(agent: TestAgent, uri: string) {
    const at = new Date(T0).toISOString()
    const res = await t.app.inject({
      method: 'POST',
      url: '/capabilities',
      headers: bearer(USER_KEY),
      payload: {
        agent_did: agent.did,
        capability_uri: uri,
        declared_at: at,
        key_id: agent.keyId,
        algorithm: 'ed25519',
        signature: agent.sign(`acdp-cap:v1:${agent.did}:${uri}:${at}`),
      },
    })
    expect(res.statusCode).toBe(201)
  }
  async function run(runId: string, agent: TestAgent, status: 'completed' | 'failed' | null, retract = false) {
    const event = publishedEvent({ run_id: runId, agent_id: agent.did, context_type: 'analysis' })
    expect((await t.app.inject(signedDelivery(event))).statusCode).toBe(204)
    if (retract) {
      const retraction = {
        event_id: `retract-${runId}`,
        type: 'context_retracted',
        registry_authority: 'reg.example',
        ctx_id: event['ctx_id'],
        at: new Date(T0).toISOString(),
      }
      expect((await t.app.inject(signedDelivery(retraction))).statusCode).toBe(204)
    }
    if (status !== null) {
      const done = await t.app.inject(signedDelivery({ status }, { url: `/runs/${runId}/complete` }))
      expect(done.statusCode).toBe(204)
    }
  }
  const stats = (query = '', key = ADMIN_KEY) =>
    t.app.inject({ method: 'GET', url: `/routing/stats${query}`, headers: bearer(key) })

  it('learns arms from run outcomes behind the capability gate', async () => {
    t = await openTestApp(target, {
      CONTROL_PLANE_PINNED_KEYS: [alice, bob, carol].map((a) => a.pinnedEntry()).join(','),
    })
    await declare(alice, URI)
    await declare(bob, URI)
    await declare(bob, OTHER)
    const empty = (await stats()).json()
    expect(empty.total).toBe(3)
    expect(empty.arms.every((arm: { alpha: number; beta: number }) => arm.alpha === 1 && arm.beta === 1)).toBe(true)

    await run('r1', alice, 'completed')
    await run('r2', alice, 'completed')
    await run('r3', bob, 'failed')
    await run('r4', bob, 'completed', true)
    await run('r5', alice, null) // still running: no outcome yet
    await run('r6', carol, 'completed') // no capability declared: gated out
    const res = await stats(`?capability=${URI}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      arms: [
        { taskClass: URI, agentDid: alice.did, alpha: 3, beta: 1, mean: 0.75, observations: 2 },
        { taskClass: URI, agentDid: bob.did, alpha: 1, beta: 3, mean: 0.25, observations: 2 },
      ],
      total: 2,
    })
    // Bob's `note` capability saw no `note` contexts.
    const all = (await stats()).json()
    expect(all.arms).toContainEqual({
      taskClass: OTHER,
      agentDid: bob.did,
      alpha: 1,
      beta: 1,
      mean: 0.5,
      observations: 0,
    })
    // Other tenants have their own (empty) arms.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/routing/stats',
          headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': 'acme' },
        })
      ).json(),
    ).toEqual({ arms: [], total: 0 })
  })

  it('keeps the stats admin-only and validates the capability', async () => {
    t = await openTestApp(target)
    expect((await stats('', USER_KEY)).statusCode).toBe(403)
    expect((await stats('?capability=bad')).statusCode).toBe(400)
  })

  it('selects among gated agents only, forced when one candidate, null when none', async () => {
    t = await openTestApp(target, { CONTROL_PLANE_PINNED_KEYS: [alice, bob].map((a) => a.pinnedEntry()).join(',') })
    const select = async (uri: string) =>
      (
        await t.app.inject({ method: 'GET', url: `/routing/select?capability=${uri}`, headers: bearer(USER_KEY) })
      ).json()
    expect(await select(URI)).toEqual({ capability: URI, agentDid: null, reason: null })
    await declare(alice, URI)
    expect(await select(URI)).toEqual({ capability: URI, agentDid: alice.did, reason: 'forced_only_candidate' })
    await declare(bob, URI)
    const picked = await select(URI)
    expect([alice.did, bob.did]).toContain(picked.agentDid)
    expect(['thompson', 'explore']).toContain(picked.reason)
  })
})
