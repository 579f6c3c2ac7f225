/** When the retraction banner shows and what it says, over envelopes carrying real signed lifecycle events. */
import { randomUUID } from 'node:crypto'
import { createProducerKey, signLifecycleEvent } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { retractionNotice } from './retraction.js'

const CTX = 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7'
const key = createProducerKey()

function event(type: 'retracted' | 'republished', at: string, reason?: string) {
  return signLifecycleEvent(
    {
      event_id: randomUUID(),
      ctx_id: CTX,
      event_type: type,
      occurred_at: at,
      actor: key.did,
      ...(reason === undefined ? {} : { reason }),
    },
    { algorithm: key.algorithm, keyId: key.keyId, privateKey: key.privateKey },
  )
}

describe('retractionNotice', () => {
  it('gives the reason and time of the latest retraction when the status is retracted', () => {
    const envelope = {
      body: { ctx_id: CTX },
      registry_state: {
        status: 'retracted',
        lifecycle_events: [
          event('retracted', '2026-06-12T09:00:00.000Z', 'first mistake'),
          event('republished', '2026-06-12T10:00:00.000Z'),
          event('retracted', '2026-06-12T11:00:00.000Z', 'input series was wrong'),
        ],
      },
    }
    expect(retractionNotice(envelope)).toEqual({ at: '2026-06-12T11:00:00.000Z', reason: 'input series was wrong' })
  })

  it('shows no banner for a republished context (active again) or a superseded one', () => {
    const events = [
      event('retracted', '2026-06-12T09:00:00.000Z', 'oops'),
      event('republished', '2026-06-12T10:00:00.000Z'),
    ]
    expect(retractionNotice({ registry_state: { status: 'active', lifecycle_events: events } })).toBeNull()
    expect(retractionNotice({ registry_state: { status: 'superseded' } })).toBeNull()
    expect(retractionNotice({ body: {} })).toBeNull()
  })

  it('still shows the banner, without reason or time, when the registry served no events', () => {
    expect(retractionNotice({ registry_state: { status: 'retracted' } })).toEqual({ at: null, reason: null })
    expect(retractionNotice({ registry_state: { status: 'retracted', lifecycle_events: 'x' } })).toEqual({
      at: null,
      reason: null,
    })
  })
})
