/**
 * Security suite: hostile origins in cross-registry resolution, kept closed. The origin's registry identity and
 * registry state, through the registry app and
 * its production resolver composition (createFederatedResolver) against a loopback HTTPS origin (a FakeRegistry):
 * RFC-ACDP-0006 §4.1 steps 2–3 (capabilities must name did:web:<authority>, unless the operator pinned the
 * origin's DID out of band in registry.trusted_origins) and RFC-ACDP-0004 §4.1 (a malformed status is refused,
 * an unknown well-formed one relayed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeRegistry, fakeDidKeyProducer, fakeProducer } from '../../protocol/test/support/fake-registry.js'
import type { RegistryConfigInput } from '../src/core/config.js'
import { type FakeOrigin, getForeign, startFakeOrigin, startFederatedRegistry } from './support/fake-origin.js'
import { useTestRegistry } from './support/registry-harness.js'

const ORIGIN = 'origin.test'
const start = useTestRegistry()
const producer = fakeProducer('did:web:agents.example.com:collector', 5)
/** A did:key identity a hostile origin may claim instead of its did:web. */
const DID_KEY = fakeDidKeyProducer(33).did

let origin: FakeOrigin

beforeAll(async () => {
  origin = await startFakeOrigin(ORIGIN)
})

afterAll(() => origin.close())

const federatedRegistry = (fake: FakeRegistry, config: RegistryConfigInput = {}) =>
  startFederatedRegistry(start, origin, fake, producer, config)

type ErrorEnvelope = { error: { code: string; message: string; details: Record<string, unknown> } }

/** A receipt-less origin (core profile only): identity is then the only binding to the authority. */
function receiptLessOrigin(): { fake: FakeRegistry; ctxId: string } {
  const fake = new FakeRegistry({ authority: ORIGIN, profiles: ['acdp-registry-core'] })
  const ctxId = fake.publish(producer)
  fake.serveReceipts = false
  return { fake, ctxId }
}

describe('cross-registry resolution binds the origin to its authority (RFC-ACDP-0006 §4.1 steps 2–3)', () => {
  it('serves an origin whose capabilities name did:web:<authority>', async () => {
    const { fake, ctxId } = receiptLessOrigin()
    const res = await getForeign(await federatedRegistry(fake), ctxId)
    expect(res.statusCode).toBe(200)
    expect((res.json() as { body: { ctx_id: string } }).body.ctx_id).toBe(ctxId)
  })

  it.each([
    ["another registry's did:web", 'did:web:registry-b.example', 'registry_did_mismatch'],
    ['its did:web on another port', `did:web:${ORIGIN}%3A8443`, 'registry_did_mismatch'],
    ['its did:web under a path', `did:web:${ORIGIN}:tenant`, 'registry_did_mismatch'],
    ['a did:key', DID_KEY, 'registry_did_not_did_web'],
  ])('refuses an origin claiming %s with 502 and the reason, fetching nothing more', async (_name, claimed, reason) => {
    for (const fake of [receiptLessOrigin().fake, new FakeRegistry({ authority: ORIGIN })]) {
      const ctxId = fake.publish(producer)
      fake.claimedRegistryDid = claimed
      const res = await getForeign(await federatedRegistry(fake), ctxId)
      expect(res.statusCode).toBe(502)
      expect(res.json()).toEqual({
        error: {
          code: 'cross_registry_resolution_failed',
          message: expect.any(String) as unknown,
          details: { reason, expected_registry_did: `did:web:${ORIGIN}` },
        },
      })
      // Refused at step 3: the context itself was never asked for.
      expect(origin.requested).toEqual(['/.well-known/acdp.json'])
    }
  })

  it.each([
    ['not JSON', () => '<html>registry</html>'],
    ['not a capabilities document', () => JSON.stringify({ registry_did: `did:web:${ORIGIN}` })],
    ['over 64 KiB', (fake: FakeRegistry) => JSON.stringify({ ...fake.capabilities(), x_pad: 'x'.repeat(65_536) })],
  ])('refuses an origin whose capabilities are %s with 502 capabilities_unavailable', async (_name, text) => {
    const { fake, ctxId } = receiptLessOrigin()
    const r = await federatedRegistry(fake)
    const capabilities = text(fake)
    origin.override = (path) => (path === '/.well-known/acdp.json' ? { status: 200, body: capabilities } : undefined)
    const res = await getForeign(r, ctxId)
    expect(res.statusCode).toBe(502)
    expect((res.json() as ErrorEnvelope).error).toMatchObject({
      code: 'cross_registry_resolution_failed',
      details: { reason: 'capabilities_unavailable' },
    })
    expect(origin.requested).toEqual(['/.well-known/acdp.json'])
  })

  it('serves an origin whose DID the operator pinned out of band, and only that DID', async () => {
    const trusted = { registry: { trusted_origins: [{ authority: ORIGIN, registry_did: DID_KEY }] } }
    const { fake, ctxId } = receiptLessOrigin()
    fake.claimedRegistryDid = DID_KEY
    const ok = await getForeign(await federatedRegistry(fake, trusted), ctxId)
    expect(ok.statusCode).toBe(200)

    // Pinned: the authority's own did:web no longer binds either (the pin is exact).
    const { fake: honest, ctxId: honestId } = receiptLessOrigin()
    const pinnedElsewhere = await getForeign(await federatedRegistry(honest, trusted), honestId)
    expect(pinnedElsewhere.statusCode).toBe(502)
    expect((pinnedElsewhere.json() as ErrorEnvelope).error.details).toEqual({
      reason: 'trusted_registry_did_mismatch',
      expected_registry_did: DID_KEY,
    })
  })

  it('keeps out-of-band trust off by default and per authority', async () => {
    const other = { registry: { trusted_origins: [{ authority: 'registry-b.example', registry_did: DID_KEY }] } }
    const { fake, ctxId } = receiptLessOrigin()
    fake.claimedRegistryDid = DID_KEY
    for (const config of [{}, other]) {
      const res = await getForeign(await federatedRegistry(fake, config), ctxId)
      expect(res.statusCode).toBe(502)
      expect((res.json() as ErrorEnvelope).error.details.reason).toBe('registry_did_not_did_web')
    }
  })
})

describe('cross-registry resolution reads the origin status as its consumer (RFC-ACDP-0004 §4.1)', () => {
  it.each(['ACTIVE', 'in progress', '', 'a'.repeat(65)])('refuses the malformed status %j with 502', async (status) => {
    const fake = new FakeRegistry({ authority: ORIGIN })
    const ctxId = fake.publish(producer)
    fake.servedStatus = status
    const res = await getForeign(await federatedRegistry(fake), ctxId)
    expect(res.statusCode).toBe(502)
    expect((res.json() as ErrorEnvelope).error).toMatchObject({
      code: 'cross_registry_resolution_failed',
      details: { reason: 'malformed_status' },
    })
  })

  it('relays the unknown well-formed status "paused_x" unchanged (consumers apply the same rule)', async () => {
    const fake = new FakeRegistry({ authority: ORIGIN })
    const ctxId = fake.publish(producer)
    fake.servedStatus = 'paused_x'
    const res = await getForeign(await federatedRegistry(fake), ctxId)
    expect(res.statusCode).toBe(200)
    expect((res.json() as { registry_state: unknown }).registry_state).toEqual({ status: 'paused_x' })
  })
})
