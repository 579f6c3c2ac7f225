/**
 * The per-agent publish bucket on POST /contexts (`limits.publish_rate_per_minute`, RFC-ACDP-0008 §4.3, product
 * spec "Limits"): peeked before any DID or signature work, a token taken only once the signer is
 * proven (atomically: agent-write-budget-concurrency.test.ts), shared with lifecycle events (tested in
 * lifecycle.test.ts), 429 rate_limited with Retry-After, counted under `publish_per_agent`.
 */
import { describe, expect, it } from 'vitest'
import { createRegistryMetrics } from '../src/core/metrics.js'
import {
  countRows,
  didKeyProducer,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const start = useTestRegistry()

function signed(p: Producer, title: string, overrides: Record<string, unknown> = {}) {
  return signRequest(p, minimalUnsigned(p, { title, ...overrides }))
}

async function expectLimited(r: TestRegistry, body: unknown): Promise<number> {
  const before = await countRows(r.database)
  const res = await publish(r.app, body)
  expect(res.statusCode).toBe(429)
  expect(res.headers['content-type']).toBe('application/acdp+json')
  expect(res.json().error.code).toBe('rate_limited')
  expect(await countRows(r.database)).toEqual(before)
  const retryAfter = Number(res.headers['retry-after'])
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true)
  return retryAfter
}

describe('per-agent publish bucket', () => {
  it('refuses the publish over budget with 429 and Retry-After, and refills with time', async () => {
    const r = await start({ config: { limits: { publish_rate_per_minute: 2 } } })
    const p = didKeyProducer()
    expect((await publish(r.app, signed(p, 'one'))).statusCode).toBe(201)
    expect((await publish(r.app, signed(p, 'two'))).statusCode).toBe(201)
    // 2 per minute: one token comes back every 30 s.
    expect(await expectLimited(r, signed(p, 'three'))).toBe(30)
    // Another agent has its own bucket.
    const other = didKeyProducer()
    expect((await publish(r.app, signed(other, 'other'))).statusCode).toBe(201)
    r.clock.advance(30_000)
    expect((await publish(r.app, signed(p, 'three'))).statusCode).toBe(201)
  })

  it('answers an agent over budget before any DID work (a mis-signed request still gets 429)', async () => {
    const r = await start({ config: { limits: { publish_rate_per_minute: 1 } } })
    const p = didWebProducer('did:web:agents.example.com:limited')
    r.dids.host([p])
    expect((await publish(r.app, signed(p, 'one'))).statusCode).toBe(201)
    const fetches = r.dids.fetches
    // The right key_id with a signature value made by another key: only verification could tell.
    const good = signed(p, 'two')
    const wrongValue = (signed(didKeyProducer(), 'two').signature as { value: string }).value
    const forged = { ...good, signature: { ...(good.signature as object), value: wrongValue } }
    await expectLimited(r, forged)
    expect(r.dids.fetches).toBe(fetches)
  })

  it('charges nothing for requests that do not prove the signer: nobody can drain a victim', async () => {
    const r = await start({ config: { limits: { publish_rate_per_minute: 1 } } })
    const victim = didKeyProducer()
    const attacker = didKeyProducer()
    for (let i = 0; i < 3; i++) {
      // A body naming the victim, signed by the attacker's key: refused on the signer binding or signature.
      const forged = signRequest(attacker, minimalUnsigned(attacker, { title: `forged ${i}`, agent_id: victim.did }))
      const res = await publish(r.app, forged)
      expect(res.statusCode).not.toBe(429)
      expect(res.statusCode).toBeGreaterThanOrEqual(400)
    }
    expect((await publish(r.app, signed(victim, 'real'))).statusCode).toBe(201)
  })

  it('charges a proven signer whatever the later outcome (a refused supersession counts)', async () => {
    const r = await start({ config: { limits: { publish_rate_per_minute: 1 } } })
    const p = didKeyProducer()
    const refused = await publish(
      r.app,
      signed(p, 'bad supersedes', {
        version: 2,
        supersedes: 'acdp://registry.example.com/00000000-0000-4000-8000-000000000000',
      }),
    )
    expect(refused.statusCode).toBe(400)
    expect(refused.json().error.code).toBe('superseded_target')
    await expectLimited(r, signed(p, 'next'))
  })

  it('replays a byte-identical idempotent retry at no cost, even over budget', async () => {
    const r = await start({ config: { limits: { publish_rate_per_minute: 1 } } })
    const p = didKeyProducer()
    const body = signed(p, 'once')
    const first = await publish(r.app, body, { 'idempotency-key': 'retry-1' })
    expect(first.statusCode).toBe(201)
    const again = await publish(r.app, body, { 'idempotency-key': 'retry-1' })
    expect(again.statusCode).toBe(200)
    expect(again.body).toBe(first.body)
  })

  it('counts rejections under publish_per_agent and advertises the limit', async () => {
    const metrics = createRegistryMetrics()
    const r = await start({ config: { limits: { publish_rate_per_minute: 1 } }, deps: { metrics } })
    const p = didKeyProducer()
    await publish(r.app, signed(p, 'one'))
    await expectLimited(r, signed(p, 'two'))
    expect(await metrics.registry.metrics()).toContain(
      'acdp_registry_rate_limit_rejections_total{scope="publish_per_agent"} 1',
    )
    const caps = (await r.app.inject({ method: 'GET', url: '/.well-known/acdp.json' })).json()
    expect(caps.limits.max_publish_per_minute).toBe(1)
  })

  it('is off with publish_rate_per_minute = 0 (and not advertised)', async () => {
    const r = await start({ config: { limits: { publish_rate_per_minute: 0 } } })
    const p = didKeyProducer()
    for (let i = 0; i < 70; i++) expect((await publish(r.app, signed(p, `n${i}`))).statusCode).toBe(201)
    const caps = (await r.app.inject({ method: 'GET', url: '/.well-known/acdp.json' })).json()
    expect(caps.limits.max_publish_per_minute).toBeUndefined()
  })
})
