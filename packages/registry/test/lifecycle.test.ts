/**
 * Retract / republish (RFC-ACDP-0013; product spec "States and transitions", behaviour 6) through a real registry:
 * real store, real DID resolution, real signature verification.
 */
import { randomUUID } from 'node:crypto'
import { computeKeyFingerprint, type LifecycleEvent, signLifecycleEvent } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../src/core/config.js'
import { createRegistryMetrics } from '../src/core/metrics.js'
import { refuseOrphanedLifecycleState } from '../src/start.js'
import {
  AUTHORITY,
  didKeyProducer,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  recordingDispatcher,
  signRequest,
  type TestRegistry,
  type TestRegistryOptions,
  useTestRegistry,
} from './support/registry-harness.js'

const start = useTestRegistry()
const enc = encodeURIComponent
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789'

function lifecycleOn(options: TestRegistryOptions = {}): TestRegistryOptions {
  return {
    ...options,
    config: {
      ...options.config,
      lifecycle: { enabled: true },
      auth: { admin_tokens: [ADMIN_TOKEN], ...options.config?.auth },
      limits: { publish_rate_per_minute: 0, ...options.config?.limits },
    },
  }
}

async function publishAs(r: TestRegistry, p: Producer, overrides: Record<string, unknown> = {}) {
  const res = await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)))
  expect(res.statusCode).toBe(201)
  return res.json() as { ctx_id: string; lineage_id: string; version: number }
}

/** A producer-signed event for `ctxId` (RFC-ACDP-0013 §5), occurred now on the test clock. */
function signedEvent(
  r: TestRegistry,
  p: Producer,
  ctxId: string,
  eventType: 'retracted' | 'republished',
  overrides: Record<string, unknown> = {},
): LifecycleEvent {
  return signLifecycleEvent(
    {
      event_id: randomUUID(),
      ctx_id: ctxId,
      event_type: eventType,
      occurred_at: new Date(r.clock.nowMs).toISOString(),
      actor: p.did,
      ...overrides,
    },
    { algorithm: p.algorithm, keyId: p.keyId, privateKey: p.privateKey },
  )
}

