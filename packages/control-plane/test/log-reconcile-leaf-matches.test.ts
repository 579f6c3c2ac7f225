/**
 * The reconciler records the leaf of every held publication it walks past (the receipt-audit summary's log
 * evidence), and its cursor never passes a leaf whose match could not be recorded: the next walk reads that page
 * again. Fakes for the store and the registry: no database, no network.
 */
import type { KeyResolver, OutboundClient } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import type { IngestContext } from '../src/ingest/ingest.js'
import type { LeafMatch, LogReconcileStore } from '../src/log-reconcile/log-reconcile-store.js'
import { createLogReconciler } from '../src/log-reconcile/log-reconciler.js'

const LOG_ID = 'did:web:reg.example/log/1'
const BASE = 'https://reg.example'
const ctx = (i: number) => `acdp://reg.example/10000000-0000-4000-8000-${String(i).padStart(12, '0')}`

/** Three leaves: two name a context, the middle one names none (not readable, not evidence of anything). */
const LEAVES = [{ ctx_id: ctx(1) }, undefined, { ctx_id: ctx(3) }]

function harness() {
  const settled: Array<{ nextIndex: number | null; lastFailure: string | null }> = []
  const recorded: LeafMatch[] = []
  let nextIndex: number | null = 0
  let failWrites = 1
  const store: LogReconcileStore = {
    async syncCursors() {},
    async claimDue() {
      return [{ authority: 'reg.example', tenantId: 't1', baseUrl: BASE, nextIndex, lifecycleAfter: 0 }]
    },
    async settle(input) {
      nextIndex = input.nextIndex
      settled.push({ nextIndex: input.nextIndex, lastFailure: input.lastFailure })
      return true
    },
    async heldPublications(_tenantId, keys) {
      return new Set(keys) // every named context is held already
    },
    async recordLeafMatches({ tenantId, authority, matches }) {
      expect({ tenantId, authority }).toEqual({ tenantId: 't1', authority: 'reg.example' })
      if (failWrites > 0) {
        failWrites -= 1
        throw new Error('database unavailable')
      }
      recorded.push(...matches)
    },
    async publicationsAfter() {
      return []
    },
    async heldLifecycleEventIds() {
      return new Set()
    },
  }
  const outbound = {
    async request(url: string | URL) {
      const u = new URL(String(url))
      const start = Number(u.searchParams.get('start'))
      const end = Number(u.searchParams.get('end'))
      const entries = LEAVES.slice(start, end).map((leaf, i) => ({
        leaf_index: start + i,
        ...(leaf === undefined ? {} : { leaf }),
      }))
      const body = new TextEncoder().encode(JSON.stringify({ log_id: LOG_ID, entries }))
      return { status: 200, headers: {}, body, url: String(url) }
    },
  } as unknown as OutboundClient
  const reconciler = createLogReconciler(
    {
      store,
      ingest: {} as IngestContext,
      registryClient: {
        async capabilities() {
          return { advertisesLog: true, registryDid: undefined, profiles: [] }
        },
        async checkpoint() {
          return { checkpoint: { tree_size: LEAVES.length }, witnessSignatures: [], malformed: undefined }
        },
      },
      outbound,
      resolver: {} as KeyResolver,
      clock: () => new Date(0),
      random: (size) => new Uint8Array(size),
      metrics: { recordEntry() {}, recordLifecycleEvent() {} },
    },
    {
      intervalMs: 60_000,
      maxEntries: 100,
      pageSize: 10,
      concurrency: 1,
      requestTimeoutMs: 1000,
      leaseMs: 60_000,
      lifecyclePageSize: 0,
    },
  )
  return { reconciler, settled, recorded }
}

describe('the log reconciler records the leaves of held publications', () => {
  it('keeps its cursor before a page whose matches were not recorded, and records them on the next walk', async () => {
    const { reconciler, settled, recorded } = harness()
    await reconciler.reconcileNow()
    // The write failed: nothing recorded, the cursor still at the page's first leaf, the failure named.
    expect(recorded).toEqual([])
    expect(settled).toEqual([{ nextIndex: 0, lastFailure: 'database unavailable' }])

    await reconciler.reconcileNow()
    expect(recorded).toEqual([
      { ctxId: ctx(1), logId: LOG_ID, leafIndex: 0 },
      { ctxId: ctx(3), logId: LOG_ID, leafIndex: 2 },
    ])
    expect(settled[1]).toEqual({ nextIndex: 3, lastFailure: null })
    await reconciler.close()
  })
})
