/**
 * GET /contexts/search end to end: contexts published through the real publish pipeline, searched over HTTP
 * (app.inject) through the route, the error handler and the event/metrics wiring.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRegistryMetrics } from '../src/core/metrics.js'
import { DEFAULT_SEARCH_CURSOR_TTL_SECONDS } from '../src/search/search-cursor.js'
import {
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  type Producer,
  publish,
  recordingDispatcher,
  signRequest,
  type TestRegistry,
  type TestRegistryOptions,
} from './support/registry-harness.js'

let registry: TestRegistry | undefined
afterEach(async () => {
  await registry?.close()
  registry = undefined
})

const DISCOVERY = { registry: { profiles: ['acdp-registry-core', 'acdp-registry-discovery'] } }

/** Test read authentication: the requester DID comes from a header (null when absent). */
const headerReader = async (request: { headers: Record<string, unknown> }) =>
  typeof request.headers['x-test-did'] === 'string' ? (request.headers['x-test-did'] as string) : null

async function start(options: TestRegistryOptions = {}) {
  registry = await createTestRegistry({
    ...options,
    config: { ...DISCOVERY, ...options.config, registry: { ...DISCOVERY.registry, ...options.config?.registry } },
    deps: { authenticateReader: headerReader, ...options.deps },
  })
  return registry
}

async function publishAs(producer: Producer, overrides: Record<string, unknown>) {
  const res = await publish(registry!.app, signRequest(producer, minimalUnsigned(producer, overrides)))
  expect(res.statusCode).toBe(201)
  return (res.json() as { ctx_id: string }).ctx_id
}

function search(query: string, did?: string) {
  return registry!.app.inject({
    method: 'GET',
    url: `/contexts/search${query}`,
    headers: did ? { 'x-test-did': did } : {},
  })
}

describe('GET /contexts/search over HTTP', () => {
  it('answers 501 not_implemented with the error envelope when discovery is not advertised', async () => {
    registry = await createTestRegistry({ config: { registry: { profiles: ['acdp-registry-core'] } } })
    const res = await search('?q=x')
    expect(res.statusCode).toBe(501)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.json()).toEqual({ error: { code: 'not_implemented', message: expect.any(String) } })
  })

  it('finds contexts published through the publish pipeline, with the ACDP media type and no shared caching', async () => {
    const webhooks = recordingDispatcher()
    await start({ deps: { webhooks } })
    const p = didKeyProducer()
    const btc = await publishAs(p, {
      title: 'BTC spot',
      summary: 'Bitcoin at 43k',
      tags: ['crypto'],
      domain: 'markets',
    })
    await publishAs(p, { title: 'Rainfall', tags: ['weather'] })
    const res = await search('?q=bitcoin%20CRYPTO')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.headers['cache-control']).toBe('private, no-store')
    expect(res.json()).toEqual({
      matches: [
        {
          ctx_id: btc,
          lineage_id: expect.stringMatching(/^lin:sha256:[0-9a-f]{64}$/),
          type: 'data_snapshot',
          agent_id: p.did,
          title: 'BTC spot',
          summary: 'Bitcoin at 43k',
          domain: 'markets',
          created_at: '2026-05-01T12:00:00.000Z',
          status: 'active',
          visibility: 'public',
        },
      ],
      total_estimate: 1,
    })
    expect(webhooks.events.filter((e) => e.type === 'search_executed')).toEqual([
      {
        type: 'search_executed',
        registry_authority: 'registry.example.com',
        query: { q: 'bitcoin CRYPTO', status: 'active', limit: 20 },
        result_count: 1,
        requester_did: null,
        at: '2026-05-01T12:00:00.000Z',
      },
    ])
  })

  it('scopes matches to the requester: restricted for producer and audience, private for the producer only', async () => {
    await start()
    const alice = didKeyProducer()
    const bob = didKeyProducer()
    const restricted = await publishAs(alice, { title: 'note r', visibility: 'restricted', audience: [bob.did] })
    const priv = await publishAs(alice, { title: 'note p', visibility: 'private', audience: [bob.did] })
    const found = async (did?: string) =>
      ((await search('?q=note', did)).json() as { matches: Array<{ ctx_id: string }> }).matches.map((m) => m.ctx_id)
    expect((await found(alice.did)).sort()).toEqual([restricted, priv].sort())
    expect(await found(bob.did)).toEqual([restricted])
    expect(await found(didKeyProducer().did)).toEqual([])
    expect(await found()).toEqual([])
  })

  it('refuses an anonymous search with 403 when anonymous public reads are off', async () => {
    await start({ config: { auth: { anonymous_public_reads: false } } })
    const res = await search('?q=x')
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: { code: 'not_authorized', message: expect.any(String) } })
    expect((await search('?q=x', 'did:web:agents.example.com:reader')).statusCode).toBe(200)
  })

  it('pages with next_cursor and answers invalid_cursor and cursor_expired with the envelope', async () => {
    const current = await start()
    const p = didKeyProducer()
    for (let i = 0; i < 5; i++) {
      await publishAs(p, { title: `page item ${i}` })
      current.clock.advance(1000)
    }
    const first = (await search('?q=item&limit=2')).json() as { matches: unknown[]; next_cursor: string }
    expect(first.matches).toHaveLength(2)
    const second = await search(`?q=item&limit=2&cursor=${first.next_cursor}`)
    expect(second.statusCode).toBe(200)
    expect((second.json() as { matches: unknown[] }).matches).toHaveLength(2)

    const forged = await search(`?q=item&limit=2&cursor=${first.next_cursor.slice(0, -2)}AA`)
    expect(forged.statusCode).toBe(400)
    expect(forged.json()).toEqual({ error: { code: 'invalid_cursor', message: expect.any(String) } })
    const otherQuery = await search(`?q=other&cursor=${first.next_cursor}`)
    expect(otherQuery.json()).toMatchObject({ error: { code: 'invalid_cursor' } })

    current.clock.advance(DEFAULT_SEARCH_CURSOR_TTL_SECONDS * 1000 + 1)
    const expired = await search(`?q=item&limit=2&cursor=${first.next_cursor}`)
    expect(expired.statusCode).toBe(400)
    expect(expired.json()).toEqual({ error: { code: 'cursor_expired', message: expect.any(String) } })
  })

  it.each([
    { query: '?type=a&type=b', parameter: 'type' },
    { query: '?limit=0', parameter: 'limit' },
    { query: '?created_after=yesterday', parameter: 'created_after' },
  ])('answers schema_violation naming the parameter for $query', async ({ query, parameter }) => {
    await start()
    const res = await search(query)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      error: { code: 'schema_violation', message: expect.any(String), details: { parameter } },
    })
  })

  it('is not shadowed by GET /contexts/{ctx_id} and counts searches in the metrics', async () => {
    const metrics = createRegistryMetrics()
    await start({ config: { metrics: { enabled: true } }, deps: { metrics } })
    await search('?q=x')
    await search('?limit=-1')
    const text = await metrics.registry.metrics()
    expect(text).toContain('acdp_registry_search_total{outcome="ok"} 1')
    expect(text).toContain('acdp_registry_search_total{outcome="schema_violation"} 1')
    expect(text).toContain('acdp_registry_request_total{route="/contexts/search",method="GET",status="200"} 1')
  })
})
