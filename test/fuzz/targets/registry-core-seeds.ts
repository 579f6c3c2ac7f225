/**
 * The seeds every registry fuzz target shares (health, capabilities, four publishes, retrieval, search, lineage,
 * metrics). Each target passes its own `publishSeed`, which adds what its configuration needs (a bearer, …).
 */
import type { Producer } from '../../../packages/registry/test/support/registry-harness.js'
import type { FuzzSeed } from '../seed.js'

export interface CoreSeedInput {
  keyProducer: Producer
  webProducer: Producer
  p256Producer: Producer
  /** A context published during setup: supersession, derivation, retrieval and lineage seeds name it. */
  parent: { ctx_id: string; lineage_id: string }
  publishSeed: (producer: Producer, overrides: Record<string, unknown>, headers?: Record<string, string>) => FuzzSeed
}

export function coreRegistrySeeds({
  keyProducer,
  webProducer,
  p256Producer,
  parent,
  publishSeed,
}: CoreSeedInput): FuzzSeed[] {
  const encoded = encodeURIComponent(parent.ctx_id)
  return [
    { route: 'GET /healthz', method: 'GET', path: '/healthz', headers: {} },
    { route: 'GET /.well-known/acdp.json', method: 'GET', path: '/.well-known/acdp.json', headers: {} },
    publishSeed(keyProducer, { title: 'fuzz minimal' }),
    publishSeed(
      webProducer,
      {
        title: 'fuzz full',
        summary: 'every optional member',
        tags: ['a', 'b'],
        derived_from: [parent.ctx_id],
        data_refs: [
          { type: 'primary_result', format: 'application/json', embedded: { encoding: 'json', content: { x: [1] } } },
          { type: 'raw_data', location: 'https://data.example.com/x.csv', size_bytes: 10 },
        ],
      },
      { 'idempotency-key': 'fuzz-key-1', 'x-run-id': 'run-fuzz-1' },
    ),
    publishSeed(p256Producer, { title: 'fuzz p256', visibility: 'public', type: 'analysis' }),
    publishSeed(keyProducer, {
      title: 'fuzz superseding',
      version: 2,
      supersedes: parent.ctx_id,
    }),
    { route: 'GET /contexts/*', method: 'GET', path: `/contexts/${encoded}`, headers: {} },
    { route: 'GET /contexts/*', method: 'GET', path: `/contexts/${encoded}/body`, headers: {} },
    {
      route: 'GET /contexts/search',
      method: 'GET',
      path: `/contexts/search?q=fuzz&agent_id=${encodeURIComponent(keyProducer.did)}&tags=fuzz&limit=5`,
      headers: {},
    },
    { route: 'GET /contexts/search', method: 'GET', path: '/contexts/search?type=data_snapshot', headers: {} },
    { route: 'GET /lineages/:lineage_id', method: 'GET', path: `/lineages/${parent.lineage_id}`, headers: {} },
    {
      route: 'GET /lineages/:lineage_id/current',
      method: 'GET',
      path: `/lineages/${parent.lineage_id}/current`,
      headers: {},
    },
    { route: 'GET /metrics', method: 'GET', path: '/metrics', headers: {} },
  ]
}
