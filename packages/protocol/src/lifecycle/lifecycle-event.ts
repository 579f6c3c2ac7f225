/**
 * RFC-ACDP-0013 §4–§5 lifecycle events: the event hash, signing, the registry's §6 step 2 shape checks and
 * the §5 signature verification (registry at submission, consumers before treating an event as evidence).
 */
import { ProtocolError } from '../errors.js'
import { DEFAULT_MAX_FUTURE_SKEW_MS } from '../receipt/lineage-head-receipt.js'
import { computeReceiptHash } from '../receipt/receipt-hash.js'
import {
  type ResolveVerificationKey,
  type SigningKey,
  signReceiptHash,
  verifyReceiptSignature,
} from '../receipt/receipt-signature.js'
import { didOfKeyId } from '../receipt/registry-binding.js'
import { assertWireShape, LifecycleEvent } from '../wire/log.js'

/** An event before signing. */
export type UnsignedLifecycleEvent = Omit<LifecycleEvent, 'signature'>

/** The event hash (§5 steps 1–2): `"sha256:" + hex(SHA-256(JCS(event minus signature)))`. */
export function computeLifecycleEventHash(event: UnsignedLifecycleEvent | LifecycleEvent): string {
  return computeReceiptHash(event)
}

/**
 * Signs an event (§5 steps 3–4) with the actor's key: the producer's current key for producer events, the
 * registry receipt key for registry events. Checks the key id is a DID URL under `actor` and the closed shape.
 * Throws ProtocolError `invalid_structure` (`key_id_not_under_actor`, `schema_violation`).
 */
export function signLifecycleEvent(unsigned: UnsignedLifecycleEvent, key: SigningKey): LifecycleEvent {
  if (didOfKeyId(key.keyId) !== unsigned.actor) {
    throw new ProtocolError('invalid_structure', 'the signing key is not a DID URL under actor', {
      details: { reason: 'key_id_not_under_actor' },
    })
  }
  const event: LifecycleEvent = { ...unsigned, signature: signReceiptHash(computeLifecycleEventHash(unsigned), key) }
  assertWireShape(LifecycleEvent, event, 'lifecycle_event')
  return event
}

/** Input of {@link validateLifecycleEvent}. */
export interface ValidateLifecycleEventInput {
  /** The `ctx_id` of the context the event is for (the path `ctx_id`, or the retrieved context's). */
  readonly ctxId: string
  /** The registry's clock (injected). */
  readonly now: Date
  /** Allowed producer clock lead for `occurred_at`; default 120 s (RECOMMENDED, §4). */
  readonly maxFutureSkewMs?: number
  /** Producer-initiated events MUST be signed (§5); default true. */
  readonly requireSignature?: boolean
}

/**
 * RFC-ACDP-0013 §4 / §6 step 2 for an attacker-controlled event: closed shape, `ctx_id` binding, not in the
 * future beyond the skew allowance, signature present when required. Does not check the transition, the
 * `event_type` against the endpoint, or `event_id` uniqueness (registry state).
 * Throws ProtocolError `invalid_structure` with `details.reason` one of `schema_violation`,
 * `ctx_id_mismatch`, `occurred_at_in_future`, `signature_missing` — all `schema_violation` on the wire.
 */
export function validateLifecycleEvent(value: unknown, input: ValidateLifecycleEventInput): LifecycleEvent {
  assertWireShape(LifecycleEvent, value, 'lifecycle_event')
  if (value.ctx_id !== input.ctxId) invalid('ctx_id_mismatch', 'event ctx_id differs from the context it is for')
  const maxFutureSkewMs = input.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS
  if (Date.parse(value.occurred_at) > input.now.getTime() + maxFutureSkewMs) {
    invalid('occurred_at_in_future', 'occurred_at is beyond the allowed clock skew')
  }
  if ((input.requireSignature ?? true) && value.signature === undefined) {
    invalid('signature_missing', 'producer-initiated lifecycle events must be signed')
  }
  return value
}

/**
 * RFC-ACDP-0013 §5 signature verification of a (validated) event: `signature.key_id`'s DID must equal `actor`
 * (checked before the key is resolved), then the signature must verify over the recomputed event hash.
 * Whether the key is *currently* authorized (assertionMethod) is the resolver's decision.
 * Returns the event hash. Throws ProtocolError `invalid_structure` (`signature_missing`) or
 * `verification_failed` with `details.reason` `key_id_not_under_actor` or a `verifyReceiptSignature` reason
 * (registry: `invalid_signature`).
 */
export async function verifyLifecycleEventSignature(
  event: LifecycleEvent,
  resolveKey: ResolveVerificationKey,
): Promise<string> {
  const { signature } = event
  if (signature === undefined) invalid('signature_missing', 'the lifecycle event is unsigned')
  if (didOfKeyId(signature.key_id) !== event.actor) {
    throw new ProtocolError('verification_failed', 'signature.key_id is not a DID URL under actor', {
      details: { reason: 'key_id_not_under_actor' },
    })
  }
  const eventHash = computeLifecycleEventHash(event)
  verifyReceiptSignature(eventHash, signature, await resolveKey(signature.key_id))
  return eventHash
}

function invalid(reason: string, message: string): never {
  throw new ProtocolError('invalid_structure', message, { details: { reason } })
}
