/**
 * Test support: a validated event ready for `ControlPlaneStore.recordEvent`, as the ingest service builds it.
 */
import type { NewEvent } from '../../src/store/store.js'

/** The dashboard rollup bucket (5 minutes), as the ingest service computes it from the arrival time. */
const BUCKET_MS = 300_000

/** What identifies an event of a suite: each suite numbers its own events. */
export type EventIdentity = Pick<
  NewEvent,
  'tenantId' | 'dedupKey' | 'eventId' | 'ctxId' | 'runId' | 'agentId' | 'registryBaseUrl' | 'eventTs' | 'receivedAt'
>

/**
 * Builds a public version-1 `context_published` event of reg.example with `identity`; `overrides` win, and the
 * rollup bucket follows the (possibly overridden) arrival time unless `overrides` sets it.
 */
export function buildPublishEvent(identity: EventIdentity, overrides: Partial<NewEvent> = {}): NewEvent {
  const receivedAt = overrides.receivedAt ?? identity.receivedAt
  return {
    type: 'context_published',
    lineageId: null,
    contextType: 'analysis',
    visibility: 'public',
    version: 1,
    derivedFrom: [],
    registryAuthority: 'reg.example',
    scenarioId: null,
    keyFingerprint: null,
    receiptPresent: false,
    rawPayload: '{}',
    isPublish: true,
    didMethod: 'key',
    lifecycle: null,
    ...identity,
    bucketStart: receivedAt - (receivedAt % BUCKET_MS),
    ...overrides,
  }
}
