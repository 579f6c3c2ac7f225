/**
 * Retraction and republication (RFC-ACDP-0013 §6; product spec "States and transitions", behaviour 6): the
 * producer endpoints `POST /contexts/{ctx_id}/retract|republish` and the registry-initiated (admin) form.
 *
 * Producer events, in the RFC's order:
 * 1. the context must be visible to the requester, else `not_found` (never leak existence). A non-public context
 *    counts as visible *provisionally* when the event claims its producer as actor: the event signature is the
 *    authentication. Until that signature verifies, every refusal on such a context is `not_found`, so an
 *    unauthenticated caller learns nothing about a restricted or private context;
 * 2. the envelope is closed (`{ "event": … }`): a `body` member or a member named after a body field is
 *    `immutable_field`, anything else unknown `schema_violation`; the event's closed shape, `ctx_id` binding,
 *    `occurred_at` skew, signature presence and `event_type` (matching the endpoint) are `schema_violation`;
 * 3. actor ≠ producer is `not_authorized`;
 * 4. an `event_id` already in the history answers a byte-identical retry with 200 (nothing appended) and anything
 *    else with `schema_violation` — before any verification, so a timed-out producer never sees a spurious 409;
 * 5. an actor already over its per-agent budget gets `rate_limited` (before any DID work);
 * 6. the signature is verified through the publish pipeline (key_id under actor, assertionMethod, strict
 *    Ed25519) and the key must not be revoked (RFC-ACDP-0014); from here the event is provably the producer's: a
 *    token is TAKEN from its budget atomically (`rate_limited` when concurrent events spent the last one), so it
 *    is charged on every later outcome;
 * 7. strict alternation (`invalid_lifecycle_transition`, 409), then the append: one compare-and-swap statement
 *    on the event count, retried against fresh state when a concurrent append won.
 *
 * Tenancy (LifecycleCaller below; built by auth/read-access.ts): an anonymous caller's claimed actor may not
 * choose the tenant before step 6. The context is first looked up in the tenant the other signals tell; when it
 * is not there (or those signals alone are refused) and an actor's binding could place it elsewhere, nothing is
 * told before the proof — every refusal but `rate_limited` is `not_found` — and the context is looked up again,
 * in the proven actor's tenant, once the signature verifies.
 */
import {
  canonicalize,
  ContextBody,
  computeLifecycleEventHash,
  isLifecycleTransitionAllowed,
  isProtocolError,
  isRetracted,
  type LifecycleEvent,
  type LifecycleEventType,
  type SigningKey,
  signLifecycleEvent,
  type UnsignedLifecycleEvent,
  validateLifecycleEvent,
} from '@acdp/protocol'
import type { RegistryDeps } from '../core/deps.js'
import { RegistryError } from '../core/errors.js'
import type { StoredContext } from '../store/store.js'
import type { RateBudget } from '../rate-limit/rate-budget.js'
import type { ContextCache } from '../retrieval/context-cache.js'
import { authorityOf, formatUuidV4 } from '../core/context-id.js'
import { type ContextStatus, deriveStatus } from '../retrieval/context-status.js'
import { verifyProducerSignature } from '../publish/producer-signature.js'
import { loadContext } from '../retrieval/retrieval.js'
import { assertKeyNotRevoked, type RevocationSigners } from '../auth/revoked-keys.js'
import { formatTimestamp } from '../core/timestamps.js'
import { canRetrieve } from '../retrieval/visibility.js'

/** The two endpoints and the event type each accepts (RFC-ACDP-0013 §6 step 2). */
export type LifecycleAction = 'retract' | 'republish'
const EVENT_TYPE_OF: Record<LifecycleAction, LifecycleEventType> = { retract: 'retracted', republish: 'republished' }

/** Members that would alter body content: `body` itself and every body field (RFC-ACDP-0013 §6 step 2, lc-002). */
const BODY_MEMBER_NAMES: ReadonlySet<string> = new Set(['body', ...Object.keys(ContextBody.properties)])

/** Attempts at the compare-and-swap append before giving up (each loss means another append just won). */
const MAX_APPEND_ATTEMPTS = 8

