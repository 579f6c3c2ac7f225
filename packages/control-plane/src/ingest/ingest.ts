/**
 * Ingest of registry webhook events (product spec "Ingest"): authenticate, validate, gate, then persist the event and every projection in ONE transaction, then
 * publish to the live bus. A duplicate (same body event_id, else same body bytes: see dedupKeyOf) is
 * acknowledged with no side effect at all.
 *
 * The body is attacker-controlled until the HMAC is verified and only partly trusted after (a registry holding
 * the shared secret is still just a registry): every member the service uses is type- and size-checked by the
 * receiving end of the webhook contract (ingest/webhook-events-received.ts), and a malformed member is a 400
 * (permanent for the registry), never a 500.
 */
import { sha256String } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp } from '../core/http/wire-time.js'
import type { StoredEvent } from '../store/schema.js'
import type { NewEvent, StoreTransaction } from '../store/store.js'
import {
  authorityOfCtxId,
  CONTEXT_PUBLISHED,
  DID,
  hasReceipt,
  LIFECYCLE_TYPES,
  MAX_ID_LENGTH,
  MAX_TEXT_LENGTH,
  readAuthority,
  readBaseUrl,
  readDerivedFrom,
  readEventTime,
  readHeaderEventId,
  readOptionalDid,
  readOptionalText,
  readOptionalVersion,
  readRunId,
  readScenarioId,
  readType,
  requireObject,
  toWireCtxId,
} from './webhook-events-received.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import { authenticateDelivery, type DeliveryHeaders } from './registry-delivery.js'
import { busEventFromStored } from '../events/sse-event.js'

/** Width of a dashboard rollup bucket. Windows are aligned to it (see dashboard/dashboard.ts). */
export const ROLLUP_BUCKET_MS = 5 * 60 * 1000

/** What the ingest route hands the service. */
export interface IngestInput {
  /** attacker-controlled: the exact body bytes. */
  rawBody: Buffer
  /** attacker-controlled: the parsed body. */
  body: unknown
  headers: DeliveryHeaders
}

/** Result: the committed event, or `duplicate` when it was already stored (nothing was done). */
export type IngestResult = { status: 'stored'; event: StoredEvent } | { status: 'duplicate' }

/** What the service needs beyond the body. */
export interface IngestContext {
  config: ControlPlaneConfig
  deps: ControlPlaneDeps
  enrollments: EnrollmentDirectory
}

/**
 * Ingests one delivery.
 *
 * @throws ControlPlaneError INVALID_PAYLOAD / VALIDATION_ERROR (400) for a body that is not an event,
 *   CONTEXT_TYPE_NOT_ACCEPTED (400) for a context_type the domain packs gate out, INVALID_SIGNATURE (401),
 *   the 403s of {@link authenticateDelivery}. Store failures propagate (500: the registry retries).
 */
export async function ingestEvent(ctx: IngestContext, input: IngestInput): Promise<IngestResult> {
  const { config, deps } = ctx
  const payload = requireObject(input.body)
  const registryAuthority = readAuthority(payload)
  const receivedAt = deps.clock().getTime()
  const delivery = await authenticateDelivery(
    {
      ingest: config.ingest,
      requireTenant: config.auth.requireTenant,
      enrollments: ctx.enrollments,
      nowSeconds: Math.floor(receivedAt / 1000),
    },
    registryAuthority,
    input.rawBody,
    input.headers,
  )
  return recordEvent(ctx, {
    payload,
    rawBody: input.rawBody,
    registryAuthority,
    tenantId: delivery.tenantId,
    receivedAt,
    runIdHeader: input.headers.runId,
    eventIdHeader: input.headers.eventId,
    isSignatureVerified: delivery.isSignatureVerified,
  })
}

/** A registry event whose sender is established: by ingest's HMAC, or by reading the registry's own log. */
export interface AuthenticatedEvent {
  payload: Record<string, unknown>
  rawBody: Buffer
  /** The verified sender (ctx_ids must be of this authority). */
  registryAuthority: string
  tenantId: string
  receivedAt: number
  runIdHeader: string | undefined
  eventIdHeader: string | undefined
  isSignatureVerified: boolean
}

/**
 * Validates an authenticated event, gates it, and persists it with every projection in one transaction, then
 * publishes it to the bus. A duplicate is acknowledged with no side effect.
 *
 * @throws ControlPlaneError INVALID_PAYLOAD / VALIDATION_ERROR / AUTHORITY_MISMATCH (400/403),
 *   CONTEXT_TYPE_NOT_ACCEPTED (400). Store failures propagate.
 */
