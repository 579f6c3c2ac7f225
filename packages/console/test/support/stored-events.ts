/**
 * A large event table for the first-paint measurements: `context_published` events written through the control
 * plane's own store (`recordEvent`, one transaction per event with every projection ingest derives: runs, agents,
 * registries, dashboard rollups), skipping only the HTTP and signature checks of ingest.
 */
import type { ControlPlaneStore } from '../../../control-plane/src/store/store.js'
import { buildPublishEvent } from '../../../control-plane/test/support/new-event.js'

/** The registry the stored events claim to come from (nothing is ever fetched from it). */
export const STORED_EVENTS_AUTHORITY = 'perf.example'
/** Events written concurrently: enough to keep the store busy, few enough to bound memory. */
const BATCH = 500
/**
 * Seconds the events are spread over: an hour short of the dashboard's default 24-hour window, so none ages out of
 * it while a loaded machine takes minutes to seed them and open the pages (a full day lost the oldest few).
 */
const SPREAD_SECONDS = 23 * 3600

/**
 * Stores `count` events of the default tenant over the 23 hours before now: 500 runs (`perf-run-<n mod 500>`), 50 agents,
 * one context each. Resolves with the milliseconds the seeding took.
 */
export async function storePublishEvents(store: ControlPlaneStore, count: number): Promise<number> {
  const start = Date.now()
  for (let offset = 0; offset < count; offset += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, count - offset) }, (_, i) => {
        const n = offset + i
        return store.recordEvent(
          buildPublishEvent(
            {
              tenantId: 'default',
              dedupKey: `perf:${n}`,
              eventId: `perf-${n}`,
              ctxId: `acdp://${STORED_EVENTS_AUTHORITY}/${n}`,
              runId: `perf-run-${n % 500}`,
              agentId: `did:key:z6MkPerfAgent${n % 50}`,
              registryBaseUrl: `https://${STORED_EVENTS_AUTHORITY}`,
              eventTs: start - (n % SPREAD_SECONDS) * 1000,
              receivedAt: start - (n % SPREAD_SECONDS) * 1000,
            },
            { registryAuthority: STORED_EVENTS_AUTHORITY },
          ),
        )
      }),
    )
  }
  return Date.now() - start
}
