/**
 * RFC-ACDP-0013 §7: retraction state, status precedence and the §6 step 4 transition rule, computed from
 * the append-only `lifecycle_events` array (array order, never `occurred_at`).
 */

/** The v1 event vocabulary (RFC-ACDP-0013 §7; `registries/lifecycle-event-types.md`). */
export const LIFECYCLE_EVENT_TYPES = ['retracted', 'republished'] as const
export type LifecycleEventType = (typeof LIFECYCLE_EVENT_TYPES)[number]

/** True for the registered v1 event types. Unknown types are tolerated but have no effect (§7.3). */
export function isRegisteredLifecycleEventType(eventType: string): eventType is LifecycleEventType {
  return (LIFECYCLE_EVENT_TYPES as readonly string[]).includes(eventType)
}

/**
 * RFC-ACDP-0013 §7.1: a context is retracted iff the LAST `retracted`/`republished` event in array order is
 * `retracted`. Events of unknown types are skipped (§7.3); `occurred_at` never participates.
 */
export function isRetracted(events: readonly { readonly event_type: string }[] | undefined): boolean {
  if (!events) return false
  for (let i = events.length - 1; i >= 0; i--) {
    const type = (events[i] as { event_type: string }).event_type
    if (type === 'retracted') return true
    if (type === 'republished') return false
  }
  return false
}

/**
 * RFC-ACDP-0013 §6 step 4: `retracted` is allowed only when not retracted, `republished` only when
 * retracted. A `false` answer is the registry's `invalid_lifecycle_transition` (HTTP 409).
 */
export function isLifecycleTransitionAllowed(
  events: readonly { readonly event_type: string }[] | undefined,
  eventType: LifecycleEventType,
): boolean {
  return eventType === 'retracted' ? !isRetracted(events) : isRetracted(events)
}

/** Inputs of {@link deriveContextStatus}: the stored facts, never a stored status. */
export interface ContextStatusFacts {
  readonly lifecycleEvents?: readonly { readonly event_type: string }[] | undefined
  /** Another context has `supersedes` equal to this `ctx_id`. */
  readonly isSuperseded: boolean
  /** The body's `expires_at`, if any (RFC 3339). */
  readonly expiresAt?: string | undefined
  /** The registry's clock at evaluation time. */
  readonly now: Date
}

/**
 * RFC-ACDP-0004 §4 as amended by RFC-ACDP-0013 §7.2: `retracted > superseded > expired > active`.
 * Expired means strictly after `expires_at` (RFC-ACDP-0004 §4: "at or before" is still active).
 * An `expires_at` that does not parse is treated as not expired (the body schema already refused it).
 */
export function deriveContextStatus(facts: ContextStatusFacts): 'retracted' | 'superseded' | 'expired' | 'active' {
  if (isRetracted(facts.lifecycleEvents)) return 'retracted'
  if (facts.isSuperseded) return 'superseded'
  if (facts.expiresAt !== undefined) {
    const expiresAtMs = Date.parse(facts.expiresAt)
    if (Number.isFinite(expiresAtMs) && facts.now.getTime() > expiresAtMs) return 'expired'
  }
  return 'active'
}
