/**
 * Capabilities over HTTP on every dialect: the five rules of POST /capabilities, search and by-agent listing,
 * the capability.declare policy and quotas (per tenant and per agent, shared by two instances on one database).
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestAgent, type TestAgent } from './support/agent-keys.js'
import { bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const alice = createTestAgent('alice')
const bob = createTestAgent('bob', 'ecdsa-p256')
const mallory = createTestAgent('mallory')
const URI = 'urn:acdp:cap:summarize:earnings_report:finance'
const user = bearer(USER_KEY)
const ENV = { CONTROL_PLANE_PINNED_KEYS: [alice.pinnedEntry(), bob.pinnedEntry()].join(',') }

function declaration(
  agent: TestAgent,
  overrides: Record<string, unknown> = {},
  uri = URI,
  at = new Date(T0).toISOString(),
) {
  return {
    agent_did: agent.did,
    capability_uri: uri,
    declared_at: at,
    key_id: agent.keyId,
    algorithm: agent.key.algorithm,
    signature: agent.sign(`acdp-cap:v1:${agent.did}:${uri}:${at}`),
    ...overrides,
  }
}

describe.each(testDatabaseTargets())('capabilities on $name', (target) => {
  const opened: TestApp[] = []
  afterEach(async () => {
    for (const app of opened.splice(0)) await app.close()
  })
  async function open(env: Record<string, string> = {}, overrides = {}) {
    const t = await openTestApp(target, { ...ENV, ...env }, overrides)
    opened.push(t)
    return t
  }
  const declare = (t: TestApp, payload: Record<string, unknown>, headers: Record<string, string> = user) =>
    t.app.inject({ method: 'POST', url: '/capabilities', headers, payload })

  it('declares a signed capability (201), idempotently: a re-declaration keeps the original declared_at (200)', async () => {
    const t = await open()
    const first = await declare(t, declaration(alice))
    expect(first.statusCode).toBe(201)
    expect(first.json()).toEqual({
      agent_did: alice.did,
      capability_uri: URI,
      declared_at: new Date(T0).toISOString(),
      signed_by: alice.keyId,
    })
    t.advance(60_000)
    const later = new Date(T0 + 60_000).toISOString()
    const again = await declare(t, declaration(alice, {}, URI, later))
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ declared_at: new Date(T0).toISOString() })
    expect((await declare(t, declaration(bob))).statusCode).toBe(201)
  })

  it.each([
    ['two segments', 'urn:acdp:cap:summarize:finance'],
    ['four segments', 'urn:acdp:cap:a:b:c:d'],
    ['an uppercase segment', 'urn:acdp:cap:Summarize:report:finance'],
    ['a dash', 'urn:acdp:cap:sum-marize:report:finance'],
    ['another namespace', 'urn:proto:cap:summarize:report:finance'],
    ['an empty segment', 'urn:acdp:cap::report:finance'],
  ])('rule 1: refuses a URI with %s (400)', async (_name, uri) => {
    const t = await open()
    const res = await declare(t, declaration(alice, {}, uri))
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
  })

  it.each([
    ['301 s in the past', -301_000, 400],
    ['301 s in the future', 301_000, 400],
    ['300 s in the past', -300_000, 201],
    ['300 s in the future', 300_000, 201],
  ])('rule 2: a declared_at %s answers %i', async (_name, offset, status) => {
    const t = await open()
    const res = await declare(t, declaration(alice, {}, URI, new Date(T0 + offset).toISOString()))
    expect(res.statusCode).toBe(status)
  })

  it('rule 2: refuses a declared_at that is not an ISO 8601 date-time with zone', async () => {
    const t = await open()
    for (const at of ['2026-01-15 12:00:00', 'yesterday', '2026-01-15T12:00:00']) {
      expect((await declare(t, declaration(alice, {}, URI, at))).statusCode).toBe(400)
    }
  })

  it('rule 3: refuses an algorithm other than the pinned one (401) and an unsupported one (400)', async () => {
    const t = await open()
    const downgrade = await declare(t, declaration(alice, { algorithm: 'ecdsa-p256' }))
    expect(downgrade.statusCode).toBe(401)
    expect(downgrade.json()).toMatchObject({ errorCode: 'INVALID_SIGNATURE' })
    expect((await declare(t, declaration(alice, { algorithm: 'rsa' }))).statusCode).toBe(400)
  })

  it('rule 4: refuses a bad signature, a signature over another string, an unpinned agent, a foreign key id (401)', async () => {
    const t = await open()
    const cases = [
      declaration(alice, { signature: alice.sign(`acdp-cap:v1:${alice.did}:${URI}:2000-01-01T00:00:00.000Z`) }),
      declaration(alice, { signature: mallory.sign(`acdp-cap:v1:${alice.did}:${URI}:${new Date(T0).toISOString()}`) }),
      declaration(mallory),
      declaration(alice, { key_id: `${bob.did}#key-1` }),
      declaration(alice, { key_id: 'key-1' }),
    ]
    for (const payload of cases) {
      const res = await declare(t, payload)
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ errorCode: 'INVALID_SIGNATURE' })
    }
    const search = await t.app.inject({ method: 'GET', url: `/capabilities/search?capability=${URI}`, headers: user })
    expect(search.json()).toEqual({ data: [], total: 0 })
  })

  it('searches by capability and lists by agent, as { data, total }, tenant-scoped', async () => {
    const t = await open()
    await declare(t, declaration(alice))
    await declare(t, declaration(bob))
    const other = 'urn:acdp:cap:review:analyst_note:finance'
    await declare(t, declaration(alice, {}, other))
    await declare(t, declaration(alice, {}, 'urn:acdp:cap:read:note:ops'), { ...user, 'x-tenant-id': 'acme' })
    const search = await t.app.inject({ method: 'GET', url: `/capabilities/search?capability=${URI}`, headers: user })
    expect(search.json()).toEqual({
      data: [
        { agent_did: alice.did, capability_uri: URI, declared_at: new Date(T0).toISOString(), signed_by: alice.keyId },
        { agent_did: bob.did, capability_uri: URI, declared_at: new Date(T0).toISOString(), signed_by: bob.keyId },
      ],
      total: 2,
    })
    const byAgent = await t.app.inject({ method: 'GET', url: `/capabilities/by-agent/${alice.did}`, headers: user })
    expect(byAgent.json().data.map((c: { capability_uri: string }) => c.capability_uri)).toEqual([other, URI])
    expect(byAgent.json().total).toBe(2)
    const acme = await t.app.inject({
      method: 'GET',
      url: `/capabilities/by-agent/${alice.did}`,
      headers: { ...user, 'x-tenant-id': 'acme' },
    })
    expect(acme.json().data.map((c: { capability_uri: string }) => c.capability_uri)).toEqual([
      'urn:acdp:cap:read:note:ops',
    ])
    expect((await t.app.inject({ method: 'GET', url: '/capabilities/search', headers: user })).statusCode).toBe(400)
    expect(
      (await t.app.inject({ method: 'GET', url: '/capabilities/search?capability=nope', headers: user })).statusCode,
    ).toBe(400)
    expect((await t.app.inject({ method: 'GET', url: `/capabilities/search?capability=${URI}` })).statusCode).toBe(401)
  })

  it('applies the capability.declare policy (403 { message, code, reason })', async () => {
    const t = await open({
      POLICY_RULES: JSON.stringify([
        { action: 'capability.declare', effect: 'allow', resources: ['urn:acdp:cap:*:*:finance'] },
        {
          action: 'capability.declare',
          effect: 'deny',
          code: 'domain_not_allowed',
          reason: 'only finance capabilities',
        },
      ]),
    })
    expect((await declare(t, declaration(alice))).statusCode).toBe(201)
    const denied = await declare(t, declaration(alice, {}, 'urn:acdp:cap:read:note:ops'))
    expect(denied.statusCode).toBe(403)
    expect(await t.counter('acdp_policy_denials_total', { action: 'capability.declare' })).toBe(1)
    expect(denied.json()).toMatchObject({
      errorCode: 'POLICY_DENIED',
      code: 'domain_not_allowed',
      reason: 'only finance capabilities',
    })
  })

  it('enforces tenant and agent quotas with 429 and Retry-After, per window', async () => {
    const t = await open({
      TENANT_QUOTAS: 'acme:capability.declare=3/min',
      AGENT_QUOTAS: `${alice.did}:capability.declare=2/min`,
    })
    const acme = { ...user, 'x-tenant-id': 'acme' }
    expect((await declare(t, declaration(alice), acme)).statusCode).toBe(201)
    expect((await declare(t, declaration(alice), acme)).statusCode).toBe(200)
    const agentLimited = await declare(t, declaration(alice), acme)
    expect(agentLimited.statusCode).toBe(429)
    expect(agentLimited.headers['retry-after']).toBe('60')
    expect(agentLimited.json()).toMatchObject({ errorCode: 'QUOTA_EXCEEDED', action: 'capability.declare', limit: 2 })
    // Bob's own counter is fresh, the tenant's is not: the tenant counted 3 already.
    const tenantLimited = await declare(t, declaration(bob), acme)
    expect(tenantLimited.statusCode).toBe(429)
    expect(tenantLimited.json()).toMatchObject({ limit: 3, windowSeconds: 60 })
    expect(await t.counter('acdp_quota_exceeded_total', { action: 'capability.declare' })).toBe(2)
    // Other tenants are not limited.
    expect((await declare(t, declaration(bob))).statusCode).toBe(201)
    t.advance(30_000)
    expect((await declare(t, declaration(bob), acme)).headers['retry-after']).toBe('30')
    t.advance(30_000)
    expect((await declare(t, declaration(bob), acme)).statusCode).toBe(201)
  })

  it('shares database quota counters between two instances on one database', async () => {
    const env = { TENANT_QUOTAS: '*:capability.declare=2/hour', QUOTA_STORE: 'database' }
    const a = await open(env)
    const b = await open(env, { store: a.store, database: a.deps.database })
    expect((await declare(a, declaration(alice))).statusCode).toBe(201)
    expect((await declare(b, declaration(bob))).statusCode).toBe(201)
    expect((await declare(a, declaration(alice))).statusCode).toBe(429)
    expect((await declare(b, declaration(alice))).statusCode).toBe(429)
    // With per-instance counters each instance would have allowed its own two.
    const c = await open({ ...env, QUOTA_STORE: 'memory' }, { store: a.store, database: a.deps.database })
    expect((await declare(c, declaration(alice))).statusCode).toBe(200)
  })
})
