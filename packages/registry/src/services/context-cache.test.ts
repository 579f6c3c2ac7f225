import { describe, expect, it } from 'vitest'
import type { StoredContext } from '../store/store.js'
import { ContextCache } from './context-cache.js'

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
    const cache = new ContextCache({ maxEntries: 2, maxBodyChars: 1000, statusMaxAgeMs: Number.POSITIVE_INFINITY })
    cache.set(ctx('a'), 0)
    cache.set(ctx('b'), 0)
    cache.get('a', 0)
    cache.set(ctx('c'), 0)
    expect(cache.get('b', 0)).toBeUndefined()
    expect(cache.get('a', 0)?.context.ctxId).toBe('a')
    expect(cache.size).toBe(2)
  })

  it('evicts by total body size and never caches a body over a quarter of the budget', () => {
    const cache = new ContextCache({ maxEntries: 100, maxBodyChars: 100, statusMaxAgeMs: Number.POSITIVE_INFINITY })
    cache.set(ctx('big', 26), 0)
    expect(cache.get('big', 0)).toBeUndefined()
    for (const id of ['a', 'b', 'c', 'd', 'e']) cache.set(ctx(id, 25), 0)
    expect(cache.size).toBe(4)
    expect(cache.get('a', 0)).toBeUndefined()
  })

  it('marks every entry stale after statusMaxAgeMs (a superseded context can still be retracted elsewhere)', () => {
    const cache = new ContextCache({ maxEntries: 10, maxBodyChars: 1000, statusMaxAgeMs: 1000 })
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
