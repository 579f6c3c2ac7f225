/**
 * U+0000 in producer strings the schema leaves free-form (title, summary, domain): accepted on every backend, the
 * body served byte for byte, the search columns holding U+FFFD instead. PostgreSQL text cannot hold U+0000, so
 * before the store mapped it these publishes answered 500 there (found by the HTTP fuzzer).
 */
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import { didKeyProducer, minimalUnsigned, publish, signRequest, useTestRegistry } from './support/registry-harness.js'

const start = useTestRegistry()

describe.each(testDatabaseTargets())('U+0000 in producer strings on $name', (target) => {
  it('publishes (201), serves the exact body, and finds the context by search with U+FFFD in its summary', async () => {
    const registry = await start({ openDatabase: target.open })
    const producer = didKeyProducer()
    const request = signRequest(
      producer,
      minimalUnsigned(producer, { title: 'nul\u0000title', summary: 'a\u0000b', domain: 'd\u0000' }),
    )
    const answer = await publish(registry.app, request)
    expect(answer.statusCode).toBe(201)
    const { ctx_id: ctxId } = answer.json() as { ctx_id: string }
    const body = await registry.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctxId)}/body` })
    expect(body.statusCode).toBe(200)
    expect(body.json()).toMatchObject({ title: 'nul\u0000title', summary: 'a\u0000b', domain: 'd\u0000' })
    const search = await registry.app.inject({
      method: 'GET',
      url: `/contexts/search?agent_id=${encodeURIComponent(producer.did)}`,
    })
    expect(search.statusCode).toBe(200)
    expect((search.json() as { matches: unknown[] }).matches).toEqual([
      expect.objectContaining({ ctx_id: ctxId, title: 'nul\ufffdtitle', summary: 'a\ufffdb', domain: 'd\ufffd' }),
    ])
  })
})
