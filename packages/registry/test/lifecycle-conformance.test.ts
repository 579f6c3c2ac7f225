/**
 * The lc- fixtures (RFC-ACDP-0013 §13) against a live registry advertising acdp-registry-lifecycle and discovery.
 * The fixtures' requests are replayed as given — member names, event ids, occurred_at, actors, extra members —
 * with two substitutions a live run needs: the registry-assigned ctx_id replaces the fixture's, and placeholder
 * signatures are made real with the key their `key_id` names (test-producer is the sig-001 key; other-agent has
 * a key of its own). Expected statuses and codes are read from each scenario. A fixture or scenario without a
 * handler fails the suite.
 */
import {
  computeLifecycleEventHash,
  ed25519PublicKeyFromSeed,
  generateSigningKey,
  signContentHash,
} from '@acdp/protocol'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import {
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  TestClock,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

reportMissingConformance('registry lifecycle conformance')
const start = useTestRegistry()
const fixtures = loadFixtures('lc-')
const ran: string[] = []
const enc = encodeURIComponent

const PRODUCER_DID = 'did:web:agents.example.com:test-producer'
const OTHER_DID = 'did:web:agents.example.com:other-agent'

function keyed(did: string, privateKey: Uint8Array): Producer {
  return {
    did,
    keyId: `${did}#key-1`,
    algorithm: 'ed25519',
    privateKey,
    publicKey: ed25519PublicKeyFromSeed(privateKey),
  }
}

interface Live {
  r: TestRegistry
  producer: Producer
  other: Producer
}

async function live(): Promise<Live> {
  // After every occurred_at in the fixtures, so none is "in the future".
  const r = await start({
    clock: new TestClock(Date.parse('2026-07-04T10:00:00.000Z')),
    config: {
      lifecycle: { enabled: true },
      limits: { publish_rate_per_minute: 0 },
    },
  })
  const producer = keyed(PRODUCER_DID, new Uint8Array(32))
  const other = keyed(OTHER_DID, generateSigningKey('ed25519').privateKey)
  r.dids.host([producer])
  r.dids.host([other])
  return { r, producer, other }
}

async function publishAs(l: Live, overrides: Record<string, unknown> = {}) {
  const res = await publish(
    l.r.app,
    signRequest(l.producer, minimalUnsigned(l.producer, { title: 'golden context', ...overrides })),
  )
  expect(res.statusCode).toBe(201)
  return res.json() as { ctx_id: string; lineage_id: string }
}

/** The fixture request with the live ctx_id and a real signature where the fixture has a placeholder. */
function realize(l: Live, body: Record<string, unknown>, ctxId: string, overrides: Record<string, unknown> = {}) {
  const copy = structuredClone(body)
  const event: Record<string, unknown> = { ...(copy.event as Record<string, unknown>), ctx_id: ctxId, ...overrides }
  const signature = event.signature as { key_id: string } | undefined
  if (signature) {
    const signer = [l.producer, l.other].find((p) => p.keyId === signature.key_id)
    if (!signer) throw new Error(`fixture key ${signature.key_id} has no test key`)
    const { signature: _placeholder, ...unsigned } = event
    event.signature = {
      ...signature,
      value: signContentHash({
        algorithm: 'ed25519',
        privateKey: signer.privateKey,
        contentHash: computeLifecycleEventHash(unsigned as never),
      }),
    }
  }
  copy.event = event
  return copy
}

function post(l: Live, ctxId: string, action: string, body: unknown) {
  return l.r.app.inject({
    method: 'POST',
    url: `/contexts/${enc(ctxId)}/${action}`,
    headers: { 'content-type': 'application/acdp+json' },
    payload: JSON.stringify(body),
  })
}

const get = (l: Live, url: string) => l.r.app.inject({ method: 'GET', url })

function expectOutcome(res: { statusCode: number; json(): unknown }, expected: Record<string, unknown>): void {
  if (typeof expected.http_status === 'number') expect(res.statusCode).toBe(expected.http_status)
  if (typeof expected.error_code === 'string') {
    expect((res.json() as { error: { code: string } }).error.code).toBe(expected.error_code)
  }
}

const scenario = (fx: Fixture, letter: string) => {
  const found = (
    fx.scenarios as Array<{
      name: string
      expected: Record<string, unknown>
      request?: { body: Record<string, unknown> }
    }>
  ).find((s) => s.name.startsWith(`${letter} `))
  if (!found) throw new Error(`${fx.id}: no scenario ${letter}`)
  return found
}

const matchesOf = async (l: Live, query: string) =>
  ((await get(l, `/contexts/search?${query}`)).json() as { matches: Array<{ ctx_id: string }> }).matches.map(
    (m) => m.ctx_id,
  )

const HANDLERS: Record<string, (fx: Fixture) => Promise<void>> = {
  async 'lc-001'(fx) {
    const l = await live()
    const { ctx_id } = await publishAs(l)
    const bodyBefore = (await get(l, `/contexts/${enc(ctx_id)}/body`)).body
    const retract = realize(l, fx.input.retract_request.body, ctx_id)

    const a = await post(l, ctx_id, 'retract', retract)
    expectOutcome(a, scenario(fx, 'A').expected)
    expect((a.json() as { registry_state: unknown }).registry_state).toEqual({
      status: 'retracted',
      lifecycle_events: [retract.event],
    })

    const b = await get(l, `/contexts/${enc(ctx_id)}`)
    expect(b.statusCode).toBe(200)
    expect(b.body.startsWith(`{"body":${bodyBefore},`)).toBe(true)
    expect((await get(l, `/contexts/${enc(ctx_id)}/body`)).body).toBe(bodyBefore)

    const fresh = realize(l, fx.input.retract_request.body, ctx_id, {
      event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e30',
    })
    expectOutcome(await post(l, ctx_id, 'retract', fresh), scenario(fx, 'C').expected)

    expect(await matchesOf(l, 'q=golden')).toEqual([])
    for (const status of ['superseded', 'expired']) expect(await matchesOf(l, `q=golden&status=${status}`)).toEqual([])
    expect(await matchesOf(l, 'q=golden&status=retracted')).toEqual([ctx_id])

    const { reason: _reason, ...retractEvent } = fx.input.retract_request.body.event as Record<string, unknown>
    const republish = realize(l, { event: retractEvent }, ctx_id, {
      event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e31',
      event_type: 'republished',
    })
    const f = await post(l, ctx_id, 'republish', republish)
    expectOutcome(f, scenario(fx, 'F').expected)
    expect(
      (f.json() as { registry_state: { status: string; lifecycle_events: unknown[] } }).registry_state,
    ).toMatchObject({
      status: 'active',
      lifecycle_events: [retract.event, expect.objectContaining({ event_type: 'republished' })],
    })
    expect(await matchesOf(l, 'q=golden')).toEqual([ctx_id])
  },

  async 'lc-002'(fx) {
    const l = await live()
    const { ctx_id } = await publishAs(l)
    for (const letter of ['A', 'B', 'C', 'D']) {
      const s = scenario(fx, letter)
      const res = await post(l, ctx_id, 'retract', realize(l, s.request?.body as Record<string, unknown>, ctx_id))
      expectOutcome(res, s.expected)
    }
    // "MUST NOT append any event or change any state".
    expect((await get(l, `/contexts/${enc(ctx_id)}`)).json()).toMatchObject({ registry_state: { status: 'active' } })
    expect((await l.r.store.findContext(ctx_id, 'default'))?.lifecycleEventsJson).toBeNull()
  },

  async 'lc-003'(fx) {
    const l = await live()
    const v1 = await publishAs(l)
    const v2 = await publishAs(l, { version: 2, supersedes: v1.ctx_id, lineage_id: v1.lineage_id })
    const event = (type: string, id: string, ctxId: string) => ({
      event: {
        event_id: id,
        ctx_id: ctxId,
        event_type: type,
        occurred_at: '2026-07-04T09:30:00.000Z',
        actor: PRODUCER_DID,
        signature: { algorithm: 'ed25519', key_id: `${PRODUCER_DID}#key-1`, value: 'placeholder' },
      },
    })
    expect(
      (
        await post(
          l,
          v2.ctx_id,
          'retract',
          realize(l, event('retracted', '018f6d0a-0003-4c4d-9e1f-3a5b7c9d1e2f', v2.ctx_id), v2.ctx_id),
        )
      ).statusCode,
    ).toBe(200)

    const a = await get(l, `/lineages/${enc(v1.lineage_id)}/current`)
    expectOutcome(a, scenario(fx, 'A').expected)
    expect(a.json()).not.toHaveProperty('lineage_head_receipt')

    const b = await get(l, `/lineages/${enc(v1.lineage_id)}`)
    expect(b.statusCode).toBe(scenario(fx, 'B').expected.http_status)
    const versions = b.json() as Array<{ registry_state: { status: string; lifecycle_events?: unknown[] } }>
    expect(versions.map((v) => v.registry_state.status)).toEqual(['superseded', 'retracted'])
    expect(versions[1]?.registry_state.lifecycle_events).toHaveLength(1)
    expect((await get(l, `/contexts/${enc(v2.ctx_id)}`)).statusCode).toBe(200)

    const v3 = await publishAs(l, { version: 3, supersedes: v2.ctx_id, lineage_id: v1.lineage_id })
    const c = await get(l, `/lineages/${enc(v1.lineage_id)}/current`)
    expectOutcome(c, scenario(fx, 'C').expected)
    expect(c.json()).toMatchObject({ body: { ctx_id: v3.ctx_id, version: 3 }, registry_state: { status: 'active' } })
    expect((await get(l, `/contexts/${enc(v2.ctx_id)}`)).json()).toMatchObject({
      registry_state: { status: 'retracted' },
    })
    // Scenario D (head receipts) applies only with acdp-registry-head-receipts, which this build does not serve:
    // no /current answer carries a head receipt at all.
    expect(c.json()).not.toHaveProperty('lineage_head_receipt')
  },
}

describe.runIf(hasConformance)('lifecycle conformance fixtures (live registry)', () => {
  it.each(fixtures.map((fx) => [fx.id, fx] as [string, Fixture]))('%s', async (id, fx) => {
    const handler = HANDLERS[id]
    if (!handler) throw new Error(`no handler for fixture ${id} (${fx.file}); add one`)
    await handler(fx)
    ran.push(id)
  })

  it('ran every lc- fixture', () => {
    expect(fixtures.length).toBeGreaterThan(0)
    expect(ran.sort()).toEqual(fixtures.map((f) => f.id).sort())
  })
})

afterAll(() => {
  if (hasConformance)
    console.info(`[registry lifecycle conformance] ran ${ran.length} of ${fixtures.length} lc- fixtures`)
})
