import {
  ContextPublishedWebhookEvent,
  ContextRepublishedWebhookEvent,
  ContextRetractedWebhookEvent,
  ContextRetrievedWebhookEvent,
  SearchExecutedWebhookEvent,
} from '@acdp/protocol'
import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import {
  contextLifecycleBody,
  contextPublishedBody,
  contextRetrievedBody,
  searchExecutedBody,
} from './webhook-event-bodies.js'

const ORIGIN = { authority: 'registry.example.com', baseUrl: 'https://registry.example.com' }
const CTX = 'acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000'
const PARENT = 'acdp://registry.example.com/6ba7b810-9dad-41d1-80b4-00c04fd430c8'
const AT = '2026-05-01T12:00:00.000Z'
const LINEAGE = `lin:sha256:${'c'.repeat(64)}`

/** What the dispatcher adds before sending, so the whole envelope can be checked against its closed schema. */
const envelope = (fields: object) => ({
  ...fields,
  event_id: '0b6f3c1e-8a47-4c4e-9a39-5d2f1f7e8a10',
  schema_version: '1.0',
})
const errorsOf = (schema: TSchema, fields: object) => [...Value.Errors(schema, envelope(fields))]

describe('webhook event bodies', () => {
  it('build context_published in the protocol shape, ctx_ids in the event form, without receipt members', () => {
    const body = contextPublishedBody(ORIGIN, {
      type: 'context_published',
      ctx_id: CTX,
      lineage_id: LINEAGE,
      agent_id: 'did:web:agents.example.com:collector',
      context_type: 'analysis',
      visibility: 'public',
      version: 1,
      created_at: AT,
      derived_from: [PARENT],
      tenant_id: 'default',
    })
    expect(errorsOf(ContextPublishedWebhookEvent, body)).toEqual([])
    expect(body.ctx_id).toBe('registry.example.com/550e8400-e29b-41d4-a716-446655440000')
    expect(body.derived_from).toEqual(['registry.example.com/6ba7b810-9dad-41d1-80b4-00c04fd430c8'])
    expect(Object.keys(body)).not.toContain('tenant_id')
    expect(Object.keys(body)).not.toContain('registry_receipt')
  })

  it('build context_retrieved and search_executed for an anonymous caller', () => {
    const retrieved = contextRetrievedBody(ORIGIN, {
      type: 'context_retrieved',
      ctx_id: CTX,
      requester_did: null,
      tenant_id: 'default',
      at: AT,
    })
    expect(errorsOf(ContextRetrievedWebhookEvent, retrieved)).toEqual([])
    const search = searchExecutedBody(ORIGIN.authority, {
      query: { q: 'rain', status: 'active', limit: 20 },
      resultCount: 3,
      requesterDid: null,
      at: AT,
    })
    expect(errorsOf(SearchExecutedWebhookEvent, search)).toEqual([])
  })

  it('build context_retracted with its reason and context_republished without one', () => {
    const event = {
      type: 'context_lifecycle' as const,
      ctx_id: CTX,
      lineage_id: LINEAGE,
      actor: 'did:web:agents.example.com:collector',
      lifecycle_event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e2f',
      tenant_id: 'default',
      at: AT,
    }
    const retracted = contextLifecycleBody(ORIGIN, { ...event, event_type: 'retracted', reason: 'withdrawn' })
    expect(retracted.type).toBe('context_retracted')
    expect(errorsOf(ContextRetractedWebhookEvent, retracted)).toEqual([])
    const republished = contextLifecycleBody(ORIGIN, { ...event, event_type: 'republished' })
    expect(republished.type).toBe('context_republished')
    expect(errorsOf(ContextRepublishedWebhookEvent, republished)).toEqual([])
    expect(Object.keys(republished)).not.toContain('reason')
  })
})
