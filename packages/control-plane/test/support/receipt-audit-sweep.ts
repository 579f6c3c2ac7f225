/** Driving the receipt audit from a test: an ingested publication, and verdicts recorded through the sweep path. */
import { expect } from 'vitest'
import type { ReceiptVerdict } from '../../src/receipt-audit/receipt-audit-store.js'
import { signedDelivery } from './signed-delivery.js'
import type { TestApp } from './test-app.js'

/** Ingests `body` as a signed delivery; expects 204. */
export async function ingest(t: TestApp, body: Record<string, unknown>): Promise<void> {
  expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)
}

/** Records `verdicts` (in publication order) through the store's own sweep path: lease, read, record. */
export async function audit(t: TestApp, verdicts: ReceiptVerdict[]) {
  const store = t.app.receiptAudit.store
  const now = t.deps.clock().getTime()
  expect(await store.claim({ owner: 'test', now, leaseMs: 60_000 })).toBe(0)
  const { candidates, scannedTo } = await store.nextPublications({ afterSeq: 0, settledBefore: now + 1, limit: 100 })
  expect(candidates).toHaveLength(verdicts.length)
  const outcomes = candidates.map((candidate, i) => ({
    candidate,
    verdict: verdicts[i]!,
    discrepancies: verdicts[i] === 'discrepancy' ? ['content_hash_mismatch'] : [],
    detail: null,
    retryAt: undefined,
  }))
  expect(await store.record({ owner: 'test', now, cursorTo: scannedTo, outcomes })).toBeDefined()
  return candidates
}
