/**
 * The optional components wired around the core by buildApp: webhook events from publishes and retrievals,
 * publish-outcome metrics on GET /metrics.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRegistryMetrics } from '../src/core/metrics.js'
import {
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  publish,
  recordingDispatcher,
  signRequest,
  type TestRegistry,
} from './support/registry-harness.js'

let registry: TestRegistry | undefined
afterEach(async () => {
  await registry?.close()
  registry = undefined
})

describe('webhook wiring', () => {
  it('sends context_published once per first publish (never for a replay) and context_retrieved per read', async () => {
    const webhooks = recordingDispatcher()
    registry = await createTestRegistry({ deps: { webhooks } })
    const p = didKeyProducer()
    const source = (await publish(registry.app, signRequest(p, minimalUnsigned(p)))).json() as { ctx_id: string }
    const body = signRequest(p, minimalUnsigned(p, { title: 'derived', derived_from: [source.ctx_id] }))
    const first = await publish(registry.app, body, { 'idempotency-key': 'k', 'x-run-id': 'run-1' })
    await publish(registry.app, body, { 'idempotency-key': 'k', 'x-run-id': 'run-2' })
    const { ctx_id, lineage_id } = first.json() as { ctx_id: string; lineage_id: string }
    await registry.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctx_id)}` })
    const published = webhooks.events.filter((e) => e.type === 'context_published')
    expect(published).toHaveLength(2)
    expect(published[1]).toEqual({
      type: 'context_published',
      registry_authority: 'registry.example.com',
      registry_base_url: 'https://registry.example.com',
      ctx_id: ctx_id.slice('acdp://'.length),
      lineage_id,
      agent_id: p.did,
      context_type: 'data_snapshot',
      visibility: 'public',
      version: 1,
      created_at: '2026-05-01T12:00:00.000Z',
      derived_from: [source.ctx_id.slice('acdp://'.length)],
      run_id: 'run-1',
    })
    expect(webhooks.events.filter((e) => e.type === 'context_retrieved')).toEqual([
      {
        type: 'context_retrieved',
        registry_authority: 'registry.example.com',
        ctx_id: ctx_id.slice('acdp://'.length),
        requester_did: null,
        at: '2026-05-01T12:00:00.000Z',
      },
    ])
  })
})

describe('metrics wiring', () => {
  it('counts publish outcomes by wire code on GET /metrics when metrics are enabled', async () => {
    registry = await createTestRegistry({
      config: { metrics: { enabled: true } },
      deps: { metrics: createRegistryMetrics() },
    })
    const p = didKeyProducer()
    const body = signRequest(p, minimalUnsigned(p))
    await publish(registry.app, body, { 'idempotency-key': 'k' })
    await publish(registry.app, body, { 'idempotency-key': 'k' })
    await publish(registry.app, { ...body, title: 'tampered' })
    const text = (await registry.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(text).toContain('acdp_registry_publish_total{outcome="inserted"} 1')
    expect(text).toContain('acdp_registry_publish_total{outcome="idempotent_replay"} 1')
    expect(text).toContain('acdp_registry_publish_total{outcome="hash_mismatch"} 1')
  })

  it('does not mount /metrics when metrics are disabled', async () => {
    registry = await createTestRegistry()
    expect((await registry.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404)
  })
})
