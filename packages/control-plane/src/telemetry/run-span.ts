/**
 * One committed event → one span description (plain data, no OpenTelemetry SDK types), so the mapping is tested
 * without the SDK and the SDK is loaded only when export is configured (telemetry/otlp-run-exporter.ts).
 *
 * Shape (docs/control-plane/opentelemetry.md):
 * - trace = the run (`run_id`), else the lineage (`lineage_id`), else the event alone;
 * - a `context_published` span has the context's own span id; its parent is the span of its first
 *   `derived_from` context, further parents are links; a publication without parents is a root of the trace;
 * - any other event naming a `ctx_id` (retraction, republication, retrieval…) is a child of that context's
 *   publication span;
 * - start = event time (`created_at`/`at`), end = arrival at this control plane (never before the start), so a
 *   span's duration is the registry-to-control-plane delivery delay.
 *
 * Attributes follow the OpenTelemetry GenAI agent conventions where they fit (`gen_ai.agent.id` is the producing
 * agent's DID, `gen_ai.conversation.id` the run) and carry the ACDP facts as `acdp.*`.
 */
import type { StoredEvent } from '../store/schema.js'
import { deriveContextSpanId, deriveEventSpanId, deriveTraceId, type TraceKey } from './run-trace-ids.js'

/** The event type whose span carries the context's own span id. */
const CONTEXT_PUBLISHED = 'context_published'

/** Links beyond this are dropped (and counted in the span): a context may name up to 1,000 parents. */
export const MAX_SPAN_LINKS = 128

export type SpanAttributeValue = string | number | boolean | string[]

/** A finished span, ready to hand to an exporter. */
export interface RunSpan {
  name: string
  traceId: string
  spanId: string
  /** Parent span id in the same trace; absent for a root. */
  parentSpanId?: string
  /** Further lineage parents (same trace). */
  links: Array<{ traceId: string; spanId: string }>
  droppedLinksCount: number
  startTimeMs: number
  endTimeMs: number
  attributes: Record<string, SpanAttributeValue>
}

/**
 * Describes `event` as a span.
 *
 * @param isDeliveryVerified whether this control plane verified the delivery's HMAC (false only where the
 *   configuration skips verification: development with no secret).
 */
export function describeRunSpan(event: StoredEvent, isDeliveryVerified: boolean): RunSpan {
  const tenant = event.tenantId
  const traceId = deriveTraceId(tenant, traceKeyOf(event))
  const isPublication = event.type === CONTEXT_PUBLISHED && event.ctxId !== null
  const spanId =
    isPublication && event.ctxId !== null ? deriveContextSpanId(tenant, event.ctxId) : deriveEventSpanId(tenant, event)
  const parents = isPublication ? event.derivedFrom : event.ctxId !== null ? [event.ctxId] : []
  const [first, ...rest] = parents
  // Both were written by formatTimestamp (RFC 3339, ms, UTC): Date.parse reads that form exactly.
  const startTimeMs = Date.parse(event.ts)
  const endTimeMs = Math.max(startTimeMs, Date.parse(event.receivedAt))
  return {
    name: event.contextType !== null ? `${event.type} ${event.contextType}` : event.type,
    traceId,
    spanId,
    ...(first !== undefined ? { parentSpanId: deriveContextSpanId(tenant, first) } : {}),
    links: rest.slice(0, MAX_SPAN_LINKS).map((ctxId) => ({ traceId, spanId: deriveContextSpanId(tenant, ctxId) })),
    droppedLinksCount: Math.max(0, rest.length - MAX_SPAN_LINKS),
    startTimeMs,
    endTimeMs,
    attributes: attributesOf(event, isDeliveryVerified),
  }
}

function traceKeyOf(event: StoredEvent): TraceKey {
  if (event.runId !== null) return { kind: 'run', runId: event.runId }
  if (event.lineageId !== null) return { kind: 'lineage', lineageId: event.lineageId }
  return { kind: 'event', id: event.eventId !== null ? `id:${event.eventId}` : `seq:${event.id}` }
}

function attributesOf(event: StoredEvent, isDeliveryVerified: boolean): Record<string, SpanAttributeValue> {
  const attributes: Record<string, SpanAttributeValue> = {
    'acdp.event_type': event.type,
    'acdp.tenant_id': event.tenantId,
    'acdp.registry': event.registryAuthority,
    'acdp.receipt_present': event.receiptPresent,
    'acdp.verified': isDeliveryVerified,
  }
  const optional: Array<[string, string | number | null]> = [
    ['acdp.event_id', event.eventId],
    ['acdp.ctx_id', event.ctxId],
    ['acdp.lineage_id', event.lineageId],
    ['acdp.run_id', event.runId],
    ['acdp.agent_did', event.agentId],
    ['acdp.context_type', event.contextType],
    ['acdp.visibility', event.visibility],
    ['acdp.version', event.version],
    ['acdp.scenario_id', event.scenarioId],
    ['acdp.key_fingerprint', event.keyFingerprint],
    ['gen_ai.agent.id', event.agentId],
    ['gen_ai.conversation.id', event.runId],
  ]
  for (const [name, value] of optional) if (value !== null) attributes[name] = value
  if (event.derivedFrom.length > 0) attributes['acdp.derived_from'] = event.derivedFrom.slice(0, MAX_SPAN_LINKS + 1)
  return attributes
}
