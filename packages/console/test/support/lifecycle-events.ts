/** Retracting and republishing a context as its producer does: a signed lifecycle event posted to the registry. */
import { randomUUID } from 'node:crypto'
import { type ProducerKey, signLifecycleEvent } from '@acdp/protocol'
import { expect } from 'vitest'

/** A producer-signed lifecycle event (RFC-ACDP-0013 §5) posted to the registry at `registryUrl`; expects 200. */
export async function postLifecycleEvent(
  registryUrl: string,
  key: ProducerKey,
  ctxId: string,
  action: 'retract' | 'republish',
  reason?: string,
): Promise<void> {
  const event = signLifecycleEvent(
    {
      event_id: randomUUID(),
      ctx_id: ctxId,
      event_type: action === 'retract' ? 'retracted' : 'republished',
      occurred_at: new Date().toISOString(),
      actor: key.did,
      ...(reason === undefined ? {} : { reason }),
    },
    { algorithm: key.algorithm, keyId: key.keyId, privateKey: key.privateKey },
  )
  const response = await fetch(`${registryUrl}/contexts/${encodeURIComponent(ctxId)}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/acdp+json' },
    body: JSON.stringify({ event }),
  })
  expect(response.status, await response.text()).toBe(200)
}
