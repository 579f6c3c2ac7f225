import { describe, expect, it } from 'vitest'
import type { StoredContext } from '../store/store.js'
import { ContextCache, costOf, ENTRY_OVERHEAD_BYTES } from './context-cache.js'

function ctx(id: string, bodyChars = 10, supersededBy: string | null = null): StoredContext {
  return {
    ctxId: id,
    lineageId: 'lin',
    version: 1,
    supersedes: null,
    supersededBy,
    agentId: 'did:web:a',
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: [],
    contentHash: 'h',
    createdAt: 't',
    createdAtMs: 0,
    expiresAtMs: null,
    bodyText: 'x'.repeat(bodyChars),
    registryReceipt: null,
    leafIndex: null,
    retracted: false,
    lifecycleEventsJson: null,
    tenantId: 'default',
  }
}

describe('ContextCache', () => {
  it('evicts the least recently used entry past the entry bound', () => {
    const cache = new ContextCache({
      maxEntries: 2,
      maxBytes: 100 * ENTRY_OVERHEAD_BYTES,
      statusMaxAgeMs: Number.POSITIVE_INFINITY,
    })
    cache.set(ctx('a'), 0)
    cache.set(ctx('b'), 0)
    cache.get('a', 0)
    cache.set(ctx('c'), 0)
    expect(cache.get('b', 0)).toBeUndefined()
    expect(cache.get('a', 0)?.context.ctxId).toBe('a')
    expect(cache.size).toBe(2)
  })

  it('evicts by the memory held and never caches an entry over a quarter of the budget', () => {
    const maxBytes = 4 * (ENTRY_OVERHEAD_BYTES + 25)
    const cache = new ContextCache({ maxEntries: 100, maxBytes, statusMaxAgeMs: Number.POSITIVE_INFINITY })
    cache.set(ctx('big', 26), 0)
    expect(cache.get('big', 0)).toBeUndefined()
    for (const id of ['a', 'b', 'c', 'd', 'e']) cache.set(ctx(id, 25), 0)
    expect(cache.size).toBe(4)
    expect(cache.bytes).toBe(maxBytes)
    expect(cache.get('a', 0)).toBeUndefined()
  })

  it('charges the receipt and lifecycle texts too, including when a lifecycle event grows an entry', () => {
    const withReceipt = { ...ctx('r', 10), registryReceipt: 'x'.repeat(500) }
    expect(costOf(withReceipt)).toBe(ENTRY_OVERHEAD_BYTES + 510)
    const maxBytes = 4 * (ENTRY_OVERHEAD_BYTES + 10)
    const cache = new ContextCache({ maxEntries: 100, maxBytes, statusMaxAgeMs: Number.POSITIVE_INFINITY })
    for (const id of ['a', 'b', 'c', 'd']) cache.set(ctx(id, 10), 0)
    expect(cache.bytes).toBe(maxBytes)
    cache.refreshStatus('d', { lifecycleEventsJson: 'e'.repeat(600) }, 0)
    // d now costs 600 more: the oldest entry goes, the others stay and the total is back under the bound.
    expect(cache.get('a', 0)).toBeUndefined()
    expect(cache.size).toBe(3)
    expect(cache.bytes).toBe(3 * (ENTRY_OVERHEAD_BYTES + 10) + 600)
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes)
  })

  it('marks every entry stale after statusMaxAgeMs (a superseded context can still be retracted elsewhere)', () => {
    const cache = new ContextCache({ maxEntries: 10, maxBytes: 100 * ENTRY_OVERHEAD_BYTES, statusMaxAgeMs: 1000 })
    cache.set(ctx('head'), 0)
    cache.set(ctx('old', 10, 'head'), 0)
    expect(cache.get('head', 1000)?.stale).toBe(false)
    expect(cache.get('head', 1001)?.stale).toBe(true)
    expect(cache.get('old', 10_000)?.stale).toBe(true)
    cache.refreshStatus('head', { supersededBy: 'newer' }, 1001)
    expect(cache.get('head', 1500)).toMatchObject({
      stale: false,
      context: { supersededBy: 'newer', retracted: false },
    })
    cache.refreshStatus('head', { retracted: true, lifecycleEventsJson: '[]' }, 1600)
    expect(cache.get('head', 1700)).toMatchObject({ context: { supersededBy: 'newer', retracted: true } })
  })
})