function post(r: TestRegistry, ctxId: string, action: 'retract' | 'republish', body: unknown, headers = {}) {
  return r.app.inject({
    method: 'POST',
    url: `/contexts/${enc(ctxId)}/${action}`,
    headers: { 'content-type': 'application/acdp+json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

const get = (r: TestRegistry, url: string) => r.app.inject({ method: 'GET', url })
const codeOf = (res: { json(): unknown }) => (res.json() as { error: { code: string } }).error.code

describe('retract and republish', () => {
  it('retracts with a signed event, serves it verbatim, keeps the body, and republishes (lc-001 A, B, F)', async () => {
    const webhooks = recordingDispatcher()
    const r = await start(lifecycleOn({ deps: { webhooks } }))
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const bodyBefore = (await get(r, `/contexts/${enc(ctx_id)}/body`)).body

    const retract = signedEvent(r, p, ctx_id, 'retracted', { reason: 'source fabricated' })
    const res = await post(r, ctx_id, 'retract', { event: retract })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json()).toEqual({
      body: JSON.parse(bodyBefore),
      registry_state: { status: 'retracted', lifecycle_events: [retract] },
    })

    const full = await get(r, `/contexts/${enc(ctx_id)}`)
    expect(full.body).toBe(
      `{"body":${bodyBefore},"registry_state":{"status":"retracted","lifecycle_events":[${JSON.stringify(retract)}]}}`,
    )
    expect((await get(r, `/contexts/${enc(ctx_id)}/body`)).body).toBe(bodyBefore)

    r.clock.advance(1000)
    const republish = signedEvent(r, p, ctx_id, 'republished')
    const back = await post(r, ctx_id, 'republish', { event: republish })
    expect(back.statusCode).toBe(200)
    expect(back.json().registry_state).toEqual({ status: 'active', lifecycle_events: [retract, republish] })

    expect(webhooks.events.filter((e) => e.type === 'context_retracted' || e.type === 'context_republished')).toEqual([
      {
        type: 'context_retracted',
        registry_authority: AUTHORITY,
        ctx_id: ctx_id.slice('acdp://'.length),
        lineage_id: expect.stringMatching(/^lin:sha256:/),
        actor: p.did,
        lifecycle_event_id: retract.event_id,
        reason: 'source fabricated',
        at: expect.any(String),
      },
      expect.objectContaining({ type: 'context_republished', lifecycle_event_id: republish.event_id }),
    ])
  })

  it('strictly alternates: double retract and a never-retracted republish are 409, nothing appended (lc-001 C)', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const early = await post(r, ctx_id, 'republish', { event: signedEvent(r, p, ctx_id, 'republished') })
    expect(early.statusCode).toBe(409)
    expect(codeOf(early)).toBe('invalid_lifecycle_transition')
    expect((await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })).statusCode).toBe(200)
    const twice = await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })
    expect(twice.statusCode).toBe(409)
    expect(codeOf(twice)).toBe('invalid_lifecycle_transition')
    expect(JSON.parse((await r.store.findContext(ctx_id, 'default'))?.lifecycleEventsJson ?? '[]')).toHaveLength(1)
  })

  it('answers a byte-identical retry with 200 and appends nothing; another signature on the same event_id is 400', async () => {
    const webhooks = recordingDispatcher()
    const r = await start(lifecycleOn({ deps: { webhooks } }))
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const event = signedEvent(r, p, ctx_id, 'retracted')
    expect((await post(r, ctx_id, 'retract', { event })).statusCode).toBe(200)
    const retry = await post(r, ctx_id, 'retract', { event })
    expect(retry.statusCode).toBe(200)
    expect(retry.json().registry_state.lifecycle_events).toEqual([event])
    // Same event_id, different content (an Ed25519 signature is deterministic, so: other signer bytes).
    const forged = {
      ...event,
      signature: {
        ...event.signature,
        value: signedEvent(r, p, ctx_id, 'retracted', { event_id: event.event_id, reason: 'x' }).signature?.value,
      },
    }
    const reuse = await post(r, ctx_id, 'retract', { event: forged })
    expect(reuse.statusCode).toBe(400)
    expect(codeOf(reuse)).toBe('schema_violation')
    expect(webhooks.events.filter((e) => e.type === 'context_retracted')).toHaveLength(1)
  })

  it('refuses body content with immutable_field and other shape faults with schema_violation (lc-002 A, B, D)', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const event = signedEvent(r, p, ctx_id, 'retracted')
    const cases: Array<[unknown, number, string]> = [
      [{ event, body: { title: 'Corrected' } }, 400, 'immutable_field'],
      [{ event, summary: 'please update' }, 400, 'immutable_field'],
      [{ event, metadata: {} }, 400, 'immutable_field'],
      [{ event, note: 'hi' }, 400, 'schema_violation'],
      [{}, 400, 'schema_violation'],
      [[event], 400, 'schema_violation'],
      [{ event: { ...event, signature: undefined } }, 400, 'schema_violation'],
      [{ event: { ...event, extra: 1 } }, 400, 'schema_violation'],
      [{ event: signedEvent(r, p, ctx_id, 'republished') }, 400, 'schema_violation'],
      [
        { event: signedEvent(r, p, ctx_id, 'retracted', { ctx_id: `acdp://${AUTHORITY}/${randomUUID()}` }) },
        400,
        'schema_violation',
      ],
      [
        {
          event: signedEvent(r, p, ctx_id, 'retracted', {
            occurred_at: new Date(r.clock.nowMs + 121_000).toISOString(),
          }),
        },
        400,
        'schema_violation',
      ],
    ]
    for (const [body, status, code] of cases) {
      const res = await post(r, ctx_id, 'retract', body)
      expect([res.statusCode, codeOf(res)], JSON.stringify(body).slice(0, 80)).toEqual([status, code])
    }
    expect((await r.store.findContext(ctx_id, 'default'))?.lifecycleEventsJson).toBeNull()
  })

  it('refuses a non-producer with 403 and a bad signature with invalid_signature (lc-002 C)', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const other = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const notProducer = await post(r, ctx_id, 'retract', { event: signedEvent(r, other, ctx_id, 'retracted') })
    expect([notProducer.statusCode, codeOf(notProducer)]).toEqual([403, 'not_authorized'])
    // Claims the producer as actor but is signed by someone else's key under another DID.
    const wrongKey = signedEvent(r, other, ctx_id, 'retracted', { actor: other.did })
    const mismatched = { ...wrongKey, actor: p.did }
    const res = await post(r, ctx_id, 'retract', { event: mismatched })
    expect([res.statusCode, codeOf(res)]).toEqual([403, 'key_not_authorized'])
    const event = signedEvent(r, p, ctx_id, 'retracted')
    const tampered = { ...event, reason: 'changed after signing' }
    const bad = await post(r, ctx_id, 'retract', { event: tampered })
    expect([bad.statusCode, codeOf(bad)]).toEqual([400, 'invalid_signature'])
  })

  it('verifies did:web events through the DID document, assertionMethod included', async () => {
    const r = await start(lifecycleOn())
    const p = didWebProducer('did:web:agents.example.com:producer')
    r.dids.host([p])
    const { ctx_id } = await publishAs(r, p)
    r.dids.host([p], { assert: false })
    await r.deps.resolver.resolveKey(p.keyId, { forceRefresh: true }).catch(() => undefined)
    const res = await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })
    expect([res.statusCode, codeOf(res)]).toEqual([403, 'key_not_authorized'])
    r.dids.host([p])
    await r.deps.resolver.resolveKey(p.keyId, { forceRefresh: true })
    expect((await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })).statusCode).toBe(200)
  })

  it('answers 404 for unknown, foreign and invisible contexts, never revealing a private one to an unverified caller', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const stranger = didKeyProducer()
    const unknown = `acdp://${AUTHORITY}/${randomUUID()}`
    const foreign = `acdp://other.example.org/${randomUUID()}`
    for (const id of [unknown, foreign]) {
      const res = await post(r, id, 'retract', { event: signedEvent(r, p, id, 'retracted') })
      expect([res.statusCode, codeOf(res)]).toEqual([404, 'not_found'])
    }
    const { ctx_id } = await publishAs(r, p, { visibility: 'private' })
    // A stranger, a forged "producer" event and a malformed body all look exactly like a missing context.
    for (const body of [
      { event: signedEvent(r, stranger, ctx_id, 'retracted') },
      { event: { ...signedEvent(r, stranger, ctx_id, 'retracted', { actor: stranger.did }), actor: p.did } },
      { event: { ...signedEvent(r, p, ctx_id, 'retracted'), reason: 'tampered' } },
      { event: { actor: p.did }, body: { title: 'x' } },
    ]) {
      const res = await post(r, ctx_id, 'retract', body)
      expect([res.statusCode, codeOf(res)]).toEqual([404, 'not_found'])
    }
    // The producer's own signed event authenticates it.
    expect((await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })).statusCode).toBe(200)
  })

  it('takes a retracted head off /current and search, keeps it in the lineage, recovers by supersession (lc-003)', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const v1 = await publishAs(r, p, { title: 'golden record' })
    const v2 = await publishAs(r, p, {
      title: 'golden record',
      version: 2,
      supersedes: v1.ctx_id,
      lineage_id: v1.lineage_id,
    })
    expect((await post(r, v2.ctx_id, 'retract', { event: signedEvent(r, p, v2.ctx_id, 'retracted') })).statusCode).toBe(
      200,
    )
    const current = await get(r, `/lineages/${enc(v1.lineage_id)}/current`)
    expect([current.statusCode, codeOf(current)]).toEqual([404, 'not_found'])
    const lineage = (await get(r, `/lineages/${enc(v1.lineage_id)}`)).json() as Array<{
      registry_state: { status: string }
    }>
    expect(lineage.map((v) => v.registry_state.status)).toEqual(['superseded', 'retracted'])

    const search = (q: string) => get(r, `/contexts/search?q=golden${q}`)
    expect((await search('')).json().matches).toEqual([])
    expect((await search('&status=superseded')).json().matches.map((m: { ctx_id: string }) => m.ctx_id)).toEqual([
      v1.ctx_id,
    ])
    expect((await search('&status=retracted')).json().matches.map((m: { ctx_id: string }) => m.ctx_id)).toEqual([
      v2.ctx_id,
    ])

    const v3 = await publishAs(r, p, {
      title: 'golden record',
      version: 3,
      supersedes: v2.ctx_id,
      lineage_id: v1.lineage_id,
    })
    const head = await get(r, `/lineages/${enc(v1.lineage_id)}/current`)
    expect(head.statusCode).toBe(200)
    expect(head.json()).toMatchObject({ body: { ctx_id: v3.ctx_id }, registry_state: { status: 'active' } })
    // Retraction dominates the new superseded fact (RFC-ACDP-0013 §7.2).
    expect((await get(r, `/contexts/${enc(v2.ctx_id)}`)).json().registry_state.status).toBe('retracted')
    expect((await r.store.findRetractionState(v2.ctx_id))?.retracted).toBe(true)
  })

  it('refuses an event signed by a key its producer revoked', async () => {
    const r = await start(lifecycleOn())
    const k1 = didWebProducer('did:web:agents.example.com:rotating', 'ed25519', 'key-1')
    const k2 = didWebProducer('did:web:agents.example.com:rotating', 'ed25519', 'key-2')
    r.dids.host([k1, k2])
    const { ctx_id } = await publishAs(r, k1)
    await publishAs(r, k2, {
      type: 'key-revocation',
      metadata: {
        revoked_key_fingerprint: computeKeyFingerprint({ algorithm: 'ed25519', publicKey: k1.publicKey }),
        compromised_since: new Date(r.clock.nowMs - 60_000).toISOString(),
      },
    })
    const res = await post(r, ctx_id, 'retract', { event: signedEvent(r, k1, ctx_id, 'retracted') })
    expect([res.statusCode, codeOf(res)]).toEqual([403, 'key_not_authorized'])
    expect(res.json().error.details.reason).toBe('key_revoked')
    expect((await post(r, ctx_id, 'retract', { event: signedEvent(r, k2, ctx_id, 'retracted') })).statusCode).toBe(200)
  })

  it('answers concurrent retracts of one context with exactly one 200 and 409s', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
  })
})