export interface LifecycleSettings {
  authority: string
  /** `did:web:<authority>`: the actor of registry-initiated events. */
  registryDid: string
  /** Skips the revocation lookup for signers that never revoked a key (exact on SQLite). */
  revocationSigners?: RevocationSigners
}

export interface LifecycleDeps {
  deps: RegistryDeps
  cache: ContextCache
  limiter: RateBudget
  settings: LifecycleSettings
}

/**
 * A lifecycle caller. An anonymous caller only claims its actor (the event signature is the authentication), so
 * the actor's `[[auth.tenant_agents]]` binding may choose the tenant only once that signature verifies: before,
 * the context is looked up in `tenant`, the tenant told by the signals that are not the actor's (a trusted
 * X-Tenant-Id, else `default`); afterwards in `tenantOf(actor)`. Otherwise whether an unauthenticated request
 * finds a context, or is refused, would tell whether the actor is bound to that context's tenant.
 */
export interface LifecycleCaller {
  did: string | null
  /** The tenant before the actor is proven; undefined when those signals alone are refused (held back). */
  tenant: string | undefined
  /** True when the actor cannot change the tenant (a credential, or no bindings): `tenant` is final. */
  settled: boolean
  /** The tenant once `actor` is proven. @throws RegistryError the tenancy refusals (tenancy/tenancy.ts). */
  tenantOf(actor: string): string
}

/** A context after an accepted (or idempotently retried) event, ready to render. */
export interface LifecycleResult {
  context: StoredContext
  status: ContextStatus
  /** False for an idempotent retry (nothing appended, no event emitted). */
  appended: boolean
}

/**
 * A producer-signed retract or republish (see the file comment for the order of checks).
 *
 * @param request attacker-controlled: the parsed request body.
 * @throws RegistryError not_found | immutable_field | schema_violation | not_authorized | rate_limited |
 *   invalid_signature | unsupported_algorithm | key_resolution_failed | key_resolution_unreachable |
 *   key_not_authorized | invalid_lifecycle_transition
 */
export async function submitProducerEvent(
  ld: LifecycleDeps,
  input: { ctxId: string; action: LifecycleAction; request: unknown; caller: LifecycleCaller },
): Promise<LifecycleResult> {
  const { caller } = input
  const context = caller.tenant === undefined ? undefined : await findLocalContext(ld, input.ctxId, caller.tenant)
  if (context !== undefined) return submitLocated(ld, input, context)
  if (caller.settled) throw notFound()
  return submitUnlocated(ld, input)
}

/** The context was found in the caller's tenant before any proof: steps 1–7 as the file comment orders them. */
async function submitLocated(
  ld: LifecycleDeps,
  input: { ctxId: string; action: LifecycleAction; request: unknown; caller: LifecycleCaller },
  context: StoredContext,
): Promise<LifecycleResult> {
  const { deps } = ld
  const visible = canRetrieve(context, input.caller.did)
  const provisional = !visible && claimedActor(input.request) === context.agentId
  if (!visible && !provisional) throw notFound()

  let verified = false
  try {
    const event = readEnvelope(input.request, input.ctxId, input.action, deps.clock())
    const retried = await answerRetry(ld, context, event)
    if (retried !== undefined) return retried
    await refuseOverBudget(ld, event.actor)
    await verifyEventSignature(ld, event)
    verified = true
    return await settleProven(ld, input, context, event)
  } catch (error) {
    if (provisional && !verified) throw notFound()
    throw error
  }
}

/**
 * The context is not in the tenant told without the actor, and the proven actor's binding might place it in
 * another: until the signature verifies, every refusal but the budget's is `not_found` (what a missing context
 * answers), so the answer cannot depend on whether the claimed actor is bound anywhere.
 */
async function submitUnlocated(
  ld: LifecycleDeps,
  input: { ctxId: string; action: LifecycleAction; request: unknown; caller: LifecycleCaller },
): Promise<LifecycleResult> {
  let event: LifecycleEvent
  try {
    event = readEnvelope(input.request, input.ctxId, input.action, ld.deps.clock())
  } catch (error) {
    throw asNotFound(error)
  }
  // The budget is the actor's whatever its tenant: 429 tells nothing of a context or a binding.
  await refuseOverBudget(ld, event.actor)
  try {
    await verifyEventSignature(ld, event)
  } catch (error) {
    throw asNotFound(error)
  }
  const context = await findLocalContext(ld, input.ctxId, input.caller.tenantOf(event.actor))
  if (context === undefined) throw notFound()
  return settleProven(ld, input, context, event)
}

