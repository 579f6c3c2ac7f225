/**
 * Deterministic OpenTelemetry ids for exported runs (docs/control-plane/opentelemetry.md "Trace and span ids").
 *
 * Ids are derived, never random, so a span can name its parent by id without asking anyone: a derived context's
 * span points at the span id of its `derived_from` parent whether that parent was exported a second ago, last
 * week, or by another instance sharing the database. Every id is a truncated SHA-256 over a domain-separated
 * input that includes the tenant, so two tenants never share a trace even for identical run ids.
 */
import { sha256 } from '@acdp/protocol'

/** Domain separation of the id inputs; a new derivation gets a new version. */
const ID_DOMAIN = 'acdp-otel/v1'

/** What a trace stands for: a run, else a lineage, else the single event. */
export type TraceKey =
  { kind: 'run'; runId: string } | { kind: 'lineage'; lineageId: string } | { kind: 'event'; id: string }

/** 32 lowercase hex digits (16 bytes): the trace id of `key` within `tenantId`. */
export function deriveTraceId(tenantId: string, key: TraceKey): string {
  const value = key.kind === 'run' ? key.runId : key.kind === 'lineage' ? key.lineageId : key.id
  return derive(`${ID_DOMAIN}\ntrace\n${tenantId}\n${key.kind}\n${value}`, 16)
}

/** 16 lowercase hex digits (8 bytes): the span id of the publication of `ctxId` within `tenantId`. */
export function deriveContextSpanId(tenantId: string, ctxId: string): string {
  return derive(`${ID_DOMAIN}\nspan\n${tenantId}\nctx\n${ctxId}`, 8)
}

/**
 * 16 lowercase hex digits: the span id of an event that is not a publication (a retraction, a retrieval…),
 * from its registry-minted event id, else its store sequence id (shared by every instance on one database).
 */
export function deriveEventSpanId(tenantId: string, event: { eventId: string | null; id: number }): string {
  const value = event.eventId !== null ? `id\n${event.eventId}` : `seq\n${event.id}`
  return derive(`${ID_DOMAIN}\nspan\n${tenantId}\nevent\n${value}`, 8)
}

/**
 * Most derived ids remembered. Events of one run share a trace id and a derived context usually follows its parent
 * closely, so most derivations repeat a recent one; a hash costs several µs and ingest pays it per event.
 */
export const DERIVED_ID_CACHE_ENTRIES = 4096

/** input → id, insertion-ordered so the first key is the oldest. Pure memo: hits return what a miss would. */
const derived = new Map<string, string>()

/** The first `bytes` of SHA-256(input) as hex; an all-zero id is invalid in OpenTelemetry, so it becomes …01. */
function derive(input: string, bytes: number): string {
  const known = derived.get(input)
  if (known !== undefined) return known
  const digest = sha256(input).subarray(0, bytes)
  if (digest.every((b) => b === 0)) digest[bytes - 1] = 1
  const id = Buffer.from(digest).toString('hex')
  if (derived.size >= DERIVED_ID_CACHE_ENTRIES) derived.delete(derived.keys().next().value as string)
  derived.set(input, id)
  return id
}
