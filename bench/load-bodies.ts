/**
 * Request bodies the load benchmarks send, in one place so every bench offers the same load: a registry publish
 * (bench/registry.ts, bench/idle-rss.ts) and a registry's signed context_published webhook as the control plane
 * ingests it (bench/control-plane.ts, bench/idle-rss.ts).
 */
import type { createProducerKey } from '@acdp/protocol'

type ProducerKey = ReturnType<typeof createProducerKey>
type Protocol = Pick<typeof import('@acdp/protocol'), 'buildPublishRequest' | 'completeProducerContent'>

/**
 * The `index`-th publish request body, signed by one of `producers` (round robin): distinct content for every
 * index, so no two are idempotent replays.
 */
export function signedPublishBody(protocol: Protocol, producers: readonly ProducerKey[], index: number): string {
  const key = producers[index % producers.length]!
  const content = protocol.completeProducerContent(
    {
      type: 'data_snapshot',
      title: `Bench observation ${index}`,
      summary: `Synthetic reading number ${index} for the registry benchmark`,
      domain: 'benchmarks',
      tags: ['bench', `shard-${index % 16}`],
      metadata: { sequence: index, value: (index * 7919) % 10_007 },
    },
    key,
  )
  return JSON.stringify(
    protocol.buildPublishRequest({
      body: content,
      algorithm: key.algorithm,
      privateKey: key.privateKey,
      keyId: key.keyId,
    }),
  )
}

/**
 * The `sequence`-th context_published webhook body of registry `authority`: distinct event and ctx ids, runs of
 * 20 consecutive events. `type` replaces the event type (the SSE warm-up uses one the clients do not count).
 */
export function publishedEventBody(
  authority: string,
  sequence: number,
  createdAt: string,
  type = 'context_published',
): string {
  const suffix = sequence.toString(16).padStart(12, '0')
  return JSON.stringify({
    event_id: `b0000000-0000-4000-8000-${suffix}`,
    schema_version: '1.0',
    type,
    registry_authority: authority,
    registry_base_url: `https://${authority}`,
    ctx_id: `acdp://${authority}/c0000000-0000-4000-8000-${suffix}`,
    lineage_id: `lin:sha256:${'ab'.repeat(32)}`,
    agent_id: `did:key:z6MkBenchAgent${sequence % 50}`,
    context_type: 'analysis',
    visibility: 'public',
    version: 1,
    created_at: createdAt,
    derived_from:
      sequence % 5 === 0
        ? [`acdp://${authority}/c0000000-0000-4000-8000-${(sequence - 1).toString(16).padStart(12, '0')}`]
        : [],
    run_id: `bench-run-${Math.floor(sequence / 20)}`,
  })
}