/**
 * After the proof: the proven actor's tenant (when it was not settled before), the visibility and producer rules
 * on the context found there, the idempotent retry, then the token and the append.
 */
async function settleProven(
  ld: LifecycleDeps,
  input: { ctxId: string; caller: LifecycleCaller },
  found: StoredContext,
  event: LifecycleEvent,
): Promise<LifecycleResult> {
  const { deps, cache, limiter } = ld
  let context: StoredContext | undefined = found
  if (!input.caller.settled) {
    const tenant = input.caller.tenantOf(event.actor)
    if (tenant !== context.tenantId) context = await findLocalContext(ld, input.ctxId, tenant)
    if (context === undefined || (!canRetrieve(context, input.caller.did) && context.agentId !== event.actor)) {
      throw notFound()
    }
    const retried = await answerRetry(ld, context, event)
    if (retried !== undefined) return retried
  }
  const wait = await limiter.take(event.actor, deps.clock().getTime())
  if (wait > 0) throw lifecycleRateLimited(deps, wait)
  return appendEvent(deps, cache, context, event)
}

/**
 * The producer rule, then a byte-identical retry of an event already applied: answered with the context as it is,
 * charged but never refused (behaviour 6). Undefined when the event is new.
 */
async function answerRetry(
  ld: LifecycleDeps,
  context: StoredContext,
  event: LifecycleEvent,
): Promise<LifecycleResult | undefined> {
  if (event.actor !== context.agentId) {
    throw new RegistryError('not_authorized', 'Only the producer of a context may retract or republish it.')
  }
  if (findRetry(context, event) !== 'identical') return undefined
  const nowMs = ld.deps.clock().getTime()
  await ld.limiter.charge(event.actor, nowMs)
  return { context, status: deriveStatus(context, nowMs), appended: false }
}

/** Step 5: an actor already over its budget is refused before any DID work. */
async function refuseOverBudget(ld: LifecycleDeps, actor: string): Promise<void> {
  const wait = await ld.limiter.retryAfterSeconds(actor, ld.deps.clock().getTime())
  if (wait > 0) throw lifecycleRateLimited(ld.deps, wait)
}

function lifecycleRateLimited(deps: RegistryDeps, wait: number): RegistryError {
  deps.metrics?.recordRateLimitRejection('lifecycle_per_agent')
  return new RegistryError('rate_limited', 'This agent has used its write budget; retry later.', {
    retryAfterSeconds: wait,
  })
}

/**
 * A registry-initiated event (admin route; RFC-ACDP-0013 §6 "Registry-initiated events"): actor = the registry's
 * DID, `event_id` and `occurred_at` minted here, signed with `signingKey` when the registry has one (RFC-ACDP-0013
 * §5: SHOULD; MUST alongside receipts). Admins see every context; the transition rule is the same.
 *
 * @param request attacker-controlled: `{ "reason"?: string }`.
 * @throws RegistryError not_found | immutable_field | schema_violation | invalid_lifecycle_transition
 */
export async function recordRegistryEvent(
  ld: LifecycleDeps,
  input: {
    ctxId: string
    action: LifecycleAction
    request: unknown
    signingKey?: SigningKey | undefined
    /** The tenant the admin acts in (X-Tenant-Id, else `default`). */
    tenantId: string
  },
): Promise<LifecycleResult> {
  const { deps, cache, settings } = ld
  const context = await findLocalContext(ld, input.ctxId, input.tenantId)
  if (context === undefined) throw notFound()
  const reason = readAdminRequest(input.request)
  const unsigned: UnsignedLifecycleEvent = {
    event_id: formatUuidV4(deps.random(16)),
    ctx_id: input.ctxId,
    event_type: EVENT_TYPE_OF[input.action],
    occurred_at: formatTimestamp(deps.clock()),
    actor: settings.registryDid,
    ...(reason === undefined ? {} : { reason }),
  }
  const event: LifecycleEvent = input.signingKey ? signLifecycleEvent(unsigned, input.signingKey) : unsigned
  return appendEvent(deps, cache, context, event)
}

