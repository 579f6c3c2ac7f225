/**
 * Recovery of missed lifecycle events (RFC-ACDP-0013): a registry serves every accepted retraction and
 * republication of a context, append-only, in `registry_state.lifecycle_events` of `GET /contexts/{ctx_id}`
 * (§4.1), whereas its `context_retracted` / `context_republished` webhooks are best-effort. Given a context as the
 * registry served it, each served event the control plane does not hold is ingested exactly as its webhook would
 * have been — same payload fields, same projections, same bus — marked `recovered_from_registry_state`.
 *
 * Authority binding: the HMAC that authenticates a webhook does not cover an answer read back from the
 * registry, so each event must carry its §5 signature and it must verify: `ctx_id` bound to the context read
 * (whose authority is the enrolled registry), `actor` the context's producer or the registry itself
 * (`did:web:<authority>`), and `signature.key_id` under `actor`. An unsigned or unverifiable event is refused,
 * never ingested. Events are keyed by (ctx_id, event_id) (ingest's lifecycleKey), so a late webhook stores
 * nothing, nor does a second recovery.
 */
import {
  isProtocolError,
  type KeyResolver,
  registryDidForAuthority,
  validateLifecycleEvent,
  verifyLifecycleEventSignature,
} from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import { type IngestContext, recordEvent } from '../ingest/ingest.js'

/** held: already stored; recovered: ingested now; refused: not bound to this context or not verifiable. */
export type LifecycleRecoveryResult = 'held' | 'recovered' | 'refused'

export interface LifecycleRecoveryDeps {
  ingest: IngestContext
  /** Resolves producer and registry keys (did:key locally, did:web through the SSRF-safe client). */
  resolver: KeyResolver
  /** The lifecycle event ids already stored for a context (see LogReconcileStore.heldLifecycleEventIds). */
  heldLifecycleEventIds(tenantId: string, ctxId: string): Promise<Set<string>>
  clock: () => Date
  recordResult(result: LifecycleRecoveryResult): void
  log?: { warn(object: unknown, message?: string): void }
}

/** The registry a context was read from. */
export interface LifecycleSource {
  authority: string
  tenantId: string
}

const TYPES: Record<string, string> = { retracted: 'context_retracted', republished: 'context_republished' }
/** Events read per context at most (a registry could serve an endless array). */
const MAX_EVENTS_PER_CONTEXT = 256

/**
 * Ingests the lifecycle events of `envelope` (as served for `ctxId`) the tenant does not hold, in served order.
 * Returns how many were recovered. Store failures propagate; a bad event is counted `refused` and skipped.
 */
export async function recoverLifecycleEvents(
  deps: LifecycleRecoveryDeps,
  source: LifecycleSource,
  ctxId: string,
  envelope: Record<string, unknown>,
): Promise<number> {
  const body = envelope['body']
  const state = envelope['registry_state']
  if (!isObject(body) || body['ctx_id'] !== ctxId || !isObject(state)) return 0
  const served = state['lifecycle_events']
  if (served === undefined) return 0
  if (!Array.isArray(served)) {
    deps.recordResult('refused')
    return 0
  }
  const held = await deps.heldLifecycleEventIds(source.tenantId, ctxId)
  const registryDid = registryDidForAuthority(source.authority)
  let recovered = 0
  for (const candidate of served.slice(0, MAX_EVENTS_PER_CONTEXT)) {
    const eventId = isObject(candidate) && typeof candidate['event_id'] === 'string' ? candidate['event_id'] : undefined
    if (eventId !== undefined && held.has(eventId)) {
      deps.recordResult('held')
      continue
    }
    const event = await verifiedEvent(deps, candidate, ctxId, body['agent_id'], registryDid)
    if (event === undefined) {
      deps.recordResult('refused')
      continue
    }
    const payload: Record<string, unknown> = {
      type: TYPES[event.event_type],
      registry_authority: source.authority,
      ctx_id: ctxId,
      lineage_id: body['lineage_id'],
      actor: event.actor,
      lifecycle_event_id: event.event_id,
      ...(event.reason === undefined ? {} : { reason: event.reason }),
      at: event.occurred_at,
      recovered_from_registry_state: { lifecycle_event: event },
    }
    try {
      const result = await recordEvent(deps.ingest, {
        payload,
        rawBody: Buffer.from(JSON.stringify(payload)),
        registryAuthority: source.authority,
        tenantId: source.tenantId,
        receivedAt: deps.clock().getTime(),
        runIdHeader: undefined,
        eventIdHeader: undefined,
        isSignatureVerified: false,
      })
      // A webhook committed between the held lookup and here: stored once, by it.
      deps.recordResult(result.status === 'stored' ? 'recovered' : 'held')
      if (result.status === 'stored') recovered += 1
    } catch (error) {
      if (!(error instanceof ControlPlaneError && error.statusCode < 500)) throw error
      deps.recordResult('refused')
    }
    held.add(event.event_id)
  }
  return recovered
}

/** The event when it is bound to this context and its §5 signature verifies under an allowed actor. */
async function verifiedEvent(
  deps: LifecycleRecoveryDeps,
  candidate: unknown,
  ctxId: string,
  producer: unknown,
  registryDid: string,
) {
  try {
    const event = validateLifecycleEvent(candidate, { ctxId, now: deps.clock(), requireSignature: true })
    if (TYPES[event.event_type] === undefined) return undefined
    if (event.actor !== producer && event.actor !== registryDid) return undefined
    // historical: a producer that rotated its key since still signed this event with a then-authorized key.
    await verifyLifecycleEventSignature(event, (keyId) => deps.resolver.resolveKey(keyId, { historical: true }))
    return event
  } catch (error) {
    if (!isProtocolError(error)) throw error
    deps.log?.warn({ ctxId, reason: error.details?.['reason'] ?? error.code }, 'lifecycle event refused')
    return undefined
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