export async function recordEvent(ctx: IngestContext, input: AuthenticatedEvent): Promise<IngestResult> {
  const { deps } = ctx
  const { payload, registryAuthority, receivedAt } = input
  const type = readType(payload)
  const isPublish = type === CONTEXT_PUBLISHED
  const agentId = readOptionalDid(payload, 'agent_id')
  if (isPublish && agentId === null) {
    throw new ControlPlaneError('INVALID_PAYLOAD', 'agent_id is required for context_published')
  }
  const ctxId = toWireCtxId(readOptionalText(payload, 'ctx_id', MAX_TEXT_LENGTH))
  if (ctxId !== null && authorityOfCtxId(ctxId) !== registryAuthority) {
    // Every event naming a ctx_id feeds that context's projections (publication, lifecycle flag, run counters),
    // so a registry may speak only of its own contexts: registry_authority selected the secret that verified
    // the delivery, which makes it the sender's verified identity (docs/control-plane/api.md, ingest step 6).
    throw new ControlPlaneError('AUTHORITY_MISMATCH', 'ctx_id is not a context of the sending registry')
  }
  const contextType = readOptionalText(payload, 'context_type', MAX_ID_LENGTH)
  if (isPublish && contextType !== null && !deps.domainPacks.isContextTypeAccepted(contextType)) {
    throw new ControlPlaneError(
      'CONTEXT_TYPE_NOT_ACCEPTED',
      `context_type "${contextType}" is not accepted by the active domain packs`,
    )
  }

  const runId = readRunId(input.runIdHeader, payload)
  const bodyEventId = readOptionalText(payload, 'event_id', MAX_ID_LENGTH)
  const headerEventId = readHeaderEventId(input.eventIdHeader)
  const eventId = bodyEventId ?? headerEventId
  const eventTs = readEventTime(payload) ?? receivedAt
  const derivedFrom = [...new Set(readDerivedFrom(payload).map(toWireCtxId))]
  const lifecycleRetracted = LIFECYCLE_TYPES[type]
  const lifecycleEventId =
    lifecycleRetracted === undefined ? null : readOptionalText(payload, 'lifecycle_event_id', MAX_ID_LENGTH)
  const newEvent: NewEvent = {
    tenantId: input.tenantId,
    dedupKey:
      isPublish && ctxId !== null
        ? publicationKey(ctxId)
        : ctxId !== null && lifecycleEventId !== null
          ? lifecycleKey(ctxId, lifecycleEventId)
          : dedupKeyOf(bodyEventId, input.rawBody),
    eventId,
    type,
    eventTs,
    receivedAt,
    runId,
    ctxId,
    lineageId: readOptionalText(payload, 'lineage_id', MAX_ID_LENGTH),
    agentId,
    contextType,
    visibility: readOptionalText(payload, 'visibility', 64),
    version: readOptionalVersion(payload),
    derivedFrom,
    registryAuthority,
    registryBaseUrl: readBaseUrl(payload),
    scenarioId: readScenarioId(payload),
    keyFingerprint: readOptionalText(payload, 'key_fingerprint', MAX_ID_LENGTH),
    receiptPresent: hasReceipt(payload),
    rawPayload: input.rawBody.toString('utf8'),
    isPublish,
    didMethod: isPublish && agentId !== null ? (DID.exec(agentId)?.[1] ?? null) : null,
    lifecycle:
      lifecycleRetracted === undefined
        ? null
        : {
            retracted: lifecycleRetracted,
            actor: readOptionalText(payload, 'actor', MAX_TEXT_LENGTH),
            reason: readOptionalText(payload, 'reason', MAX_TEXT_LENGTH),
          },
    bucketStart: Math.floor(receivedAt / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS,
  }

  let stored: StoredEvent | undefined
  const outbox = deps.webhookOutbox
  // No hook when the outbox would write nothing: a batch of hookless events commits as one statement without an
  // explicit transaction (store/event-writer.ts). The outbox decides from the subscription cache its hook would
  // read a moment later (a subscription change reaches that cache through the bus either way, never atomically).
  const hook =
    outbox === undefined || outbox.mayEnqueue?.(newEvent.tenantId, type) === false
      ? undefined
      : async (tx: StoreTransaction, newId: number) => {
          stored = toStoredEvent(newId, newEvent, payload)
          await outbox.enqueue(tx, stored)
        }
  const id = await deps.store.recordEvent(newEvent, hook)
  if (id === undefined) return { status: 'duplicate' }
  stored ??= toStoredEvent(id, newEvent, payload)
  deps.metrics.recordEventIngested(type)
  deps.bus.publish(busEventFromStored(stored))
  deps.runTraces?.record(stored, input.isSignatureVerified)
  return { status: 'stored', event: stored }
}

/**
 * Idempotency key from the body alone: its event_id, else its bytes. No header takes part, signed or not: a V2
 * delivery stripped down to its timestamped signature is still the same captured bytes, so a key that depended on
 * a header's signing status (or value) would let that replay mint a second event.
 */
function dedupKeyOf(bodyEventId: string | null, rawBody: Buffer): string {
  return bodyEventId !== null ? `evt:${bodyEventId}` : `fp:${sha256String(rawBody)}`
}

/**
 * The idempotency key of a publication: its ctx_id. A context is published once (its ctx_id is minted by its
 * registry, RFC-ACDP-0001 §5.5), so a second announcement of it — a webhook redelivered under another event_id,
 * or the webhook arriving after the log reconciliation recovered the publication — is the same publication.
 */
export function publicationKey(ctxId: string): string {
  return `pub:${ctxId}`
}

/**
 * The idempotency key of a lifecycle event: its context and its RFC-ACDP-0013 `event_id` (unique per context,
 * §4), so the webhook and the log reconciliation's recovery of the same retraction store one event, whichever
 * comes first.
 */
export function lifecycleKey(ctxId: string, lifecycleEventId: string): string {
  return `life:${ctxId}:${lifecycleEventId}`
}

/** The committed form of `event` stored under `id`, as handed to the bus and the webhook outbox. */
export function toStoredEvent(id: number, event: NewEvent, payload: Record<string, unknown>): StoredEvent {
  return {
    id,
    tenantId: event.tenantId,
    eventId: event.eventId,
    type: event.type,
    ts: formatTimestamp(event.eventTs),
    receivedAt: formatTimestamp(event.receivedAt),
    runId: event.runId,
    ctxId: event.ctxId,
    lineageId: event.lineageId,
    agentId: event.agentId,
    contextType: event.contextType,
    visibility: event.visibility,
    version: event.version,
    derivedFrom: event.derivedFrom,
    registryAuthority: event.registryAuthority,
    scenarioId: event.scenarioId,
    keyFingerprint: event.keyFingerprint,
    receiptPresent: event.receiptPresent,
    payload,
  }
}