/** The stored local context of a path ctx_id in `tenantId`; foreign authorities are never ours to change. */
async function findLocalContext(
  ld: LifecycleDeps,
  ctxId: string,
  tenantId: string,
): Promise<StoredContext | undefined> {
  if (authorityOf(ctxId) !== ld.settings.authority) return undefined
  return loadContext(ld.deps, ld.cache, ctxId, ld.deps.clock().getTime(), tenantId)
}

/** `request.event.actor` read without trusting the shape (the full check comes later). */
export function claimedActor(request: unknown): string | undefined {
  if (!isObject(request) || !isObject(request.event)) return undefined
  return typeof request.event.actor === 'string' ? request.event.actor : undefined
}

/** RFC-ACDP-0013 §6 step 2 for a producer request. */
function readEnvelope(request: unknown, ctxId: string, action: LifecycleAction, now: Date): LifecycleEvent {
  if (!isObject(request)) throw schemaViolation('(root)', 'the request must be a JSON object')
  refuseBodyMembers(request, ['event'])
  if (!('event' in request)) throw schemaViolation('/event', 'is required')
  let event: LifecycleEvent
  try {
    event = validateLifecycleEvent(request.event, { ctxId, now })
  } catch (error) {
    if (!isProtocolError(error)) throw error
    const reason = typeof error.details?.reason === 'string' ? error.details.reason : 'schema_violation'
    throw new RegistryError('schema_violation', 'The lifecycle event is not valid.', {
      details: { reason, errors: [{ path: '/event', message: error.message }] },
      cause: error,
    })
  }
  if (event.event_type !== EVENT_TYPE_OF[action]) {
    throw schemaViolation('/event/event_type', `must be "${EVENT_TYPE_OF[action]}" on /${action}`)
  }
  return event
}

/** The admin request: an optional `reason` (≤ 1024 characters, RFC-ACDP-0013 §4) and nothing else. */
function readAdminRequest(request: unknown): string | undefined {
  if (request === undefined || request === null) return undefined
  if (!isObject(request)) throw schemaViolation('(root)', 'the request must be a JSON object')
  refuseBodyMembers(request, ['reason'])
  const reason = request.reason
  if (reason === undefined) return undefined
  if (typeof reason !== 'string' || reason.length > 1024) {
    throw schemaViolation('/reason', 'must be a string of at most 1024 characters')
  }
  return reason
}

/** Body content first (`immutable_field`, the category error lc-002 pins), then other unknown members. */
function refuseBodyMembers(request: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(request).filter((name) => !allowed.includes(name))
  const bodyMember = extra.find((name) => BODY_MEMBER_NAMES.has(name))
  if (bodyMember !== undefined) {
    throw new RegistryError('immutable_field', 'Lifecycle requests cannot supply or change body content.', {
      details: { member: bodyMember },
    })
  }
  if (extra.length > 0) throw schemaViolation(`/${extra[0]}`, 'is not allowed')
}

/** An `event_id` already in the history: a byte-identical retry, or a conflicting reuse. */
function findRetry(context: StoredContext, event: LifecycleEvent): 'identical' | undefined {
  const existing = readEvents(context).find((e) => e.event_id === event.event_id)
  if (existing === undefined) return undefined
  if (canonicalize(existing) === canonicalize(event)) return 'identical'
  throw new RegistryError('schema_violation', 'This event_id was already used for a different event.', {
    details: { reason: 'duplicate_event_id', errors: [{ path: '/event/event_id', message: 'already used' }] },
  })
}

