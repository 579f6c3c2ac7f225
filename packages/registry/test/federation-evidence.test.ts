/**
 * Federation with verified origins (fixture fed-009; RFC-ACDP-0010 §8, RFC-ACDP-0012 §9.1) through the registry
 * app and its production resolver composition: GET /contexts/{foreign ctx_id} against a loopback HTTPS origin
 * that is a FakeRegistry (protocol library
 * only: its receipts and checkpoints are signed with test keys). Honest origins are served with their verified
 * receipt and inclusion proof forwarded verbatim; every forged or missing piece of evidence is a 502 with the
 * failing stage and reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import { FakeRegistry, fakeProducer } from '../../protocol/test/support/fake-registry.js'
import { type FakeOrigin, getForeign, startFakeOrigin, startFederatedRegistry } from './support/fake-origin.js'
import { useTestRegistry } from './support/registry-harness.js'

reportMissingConformance('federation evidence')
const fed009 = loadFixtures('fed-009')
/** fed-009's outcomes a live test reproduced: its success and each of its failure_cases (by position). */
const covered = new Set<string>()
const ORIGIN = 'origin.test'
const start = useTestRegistry()
const producer = fakeProducer('did:web:agents.example.com:collector', 5)

let origin: FakeOrigin

beforeAll(async () => {
  origin = await startFakeOrigin(ORIGIN)
})

afterAll(() => origin.close())

const federatedRegistry = (fake: FakeRegistry) => startFederatedRegistry(start, origin, fake, producer)

describe('federated retrieval verifies the origin (fed-009)', () => {
  afterAll(() => {
    if (!hasConformance) return
    const cases = 1 + ((fed009[0]?.expected.failure_cases as unknown[] | undefined)?.length ?? 0)
    console.log(
      `[federation evidence] ${covered.size}/${cases} fed-009 cases driven against a live registry (${fed009.length} fixture)`,
    )
  })

  it('serves an honest origin with its receipt verified against the ORIGIN authority and forwarded verbatim', async () => {
    const fake = new FakeRegistry({ authority: ORIGIN })
    fake.publish(producer)
    const ctxId = fake.publish(producer)
    const r = await federatedRegistry(fake)
    const res = await getForeign(r, ctxId)
    expect(res.statusCode).toBe(200)
    const served = res.json() as Record<string, unknown>
    expect(served.registry_receipt).toEqual(fake.envelope(ctxId)?.registry_receipt)
    expect(served.registry_state).toEqual({ status: 'active' })
    // The inclusion proof was fetched from the origin's log and checked (it is not inline, so not forwarded).
    expect(origin.requested.some((p) => p.startsWith('/log/proof?ctx_id='))).toBe(true)
    expect(served).not.toHaveProperty('log_inclusion')
    covered.add('success')
  })

  it.each([
    ['a forged receipt signature', 'receipt_signature', 'invalid_receipt', 'registry_receipt'],
    ['a receipt binding another content_hash', 'receipt_content_hash', 'invalid_receipt', 'registry_receipt'],
    ['an inclusion path that does not reach the root', 'inclusion_path', 'invalid_log_proof', 'log_inclusion'],
    ['a checkpoint whose signature does not cover it', 'checkpoint_signature', 'invalid_log_proof', 'log_inclusion'],
  ] as const)('answers 502 for %s', async (_name, tamper, code, stage) => {
    const fake = new FakeRegistry({ authority: ORIGIN })
    fake.publish(producer)
    const ctxId = fake.publish(producer)
    fake.tamper = tamper
    const r = await federatedRegistry(fake)
    const res = await getForeign(r, ctxId)
    expect(res.statusCode).toBe(502)
    const error = (res.json() as { error: { code: string; details: { stage: string; reason: string } } }).error
    expect(error.code).toBe(code)
    expect(error.details.stage).toBe(stage)
    expect(typeof error.details.reason).toBe('string')
    if (stage === 'registry_receipt') covered.add('failure_cases[0]: the receipt fails a §8 step')
  })

  it('refuses a receipts-advertising origin that serves no receipt, and accepts a receipt-less one that does not', async () => {
    const fake = new FakeRegistry({ authority: ORIGIN })
    const ctxId = fake.publish(producer)
    fake.serveReceipts = false
    const r = await federatedRegistry(fake)
    const missing = await getForeign(r, ctxId)
    expect(missing.statusCode).toBe(502)
    expect(missing.json()).toMatchObject({ error: { code: 'invalid_receipt', details: { reason: 'receipt_missing' } } })
    covered.add('failure_cases[1]: receipts advertised, none served')

    const plain = new FakeRegistry({ authority: ORIGIN, profiles: ['acdp-registry-core'] })
    const plainId = plain.publish(producer)
    plain.serveReceipts = false
    const r2 = await federatedRegistry(plain)
    const ok = await getForeign(r2, plainId)
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).not.toHaveProperty('registry_receipt')
    covered.add('failure_cases[2]: receipts not advertised, none served')
  })

  it('binds the receipt to the origin: another registry key signing as the origin is refused', async () => {
    const fake = new FakeRegistry({ authority: ORIGIN })
    const ctxId = fake.publish(producer)
    const r = await federatedRegistry(fake)
    // The origin's DID document now lists a different key under the same key id.
    const impostor = new FakeRegistry({ authority: ORIGIN, receiptSeed: 0x22 })
    const json = (value: unknown) => ({ status: 200, body: new TextEncoder().encode(JSON.stringify(value)) })
    r.dids.answer(fake.registryDid, json(impostor.didDocument()))
    const res = await getForeign(r, ctxId)
    expect(res.json()).toMatchObject({ error: { code: 'invalid_receipt', details: { stage: 'registry_receipt' } } })
    covered.add('failure_cases[0]: the receipt fails a §8 step')
  })

  it.runIf(hasConformance)('matches the fed-009 fixture outcomes', async () => {
    const [fx] = fed009 as [Fixture]
    expect(fx.expected.outcome).toBe('success')
    // Failure cases: each named case maps to the wire code the fixture pins.
    const cases = fx.expected.failure_cases as Array<{ case: string; expected_outcome: string }>
    expect(
      cases.filter((c) => c.expected_outcome.startsWith('failure')).map((c) => c.expected_outcome.split(' ')[1]),
    ).toEqual(['invalid_receipt', 'invalid_receipt'])
    expect(cases.some((c) => c.expected_outcome.startsWith('success'))).toBe(true)
    // The live tests above ran first (a file's tests run in order): each outcome was reproduced.
    expect(covered.size).toBe(1 + cases.length)
  })
})
