import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { ControlPlaneErrorEnvelope } from './control-plane.js'
import {
  ContextPublishedWebhookEvent,
  ContextRetrievedWebhookEvent,
  RegistryWebhookEvent,
  SearchExecutedWebhookEvent,
  WEBHOOK_EVENT_HEADER_NAMES,
} from './webhook-events.js'

/** Event form of ctx_ids: `<authority>/<id>`, no scheme (product spec registry.md "Resources"). */
const CTX = 'reg.example/0b6f3c1e-8a47-4c4e-9a39-5d2f1f7e8a10'
const PARENT = 'reg.example/1c7f4d2f-9b58-4d5f-8b4a-6e3a2a8f9b21'
const published = {
  event_id: '6b1d2f0c-5e1f-4bde-8f34-0c1e2d3f4a5b',
  schema_version: '1.0',
  type: 'context_published',
  registry_authority: 'reg.example',
  registry_base_url: 'https://reg.example',
  ctx_id: CTX,
  lineage_id: `lin:sha256:${'a'.repeat(64)}`,
  agent_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
  context_type: 'analysis',
  visibility: 'public',
  version: 1,
  created_at: '2026-01-15T12:00:00.000Z',
  derived_from: [PARENT],
}

describe('registry webhook event envelopes', () => {
  it('accept a context_published envelope with and without the optional members', () => {
    expect(Value.Check(ContextPublishedWebhookEvent, published)).toBe(true)
    const full = {
      ...published,
      run_id: 'run-1',
      key_fingerprint: `sha256:${'b'.repeat(64)}`,
      registry_receipt: {
        registry_did: 'did:web:reg.example',
        ctx_id: `acdp://${CTX}`,
        lineage_id: published.lineage_id,
        origin_registry: 'reg.example',
        created_at: published.created_at,
        content_hash: `sha256:${'c'.repeat(64)}`,
        key_fingerprint: `sha256:${'b'.repeat(64)}`,
        signature: { algorithm: 'ed25519', key_id: 'did:web:reg.example#receipt-1', value: 'A'.repeat(86) + '==' },
      },
    }
    expect(Value.Check(ContextPublishedWebhookEvent, full)).toBe(true)
    expect(Value.Check(RegistryWebhookEvent, full)).toBe(true)
    // The receipt is the RFC-ACDP-0010 object, closed like every other member.
    expect(Value.Check(ContextPublishedWebhookEvent, { ...full, registry_receipt: { a: 1 } })).toBe(false)
  })

  it('accept retrieved and search envelopes with a null requester', () => {
    const base = {
      event_id: 'e1',
      schema_version: '1.0',
      registry_authority: 'localhost:8080',
      at: '2026-01-15T12:00:00.000Z',
    }
    expect(
      Value.Check(ContextRetrievedWebhookEvent, {
        ...base,
        type: 'context_retrieved',
        ctx_id: CTX,
        requester_did: null,
      }),
    ).toBe(true)
    expect(
      Value.Check(SearchExecutedWebhookEvent, {
        ...base,
        type: 'search_executed',
        query: { q: 'rain forecast', status: 'active', limit: 20 },
        result_count: 0,
        requester_did: 'did:web:a.example',
      }),
    ).toBe(true)
  })

  it.each([
    ['an unknown member (closed envelope)', { ...published, extra: 1 }],
    ['another schema version', { ...published, schema_version: '2.0' }],
    ['a missing event_id', { ...published, event_id: undefined }],
    ['version 0', { ...published, version: 0 }],
    ['a malformed ctx_id in derived_from', { ...published, derived_from: ['x/not-a-uuid'] }],
    ['a ctx_id in the wire form (with the scheme)', { ...published, ctx_id: `acdp://${CTX}` }],
    ['an uppercase authority', { ...published, registry_authority: 'Reg.Example' }],
  ])('refuse %s', (_name, value) => {
    expect(Value.Check(ContextPublishedWebhookEvent, JSON.parse(JSON.stringify(value)))).toBe(false)
  })

  it('refuse a search query that is not an object of strings and integers', () => {
    const search = {
      event_id: 'e1',
      schema_version: '1.0',
      type: 'search_executed',
      registry_authority: 'reg.example',
      result_count: 0,
      requester_did: null,
      at: '2026-01-15T12:00:00.000Z',
    }
    expect(Value.Check(SearchExecutedWebhookEvent, { ...search, query: { limit: 20 } })).toBe(true)
    expect(Value.Check(SearchExecutedWebhookEvent, { ...search, query: 'q' })).toBe(false)
    expect(Value.Check(SearchExecutedWebhookEvent, { ...search, query: { limit: 1.5 } })).toBe(false)
    expect(Value.Check(SearchExecutedWebhookEvent, { ...search, query: { tags: ['a'] } })).toBe(false)
  })

  it('map body types to the dotted X-ACDP-Event names', () => {
    expect(WEBHOOK_EVENT_HEADER_NAMES).toEqual({
      context_published: 'context.published',
      context_retrieved: 'context.retrieved',
      search_executed: 'search.executed',
      context_retracted: 'context.retracted',
      context_republished: 'context.republished',
    })
  })

  it('accept a lifecycle event without reason and refuse an unknown member (closed)', () => {
    const retracted = {
      event_id: 'e-1',
      schema_version: '1.0',
      registry_authority: 'registry.example.com',
      type: 'context_retracted',
      ctx_id: 'registry.example.com/12345678-1234-4321-8123-123456781234',
      lineage_id: `lin:sha256:${'a'.repeat(64)}`,
      actor: 'did:web:agents.example.com:p',
      lifecycle_event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e2f',
      at: '2026-07-04T09:15:42.000Z',
    }
    expect(Value.Check(RegistryWebhookEvent, retracted)).toBe(true)
    expect(Value.Check(RegistryWebhookEvent, { ...retracted, type: 'context_republished', reason: 'ok' })).toBe(true)
    expect(Value.Check(RegistryWebhookEvent, { ...retracted, extra: 1 })).toBe(false)
  })
})

describe('control plane error envelope', () => {
  it('accepts the spec shape and probe extras, refuses a lowercase code', () => {
    expect(Value.Check(ControlPlaneErrorEnvelope, { statusCode: 404, errorCode: 'RUN_NOT_FOUND', message: 'x' })).toBe(
      true,
    )
    expect(
      Value.Check(ControlPlaneErrorEnvelope, {
        statusCode: 503,
        errorCode: 'SERVICE_DRAINING',
        message: 'x',
        ok: false,
      }),
    ).toBe(true)
    expect(Value.Check(ControlPlaneErrorEnvelope, { statusCode: 404, errorCode: 'not_found', message: 'x' })).toBe(
      false,
    )
  })
})