/** RFC-ACDP-0013 §5: key_id under actor, the publish verification pipeline, and a key not revoked by now. */
async function verifyEventSignature(ld: LifecycleDeps, event: LifecycleEvent): Promise<void> {
  const signature = event.signature as NonNullable<LifecycleEvent['signature']>
  const hash = signature.key_id.indexOf('#')
  if (hash === -1 || signature.key_id.slice(0, hash) !== event.actor) {
    throw new RegistryError('key_not_authorized', 'The DID of signature.key_id must equal the event actor.')
  }
  // The event hash is signed exactly like a content_hash: the ASCII bytes of the "sha256:<hex>" string.
  const key = await verifyProducerSignature(ld.deps.resolver, signature, computeLifecycleEventHash(event))
  await assertKeyNotRevoked(
    ld.deps.store,
    { agentId: event.actor, key, atMs: ld.deps.clock().getTime(), registryDid: ld.settings.registryDid },
    ld.settings.revocationSigners,
  )
}

/**
 * The transition check and the compare-and-swap append, retried on fresh state when a concurrent append won;
 * then the cache, the in-process event (webhooks) and the result. A retry that lost to its own twin is answered
 * as the idempotent retry it is.
 */
async function appendEvent(
  deps: RegistryDeps,
  cache: ContextCache,
  initial: StoredContext,
  event: LifecycleEvent,
): Promise<LifecycleResult> {
  let context = initial
  const eventJson = JSON.stringify(event)
  for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
    const events = readEvents(context)
    if (findRetry(context, event) === 'identical') {
      return { context, status: deriveStatus(context, deps.clock().getTime()), appended: false }
    }
    if (!isLifecycleTransitionAllowed(events, event.event_type as LifecycleEventType)) {
      throw new RegistryError(
        'invalid_lifecycle_transition',
        event.event_type === 'retracted' ? 'The context is already retracted.' : 'The context is not retracted.',
        { details: { current_state: isRetracted(events) ? 'retracted' : 'not_retracted' } },
      )
    }
    const eventsJson =
      context.lifecycleEventsJson === null
        ? `[${eventJson}]`
        : `${context.lifecycleEventsJson.slice(0, -1)},${eventJson}]`
    const retracted = isRetracted([...events, event])
    if (
      await deps.store.appendLifecycleEvent({
        ctxId: context.ctxId,
        tenantId: context.tenantId,
        expectedCount: events.length,
        eventsJson,
        retracted,
      })
    ) {
      const nowMs = deps.clock().getTime()
      const updated: StoredContext = { ...context, retracted, lifecycleEventsJson: eventsJson }
      cache.refreshStatus(context.ctxId, { retracted, lifecycleEventsJson: eventsJson }, nowMs)
      emitLifecycle(deps, updated, event)
      return { context: updated, status: deriveStatus(updated, nowMs), appended: true }
    }
    const fresh = await deps.store.findStatusInputs(context.ctxId)
    if (fresh === undefined) throw notFound()
    context = { ...context, ...fresh }
    cache.refreshStatus(context.ctxId, fresh, deps.clock().getTime())
  }
  throw new RegistryError('internal_error', 'An unexpected error occurred.', {
    cause: new Error('lifecycle append kept losing the compare-and-swap'),
  })
}

function emitLifecycle(deps: RegistryDeps, context: StoredContext, event: LifecycleEvent): void {
  if (!deps.events.has('context_lifecycle')) return
  deps.events.emit({
    type: 'context_lifecycle',
    event_type: event.event_type as LifecycleEventType,
    ctx_id: context.ctxId,
    lineage_id: context.lineageId,
    actor: event.actor,
    lifecycle_event_id: event.event_id,
    tenant_id: context.tenantId,
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    at: formatTimestamp(deps.clock()),
  })
}

/** The stored history (JSON text written only by this module). */
function readEvents(context: StoredContext): LifecycleEvent[] {
  return context.lifecycleEventsJson === null ? [] : (JSON.parse(context.lifecycleEventsJson) as LifecycleEvent[])
}

function schemaViolation(path: string, message: string): RegistryError {
  return new RegistryError('schema_violation', 'The lifecycle request is not valid.', {
    details: { errors: [{ path, message }] },
  })
}

function notFound(): RegistryError {
  return new RegistryError('not_found', 'No such context.')
}

/** A refusal answered as `not_found` (what a missing context answers); an unexpected error stays itself. */
function asNotFound(error: unknown): unknown {
  return error instanceof RegistryError ? notFound() : error
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
