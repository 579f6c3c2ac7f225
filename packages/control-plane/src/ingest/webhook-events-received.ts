/**
 * The receiving end of the registry webhook contract (`@acdp/protocol` wire/webhook-events.ts): how the control
 * plane reads the members of a delivered envelope.
 *
 * The protocol's envelope schemas are closed and exact, for a sender checking its own output. A receiver must be
 * lenient instead (newer senders add members, older ones omit some, the log reconciliation builds envelopes from a
 * registry's served state), so each member the control plane uses is read here on its own: absent or null means
 * absent, and a present member is type- and size-checked and refused with a 400 naming it. Member names are the
 * protocol's (typed `ReceivedMember`), so a member renamed in the contract no longer compiles here. Lengths count
 * UTF-16 code units and the printable rule is per code unit, which is what these readers have always enforced;
 * TypeBox's string keywords count code points (and compile patterns with the `u` flag), so they would accept and
 * refuse other strings than the control plane does today.
 */
import type { RegistryWebhookEvent, WebhookEventType } from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import { parseTimestamp } from '../core/http/wire-time.js'

/** A member some registry webhook envelope declares, or one the control plane reads beyond the contract. */
export type ReceivedMember =
  | (RegistryWebhookEvent extends infer E ? (E extends RegistryWebhookEvent ? keyof E : never) : never)
  | 'scenario_id'
  | 'metadata'

/** The event type whose ingest requires `agent_id` and feeds lineage, runs' contexts and the dashboard. */
export const CONTEXT_PUBLISHED = 'context_published' satisfies WebhookEventType

/** The lifecycle profile's event types (RFC-ACDP-0013), each with whether it leaves the context retracted. */
export const LIFECYCLE_TYPES: Readonly<Record<string, boolean>> = {
  context_retracted: true,
  context_republished: false,
} satisfies Partial<Record<WebhookEventType, boolean>>

/** Event types: snake_case or dotted names, bounded (they become metric labels and filter values). */
const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/
/** Authorities as the product spec's federation grammar allows them: host names, optionally with a port. */
const AUTHORITY = /^[a-z0-9.:-]{1,255}$/
const CTX_ID_AUTHORITY = /^acdp:\/\/([^/]{1,255})\//
/** Loose on purpose: the method is what the dashboard counts; the registry verified the key. */
export const DID = /^did:([a-z0-9]+):\S{1,2040}$/
/** Printable, no whitespace controls: ids end up in URLs, logs and SSE frames. */
const PRINTABLE = /^[\x20-\x7e\u00a0-\uffff]+$/

export const MAX_ID_LENGTH = 255
export const MAX_TEXT_LENGTH = 2048
const MAX_DERIVED_FROM = 1000
const MAX_SCENARIO_ID_LENGTH = 128

/** A delivered envelope, once known to be a JSON object: its members are still unchecked. */
export type ReceivedPayload = Record<string, unknown>

/** @throws INVALID_PAYLOAD unless the body is a JSON object. */
export function requireObject(body: unknown): ReceivedPayload {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ControlPlaneError('INVALID_PAYLOAD', 'the body must be a JSON object')
  }
  return body as ReceivedPayload
}

/**
 * The claimed authority: `registry_authority`, else the authority of `ctx_id` (older registries omitted it).
 * Lowercased: host names compare case-insensitively, and one spelling must map to one enrollment.
 */
export function readAuthority(payload: ReceivedPayload): string {
  const claimed = payload.registry_authority
  let authority: string | undefined
  if (claimed !== undefined && claimed !== null) {
    if (typeof claimed !== 'string')
      throw new ControlPlaneError('VALIDATION_ERROR', 'registry_authority must be a string')
    authority = claimed
  } else if (typeof payload.ctx_id === 'string') {
    authority = authorityOfCtxId(payload.ctx_id)
  }
  if (authority === undefined || authority === '') {
    throw new ControlPlaneError('INVALID_PAYLOAD', 'registry_authority is required')
  }
  const normalized = authority.toLowerCase()
  if (!AUTHORITY.test(normalized)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'registry_authority must be a host name, optionally with a port')
  }
  return normalized
}

/** The authority of a wire-form ctx_id (`acdp://<authority>/<id>`), lowercased; undefined for any other form. */
export function authorityOfCtxId(ctxId: string): string | undefined {
  return CTX_ID_AUTHORITY.exec(ctxId)?.[1]?.toLowerCase()
}

/**
 * Registries announce ctx_ids in the event form `<authority>/<id>` (product spec registry.md "Resources"); the
 * control plane stores and serves the wire form `acdp://<authority>/<id>` (lineage graph nodes). A value that
 * already carries a scheme is kept as sent.
 */
