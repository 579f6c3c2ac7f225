import { describe, expect, it } from 'vitest'
import { ed25519PublicKeyFromSeed } from '../signature/index.js'
import { signLifecycleEvent, validateLifecycleEvent, verifyLifecycleEventSignature } from './lifecycle-event.js'
import { isLifecycleTransitionAllowed, isRetracted } from './retraction-state.js'
import { reasonOf } from '../../test/support/rejection.js'

const registryDid = 'did:web:registry.example.com'
const seed = new Uint8Array(32).fill(3)
const key = { algorithm: 'ed25519' as const, keyId: `${registryDid}#receipt-key-1`, privateKey: seed }
const resolveKey = () => ({ algorithm: 'ed25519' as const, publicKey: ed25519PublicKeyFromSeed(seed) })
const unsigned = {
  event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e2f',
  ctx_id: 'acdp://registry.example.com/12345678-1234-4321-8123-123456781234',
  event_type: 'retracted',
  occurred_at: '2026-07-04T09:15:42.000Z',
  actor: registryDid,
  reason: 'removed by policy',
}

describe('registry-initiated lifecycle events (RFC-ACDP-0013 §5)', () => {
  it('are signed with the registry receipt key and verify', async () => {
    const event = signLifecycleEvent(unsigned, key)
    validateLifecycleEvent(event, { ctxId: unsigned.ctx_id, now: new Date(unsigned.occurred_at) })
    await verifyLifecycleEventSignature(event, resolveKey)
  })

  it('refuse a key outside the actor, when signing and when verifying', async () => {
    expect(
      await reasonOf(() => signLifecycleEvent({ ...unsigned, actor: 'did:web:agents.example.com:p' }, key)),
    ).toEqual({
      code: 'invalid_structure',
      reason: 'key_id_not_under_actor',
    })
    const event = { ...signLifecycleEvent(unsigned, key), actor: 'did:web:agents.example.com:p' }
    expect(await reasonOf(() => verifyLifecycleEventSignature(event, resolveKey))).toEqual({
      code: 'verification_failed',
      reason: 'key_id_not_under_actor',
    })
  })

  it('an unsigned registry event may be accepted as state when signatures are not required', () => {
    validateLifecycleEvent(unsigned, {
      ctxId: unsigned.ctx_id,
      now: new Date(unsigned.occurred_at),
      requireSignature: false,
    })
  })
})

describe('malformed lifecycle events yield invalid_structure (attacker-controlled input)', () => {
  it.each([
    { name: 'null', value: null },
    { name: 'an uppercase event_id', value: { ...unsigned, event_id: unsigned.event_id.toUpperCase() } },
    { name: 'a capitalised event_type', value: { ...unsigned, event_type: 'Retracted' } },
    { name: 'a reason over 1024 characters', value: { ...unsigned, reason: 'x'.repeat(1025) } },
    { name: 'occurred_at without milliseconds', value: { ...unsigned, occurred_at: '2026-07-04T09:15:42Z' } },
  ])('$name', async ({ value }) => {
    expect(
      await reasonOf(() =>
        validateLifecycleEvent(value, {
          ctxId: unsigned.ctx_id,
          now: new Date(unsigned.occurred_at),
          requireSignature: false,
        }),
      ),
    ).toEqual({ code: 'invalid_structure', reason: 'schema_violation' })
  })
})

describe('retraction state is array order, unknown types ignored (RFC-ACDP-0013 §7.1, §7.3)', () => {
  it.each([
    { events: [], retracted: false },
    { events: ['retracted'], retracted: true },
    { events: ['retracted', 'republished'], retracted: false },
    { events: ['retracted', 'republished', 'retracted'], retracted: true },
    { events: ['retracted', 'annotated'], retracted: true },
    { events: ['annotated'], retracted: false },
  ])('$events → retracted: $retracted', ({ events, retracted }) => {
    const history = events.map((event_type) => ({ event_type }))
    expect(isRetracted(history)).toBe(retracted)
    expect(isLifecycleTransitionAllowed(history, 'retracted')).toBe(!retracted)
    expect(isLifecycleTransitionAllowed(history, 'republished')).toBe(retracted)
  })
})
