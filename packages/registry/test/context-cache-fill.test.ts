/**
 * What fills the hot-context cache (docs/registry/memory.md): reads, not publishes. A publish-only load must not
 * leave the cache full of contexts nobody asked for; the first read of a context goes to the store once, and its
 * next reads are served from the cache. SQLite and PostgreSQL.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it, vi } from 'vitest'
import { didKeyProducer, minimalUnsigned, publish, signRequest, useTestRegistry } from './support/registry-harness.js'

describe.each(testDatabaseTargets())('context cache fill on $name', (target) => {
  const start = useTestRegistry()

  it('reads a freshly published context from the store once, then from the cache', async () => {
    const r = await start({ openDatabase: target.open })
    const ctxIds: string[] = []
    for (let i = 0; i < 3; i++) {
      const p = didKeyProducer()
      const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
      expect(res.statusCode).toBe(201)
      ctxIds.push(res.json().ctx_id as string)
    }
    const findContext = vi.spyOn(r.deps.store, 'findContext')
    for (const round of [1, 2]) {
      for (const ctxId of ctxIds) {
        const res = await r.app.inject({ url: `/contexts/${encodeURIComponent(ctxId)}` })
        expect(res.statusCode).toBe(200)
      }
      // Round 1: one store read per context (nothing was cached by the publish); round 2: none more.
      expect({ round, reads: findContext.mock.calls.length }).toEqual({ round, reads: ctxIds.length })
    }
  })
})
