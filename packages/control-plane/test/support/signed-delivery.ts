/**
 * Test support: registry-style signed deliveries (the exact bytes are signed, as the registry does).
 */
import { type BoundWebhookHeaders, signTimestampedWebhook, signWebhookBody, signWebhookV2 } from '@acdp/protocol'
import type { InjectOptions } from 'fastify'
import { TEST_WEBHOOK_SECRET } from './test-app.js'

let sequence = 0

/** A context_published body as the registry sends it, with a fresh event id and ctx id. */
export function publishedEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1
  const suffix = sequence.toString(16).padStart(12, '0')
  return {
    event_id: `00000000-0000-4000-8000-${suffix}`,
    schema_version: '1.0',
    type: 'context_published',
    registry_authority: 'reg.example',
    registry_base_url: 'https://reg.example',
    ctx_id: `acdp://reg.example/10000000-0000-4000-8000-${suffix}`,
    lineage_id: `lin:sha256:${'a'.repeat(64)}`,
    agent_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    context_type: 'analysis',
    visibility: 'public',
    version: 1,
    created_at: '2026-01-15T11:59:00.000Z',
    derived_from: [],
    ...overrides,
  }
}

/** An agent-less context_retrieved body. */
export function retrievedEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1
  return {
    event_id: `20000000-0000-4000-8000-${sequence.toString(16).padStart(12, '0')}`,
    schema_version: '1.0',
    type: 'context_retrieved',
    registry_authority: 'reg.example',
    ctx_id: 'acdp://reg.example/10000000-0000-4000-8000-000000000001',
    requester_did: null,
    at: '2026-01-15T11:59:30.000Z',
    ...overrides,
  }
}

export interface DeliveryOptions {
  secret?: string
  /** Extra or overriding headers. */
  headers?: Record<string, string>
  /** Leave the body unsigned. */
  unsigned?: boolean
  url?: string
}

/** An inject request POSTing `body` (object or exact text) signed with `secret`. */
export function signedDelivery(body: unknown, options: DeliveryOptions = {}): InjectOptions {
  const raw = typeof body === 'string' ? body : JSON.stringify(body)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (!options.unsigned) headers['x-acdp-signature'] = signWebhookBody(options.secret ?? TEST_WEBHOOK_SECRET, raw)
  return {
    method: 'POST',
    url: options.url ?? '/ingest/acdp',
    payload: raw,
    headers: { ...headers, ...options.headers },
  }
}

/** Headers of the timestamped signature form. */
export function timestampedHeaders(
  raw: string,
  timestampSeconds: number,
  secret = TEST_WEBHOOK_SECRET,
): Record<string, string> {
  return {
    'x-acdp-timestamp': String(timestampSeconds),
    'x-acdp-signature-timestamped': signTimestampedWebhook(secret, timestampSeconds, raw),
  }
}

/**
 * Headers of a delivery as our registry sends it: plain, timestamped and V2 signatures, with the bound
 * X-Tenant-Id / X-Run-Id / X-ACDP-Event-Id headers themselves.
 */
export function boundHeaders(
  raw: string,
  timestampSeconds: number,
  bound: Partial<BoundWebhookHeaders>,
  secret = TEST_WEBHOOK_SECRET,
): Record<string, string> {
  const full = { tenantId: bound.tenantId, runId: bound.runId, eventId: bound.eventId }
  const headers: Record<string, string> = {
    ...timestampedHeaders(raw, timestampSeconds, secret),
    'x-acdp-signature': signWebhookBody(secret, raw),
    'x-acdp-signature-v2': signWebhookV2(secret, timestampSeconds, full, raw),
  }
  if (full.tenantId !== undefined) headers['x-tenant-id'] = full.tenantId
  if (full.runId !== undefined) headers['x-run-id'] = full.runId
  if (full.eventId !== undefined) headers['x-acdp-event-id'] = full.eventId
  return headers
}