export function toWireCtxId<T extends string | null>(value: T): T {
  return (value !== null && !value.includes('://') ? `acdp://${value}` : value) as T
}

export function readType(payload: ReceivedPayload): string {
  const type = payload.type
  if (type === undefined || type === null || type === '')
    throw new ControlPlaneError('INVALID_PAYLOAD', 'type is required')
  if (typeof type !== 'string' || !EVENT_TYPE.test(type)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'type must be an event type name of at most 64 characters')
  }
  return type
}

/** A present member must be a non-empty printable string of bounded length; absent or null → null. */
export function readOptionalText(payload: ReceivedPayload, name: ReceivedMember, maxLength: number): string | null {
  const value = payload[name]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength || !PRINTABLE.test(value)) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `${name} must be a non-empty string of at most ${maxLength} characters`,
    )
  }
  return value
}

export function readOptionalDid(payload: ReceivedPayload, name: ReceivedMember): string | null {
  const value = readOptionalText(payload, name, MAX_TEXT_LENGTH)
  if (value !== null && !DID.test(value)) throw new ControlPlaneError('VALIDATION_ERROR', `${name} must be a DID`)
  return value
}

export function readOptionalVersion(payload: ReceivedPayload): number | null {
  const value = payload.version
  if (value === undefined || value === null) return null
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'version must be a non-negative integer')
  }
  return value
}

export function readDerivedFrom(payload: ReceivedPayload): string[] {
  const value = payload.derived_from
  if (value === undefined || value === null) return []
  if (
    !Array.isArray(value) ||
    value.length > MAX_DERIVED_FROM ||
    !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT_LENGTH && PRINTABLE.test(v))
  ) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `derived_from must be an array of at most ${MAX_DERIVED_FROM} ctx ids`,
    )
  }
  return [...new Set(value as string[])]
}

/** X-Run-Id wins over the payload's run_id (product spec "Ingest request headers"). */
export function readRunId(header: string | undefined, payload: ReceivedPayload): string | null {
  if (header !== undefined) {
    if (header.length === 0 || header.length > MAX_ID_LENGTH || !PRINTABLE.test(header)) {
      throw new ControlPlaneError('VALIDATION_ERROR', `X-Run-Id must be 1 to ${MAX_ID_LENGTH} printable characters`)
    }
    return header
  }
  return readOptionalText(payload, 'run_id', MAX_ID_LENGTH)
}

export function readHeaderEventId(header: string | undefined): string | null {
  if (header === undefined) return null
  if (header.length === 0 || header.length > MAX_ID_LENGTH || !PRINTABLE.test(header)) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `X-ACDP-Event-Id must be 1 to ${MAX_ID_LENGTH} printable characters`,
    )
  }
  return header
}

/**
 * `scenario_id`, else `metadata.scenario_id`. A wrongly typed metadata member is ignored rather than refused:
 * metadata is the producer's free-form area.
 */
export function readScenarioId(payload: ReceivedPayload): string | null {
  const direct = readOptionalText(payload, 'scenario_id', MAX_SCENARIO_ID_LENGTH)
  if (direct !== null) return direct
  const metadata = payload.metadata
  if (typeof metadata !== 'object' || metadata === null) return null
  const nested = (metadata as Record<string, unknown>).scenario_id
  return typeof nested === 'string' &&
    nested.length > 0 &&
    nested.length <= MAX_SCENARIO_ID_LENGTH &&
    PRINTABLE.test(nested)
    ? nested
    : null
}

/**
 * Event time: `created_at` (publishes), else `at` (other registry events), as RFC 3339. An unparseable value
 * falls back to the arrival time (returns undefined): refusing the event would make the registry drop it for a
 * cosmetic member, and the raw value stays in the stored payload.
 */
export function readEventTime(payload: ReceivedPayload): number | undefined {
  for (const name of ['created_at', 'at'] as const satisfies readonly ReceivedMember[]) {
    const value = payload[name]
    if (typeof value === 'string') {
      const ms = parseTimestamp(value)
      if (ms !== undefined) return ms
    }
  }
  return undefined
}

/** registry_base_url from the signed body: kept only when it is an http(s) URL (informational). */
export function readBaseUrl(payload: ReceivedPayload): string | null {
  const value = payload.registry_base_url
  if (typeof value !== 'string' || value.length > MAX_TEXT_LENGTH) return null
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : null
  } catch {
    return null
  }
}

/** Whether the envelope carries a registry receipt object (its verification is the receipt audit's). */
export function hasReceipt(payload: ReceivedPayload): boolean {
  return typeof payload.registry_receipt === 'object' && payload.registry_receipt !== null
}