describe('lifecycle charging (product spec behaviour 6)', () => {
  it('charges provably valid events on every outcome and nothing else; over budget is 429 before verification', async () => {
    const r = await start(lifecycleOn({ config: { limits: { publish_rate_per_minute: 2 } } }))
    const p = didKeyProducer()
    const stranger = didKeyProducer()
    const a = await publishAs(r, p)
    const b = await publishAs(r, p)
    // Publishes draw on the same per-agent bucket: the two spent it, so a retract now waits.
    const shared = await post(r, a.ctx_id, 'retract', { event: signedEvent(r, p, a.ctx_id, 'retracted') })
    expect([shared.statusCode, codeOf(shared)]).toEqual([429, 'rate_limited'])
    r.clock.advance(60_000)
    // Free: a non-producer (403), an unknown context (404), a mis-signed event (400).
    await post(r, a.ctx_id, 'retract', { event: signedEvent(r, stranger, a.ctx_id, 'retracted') })
    const missing = `acdp://${AUTHORITY}/${randomUUID()}`
    await post(r, missing, 'retract', { event: signedEvent(r, p, missing, 'retracted') })
    await post(r, a.ctx_id, 'retract', { event: { ...signedEvent(r, p, a.ctx_id, 'retracted'), reason: 'x' } })
    // Charged: an accepted retract and a refused (409) republish-of-active.
    expect((await post(r, a.ctx_id, 'retract', { event: signedEvent(r, p, a.ctx_id, 'retracted') })).statusCode).toBe(
      200,
    )
    expect(
      (await post(r, b.ctx_id, 'republish', { event: signedEvent(r, p, b.ctx_id, 'republished') })).statusCode,
    ).toBe(409)
    const limited = await post(r, b.ctx_id, 'retract', { event: signedEvent(r, p, b.ctx_id, 'retracted') })
    expect([limited.statusCode, codeOf(limited)]).toEqual([429, 'rate_limited'])
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // Another agent's budget is untouched by all of this.
    const c = await publishAs(r, stranger)
    expect(
      (await post(r, c.ctx_id, 'retract', { event: signedEvent(r, stranger, c.ctx_id, 'retracted') })).statusCode,
    ).toBe(200)
    r.clock.advance(30_000)
    expect((await post(r, b.ctx_id, 'retract', { event: signedEvent(r, p, b.ctx_id, 'retracted') })).statusCode).toBe(
      200,
    )
  })
})

