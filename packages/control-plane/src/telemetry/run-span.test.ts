import { describe, expect, it } from 'vitest'
import type { StoredEvent } from '../store/schema.js'
import { describeRunSpan, MAX_SPAN_LINKS } from './run-span.js'

let sequence = 0

/** A committed context_published event of tenant acme in run-1; `overrides` win. */
function stored(overrides: Partial<StoredEvent> = {}): StoredEvent {
  sequence += 1
  return {
    id: sequence,
    tenantId: 'acme',
    eventId: `evt-${sequence}`,
    type: 'context_published',
    ts: '2026-01-15T11:59:00.000Z',
    receivedAt: '2026-01-15T11:59:00.250Z',
    runId: 'run-1',
    ctxId: `acdp://reg.example/ctx-${sequence}`,
    lineageId: 'lin:1',
    agentId: 'did:key:z6MkAgent',
    contextType: 'analysis',
    visibility: 'public',
    version: 1,
    derivedFrom: [],
    registryAuthority: 'reg.example',
    scenarioId: null,
    keyFingerprint: null,
    receiptPresent: true,
    payload: {},
    ...overrides,
  }
}

describe('describeRunSpan', () => {
  it('gives every event of a run the same trace id, and other runs and tenants other ones', () => {
    const a = describeRunSpan(stored(), true)
    const b = describeRunSpan(stored(), true)
    const otherRun = describeRunSpan(stored({ runId: 'run-2' }), true)
    const otherTenant = describeRunSpan(stored({ tenantId: 'globex' }), true)
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(b.traceId).toBe(a.traceId)
    expect(otherRun.traceId).not.toBe(a.traceId)
    expect(otherTenant.traceId).not.toBe(a.traceId)
  })

  it("parents a derived context on its first parent's span, whenever and wherever that was described", () => {
    const parent = stored({ ctxId: 'acdp://reg.example/parent' })
    const second = stored({ ctxId: 'acdp://reg.example/second' })
    const child = stored({ derivedFrom: ['acdp://reg.example/parent', 'acdp://reg.example/second'] })
    const childSpan = describeRunSpan(child, true)
    // Described after the child, as another instance exporting later would.
    const parentSpan = describeRunSpan(parent, true)
    const secondSpan = describeRunSpan(second, true)
    expect(childSpan.parentSpanId).toBe(parentSpan.spanId)
    expect(childSpan.links).toEqual([{ traceId: childSpan.traceId, spanId: secondSpan.spanId }])
    expect(parentSpan.parentSpanId).toBeUndefined()
    expect(new Set([childSpan.spanId, parentSpan.spanId, secondSpan.spanId]).size).toBe(3)
  })

  it('bounds the links of a context with many parents and counts the rest as dropped', () => {
    const parents = Array.from({ length: MAX_SPAN_LINKS + 5 }, (_, i) => `acdp://reg.example/p${i}`)
    const span = describeRunSpan(stored({ derivedFrom: parents }), true)
    expect(span.links).toHaveLength(MAX_SPAN_LINKS)
    expect(span.droppedLinksCount).toBe(4)
  })

  it("makes a retraction (any non-publication naming a ctx_id) a child of that context's publication", () => {
    const published = describeRunSpan(stored({ ctxId: 'acdp://reg.example/x' }), true)
    const retracted = describeRunSpan(
      stored({ type: 'context_retracted', ctxId: 'acdp://reg.example/x', contextType: null }),
      true,
    )
    expect(retracted.parentSpanId).toBe(published.spanId)
    expect(retracted.spanId).not.toBe(published.spanId)
    expect(retracted.name).toBe('context_retracted')
  })

  it('falls back to a lineage trace, then to a trace of the event alone', () => {
    const byLineage = [
      describeRunSpan(stored({ runId: null, lineageId: 'lin:9' }), true),
      describeRunSpan(stored({ runId: null, lineageId: 'lin:9' }), true),
    ]
    expect(byLineage[1]?.traceId).toBe(byLineage[0]?.traceId)
    const alone = describeRunSpan(stored({ runId: null, lineageId: null }), true)
    const aloneToo = describeRunSpan(stored({ runId: null, lineageId: null }), true)
    expect(alone.traceId).not.toBe(aloneToo.traceId)
  })

  it('derives an event span id from the store sequence when the event has no event id', () => {
    const event = stored({ type: 'search_executed', ctxId: null, eventId: null, contextType: null })
    const again = describeRunSpan({ ...event }, true)
    expect(describeRunSpan(event, true).spanId).toBe(again.spanId)
    expect(describeRunSpan({ ...event, id: event.id + 1 }, true).spanId).not.toBe(again.spanId)
  })

  it('spans from the event time to the arrival, never ending before it starts', () => {
    const span = describeRunSpan(stored(), true)
    expect(span.startTimeMs).toBe(Date.parse('2026-01-15T11:59:00.000Z'))
    expect(span.endTimeMs).toBe(Date.parse('2026-01-15T11:59:00.250Z'))
    const skewed = describeRunSpan(stored({ receivedAt: '2026-01-15T11:58:00.000Z' }), true)
    expect(skewed.endTimeMs).toBe(skewed.startTimeMs)
  })

  it('carries the acdp.* facts and the GenAI agent attributes, omitting absent members', () => {
    const event = stored({ derivedFrom: ['acdp://reg.example/p'], receiptPresent: false })
    expect(describeRunSpan(event, false)).toMatchObject({
      name: 'context_published analysis',
      attributes: {
        'acdp.event_type': 'context_published',
        'acdp.event_id': event.eventId,
        'acdp.ctx_id': event.ctxId,
        'acdp.lineage_id': 'lin:1',
        'acdp.run_id': 'run-1',
        'acdp.agent_did': 'did:key:z6MkAgent',
        'acdp.registry': 'reg.example',
        'acdp.receipt_present': false,
        'acdp.verified': false,
        'acdp.derived_from': ['acdp://reg.example/p'],
        'acdp.tenant_id': 'acme',
        'gen_ai.agent.id': 'did:key:z6MkAgent',
        'gen_ai.conversation.id': 'run-1',
      },
    })
    const bare = describeRunSpan(stored({ agentId: null, runId: null, scenarioId: null }), true)
    expect(Object.keys(bare.attributes)).not.toContain('gen_ai.agent.id')
    expect(Object.keys(bare.attributes)).not.toContain('acdp.scenario_id')
    expect(Object.keys(bare.attributes)).not.toContain('acdp.derived_from')
  })
})
