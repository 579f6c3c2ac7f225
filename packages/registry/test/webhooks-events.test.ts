import { describe, expect, it } from 'vitest'
import { RegistryEvents } from '../src/services/registry-events.js'
import type { RegistryWebhookEvent } from '../src/services/webhooks.js'
import { subscribeWebhookEvents } from '../src/services/webhooks-events.js'

const SETTINGS = { registryAuthority: 'registry.example.com', registryBaseUrl: 'https://registry.example.com' }
const CTX = 'acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000'
const SOURCE = 'acdp://other.example.com/11111111-1111-4111-8111-111111111111'

function subscribed() {
  const events = new RegistryEvents()
  const emitted: RegistryWebhookEvent[] = []
  const emit = (event: RegistryWebhookEvent) => {
    emitted.push(event)
    return 'event-id'
  }
  const off = subscribeWebhookEvents(events, { emit }, SETTINGS)
  return { events, emitted, off }
}

describe('registry events to webhook events', () => {
  it('turns a first publish into context_published with event-form ids and the echoed run_id', () => {
    const { events, emitted } = subscribed()
    events.emit({
      type: 'context_published',
      ctx_id: CTX,
      lineage_id: 'lin:sha256:ca770dc5d7c41109753bd3d045c2b7bd4cf687ab9cd2552ff17a37bcecbd0810',
      agent_id: 'did:key:z6Mk',
      context_type: 'data_snapshot',
      visibility: 'public',
      version: 1,
      created_at: '2026-05-01T12:00:00.000Z',
      derived_from: [SOURCE],
      run_id: 'run-7',
    })
    expect(emitted).toEqual([
      {
        type: 'context_published',
        registry_authority: 'registry.example.com',
        registry_base_url: 'https://registry.example.com',
        ctx_id: 'registry.example.com/550e8400-e29b-41d4-a716-446655440000',
        lineage_id: 'lin:sha256:ca770dc5d7c41109753bd3d045c2b7bd4cf687ab9cd2552ff17a37bcecbd0810',
        agent_id: 'did:key:z6Mk',
        context_type: 'data_snapshot',
        visibility: 'public',
        version: 1,
        created_at: '2026-05-01T12:00:00.000Z',
        derived_from: ['other.example.com/11111111-1111-4111-8111-111111111111'],
        run_id: 'run-7',
      },
    ])
  })

  it('omits run_id when the publish carried no X-Run-Id', () => {
    const { events, emitted } = subscribed()
    events.emit({
      type: 'context_published',
      ctx_id: CTX,
      lineage_id: 'lin:sha256:00',
      agent_id: 'did:key:z6Mk',
      context_type: 'data_snapshot',
      visibility: 'private',
      version: 2,
      created_at: '2026-05-01T12:00:00.000Z',
      derived_from: [],
    })
    expect(emitted).toHaveLength(1)
    expect(Object.hasOwn(emitted[0]!, 'run_id')).toBe(false)
  })

  it('turns a retrieval into context_retrieved, null requester for anonymous reads', () => {
    const { events, emitted } = subscribed()
    events.emit({ type: 'context_retrieved', ctx_id: CTX, requester_did: null, at: '2026-05-01T12:00:01.000Z' })
    expect(emitted).toEqual([
      {
        type: 'context_retrieved',
        registry_authority: 'registry.example.com',
        ctx_id: 'registry.example.com/550e8400-e29b-41d4-a716-446655440000',
        requester_did: null,
        at: '2026-05-01T12:00:01.000Z',
      },
    ])
  })

  it('sends nothing for publish outcomes, and nothing at all after unsubscribing', () => {
    const { events, emitted, off } = subscribed()
    events.emit({ type: 'publish_outcome', outcome: 'idempotent_replay' })
    off()
    events.emit({ type: 'context_retrieved', ctx_id: CTX, requester_did: null, at: '2026-05-01T12:00:01.000Z' })
    expect(emitted).toEqual([])
  })
})