describe('lifecycle metrics', () => {
  it('counts outcomes per action and 429s under lifecycle_per_agent', async () => {
    const metrics = createRegistryMetrics()
    const r = await start(lifecycleOn({ deps: { metrics }, config: { limits: { publish_rate_per_minute: 1 } } }))
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    // The publish drew on the shared per-agent bucket; refill it.
    r.clock.advance(60_000)
    const event = signedEvent(r, p, ctx_id, 'retracted')
    await post(r, ctx_id, 'retract', { event })
    await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })
    const text = await metrics.registry.metrics()
    expect(text).toContain('acdp_registry_lifecycle_event_total{event="retract",outcome="appended"} 1')
    expect(text).toContain('acdp_registry_lifecycle_event_total{event="retract",outcome="rate_limited"} 1')
    expect(text).toContain('acdp_registry_rate_limit_rejections_total{scope="lifecycle_per_agent"} 1')
  })
})

describe('profile gating, admin routes, startup rule', () => {
  it('answers 501 on both endpoints and omits the profile without lifecycle.enabled', async () => {
    const r = await start()
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    for (const action of ['retract', 'republish'] as const) {
      const res = await post(r, ctx_id, action, { event: signedEvent(r, p, ctx_id, 'retracted') })
      expect([res.statusCode, codeOf(res)]).toEqual([501, 'not_implemented'])
    }
    expect((await get(r, '/.well-known/acdp.json')).json().profiles).not.toContain('acdp-registry-lifecycle')
    expect((await get(r, `/contexts/${enc(ctx_id)}`)).json().registry_state).toEqual({ status: 'active' })
    expect((await r.app.inject({ method: 'POST', url: `/admin/contexts/${enc(ctx_id)}/retract` })).statusCode).toBe(404)
  })

  it('advertises the profile when enabled and refuses listing it while disabled', async () => {
    const r = await start(lifecycleOn())
    expect((await get(r, '/.well-known/acdp.json')).json().profiles).toContain('acdp-registry-lifecycle')
    expect(() =>
      resolveConfig({
        registry: { authority: AUTHORITY, profiles: ['acdp-registry-core', 'acdp-registry-lifecycle'] },
      }),
    ).toThrow(/requires lifecycle.enabled = true/)
  })

  it('lets an admin bearer retract and republish as the registry, compared in constant time', async () => {
    const webhooks = recordingDispatcher()
    const r = await start(lifecycleOn({ deps: { webhooks } }))
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p, { visibility: 'private' })
    const admin = (action: string, token: string | undefined, body?: unknown) =>
      r.app.inject({
        method: 'POST',
        url: `/admin/contexts/${enc(ctx_id)}/${action}`,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      })
    expect((await admin('retract', undefined)).statusCode).toBe(403)
    expect((await admin('retract', `${ADMIN_TOKEN}x`)).statusCode).toBe(403)
    expect(codeOf(await admin('retract', ADMIN_TOKEN, { title: 'x' }))).toBe('immutable_field')
    const res = await admin('retract', ADMIN_TOKEN, { reason: 'court order' })
    expect(res.statusCode).toBe(200)
    const [event] = res.json().registry_state.lifecycle_events as LifecycleEvent[]
    expect(event).toMatchObject({
      ctx_id,
      event_type: 'retracted',
      actor: `did:web:${AUTHORITY}`,
      reason: 'court order',
    })
    expect(event?.signature).toBeUndefined()
    expect((await admin('retract', ADMIN_TOKEN)).statusCode).toBe(409)
    expect((await admin('republish', ADMIN_TOKEN)).json().registry_state.status).toBe('active')
    expect(webhooks.events.map((e) => e.type).filter((t) => t !== 'context_published')).toEqual([
      'context_retracted',
      'context_republished',
    ])
  })

  it('refuses to start with lifecycle off while the store holds lifecycle state', async () => {
    const r = await start(lifecycleOn())
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const off = resolveConfig({ registry: { authority: AUTHORITY } })
    await expect(refuseOrphanedLifecycleState(off, r.store)).resolves.toBeUndefined()
    await post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })
    await expect(refuseOrphanedLifecycleState(off, r.store)).rejects.toThrow(/lifecycle.enabled = false/)
    await expect(refuseOrphanedLifecycleState(r.config, r.store)).resolves.toBeUndefined()
  })
})

describe.each(testDatabaseTargets())('lifecycle on $name', (target) => {
  it('retracts, republishes and settles concurrent retracts with one winner', async () => {
    const r = await start(lifecycleOn({ openDatabase: () => target.open() }))
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(r, ctx_id, 'retract', { event: signedEvent(r, p, ctx_id, 'retracted') })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409])
    expect((await get(r, `/contexts/${enc(ctx_id)}`)).json().registry_state.status).toBe('retracted')
    const back = await post(r, ctx_id, 'republish', { event: signedEvent(r, p, ctx_id, 'republished') })
    expect(back.json().registry_state.lifecycle_events.map((e: LifecycleEvent) => e.event_type)).toEqual([
      'retracted',
      'republished',
    ])
    expect(await r.store.hasLifecycleState()).toBe(true)
  })
})
