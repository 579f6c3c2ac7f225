import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import {
  describeConformance,
  type Fixture,
  loadFixtures,
  reportMissingConformance,
} from '../../../../test/support/conformance.js'
import { CapabilitiesDocument, checkCapabilitiesConsistency } from './capabilities.js'
import { ContextBody } from './context-body.js'
import { DataRef } from './data-ref.js'
import { PublishRequest } from './publish-request.js'
import { PublishResponse } from './publish-response.js'
import { REGISTRY_ERROR_CODES, RegistryErrorEnvelope } from './registry-error.js'

reportMissingConformance('wire schemas')

const capabilities = Compile(CapabilitiesDocument)
const publishRequest = Compile(PublishRequest)
const publishResponse = Compile(PublishResponse)
const errorEnvelope = Compile(RegistryErrorEnvelope)
const dataRef = Compile(DataRef)
const contextBody = Compile(ContextBody)

/** A capabilities document is accepted when the schema and the §3.5 cross-field checks both pass. */
function acceptsCapabilities(doc: unknown): boolean {
  return capabilities.Check(doc) && checkCapabilitiesConsistency(doc as CapabilitiesDocument).length === 0
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.')
  let node = target
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>
  node[parts.at(-1) as string] = value
}

const minimalRequest = {
  version: 1,
  supersedes: null,
  agent_id: 'did:web:agents.example.com:test-producer',
  contributors: [],
  content_hash: `sha256:${'0'.repeat(64)}`,
  signature: {
    algorithm: 'ed25519',
    key_id: 'did:web:agents.example.com:test-producer#key-1',
    value: 'A'.repeat(86) + '==',
  },
  title: 'Minimal',
  type: 'data_snapshot',
  data_refs: [],
  derived_from: [],
  visibility: 'public',
}

describe('wire schemas on hand-made documents', () => {
  it('accepts the minimal first version of a publish request', () => {
    expect(publishRequest.Check(minimalRequest)).toBe(true)
  })
  it('keeps DataRef root open and accepts a structured locator', () => {
    expect(dataRef.Check({ type: 'raw_data', location: { scheme: 'kafka.offset', topic: 't' }, x_extra: 1 })).toBe(true)
  })
  it('accepts an error envelope without details', () => {
    expect(errorEnvelope.Check({ error: { code: 'internal_error', message: 'x' } })).toBe(true)
  })
  it('knows every code of the protocol error enum', () => {
    expect(REGISTRY_ERROR_CODES).toContain('invalid_witness_cosignature')
    expect(new Set(REGISTRY_ERROR_CODES).size).toBe(REGISTRY_ERROR_CODES.length)
  })
})

describeConformance('capabilities documents (caps-*, schema-004/010/014, idem-007)', () => {
  const fixtures = [
    ...loadFixtures('caps-'),
    ...loadFixtures('idem-007'),
    ...loadFixtures('schema-004'),
    ...loadFixtures('schema-014'),
  ]
  it.each(fixtures.map((f) => [f.id, f] as [string, Fixture]))('%s', (_id, fx) => {
    const inputs = Array.isArray(fx.input) ? fx.input : [fx.input]
    const expectedAccept = (fx.expected.outcome ?? fx.expected.consumer_outcome) === 'accept'
    for (const input of inputs) expect(acceptsCapabilities(input.response_body)).toBe(expectedAccept)
    for (const variant of fx.reject_variants ?? []) {
      const doc = structuredClone(fx.input.response_body)
      for (const [path, value] of Object.entries(variant.response_body_override)) setPath(doc, path, value)
      expect(acceptsCapabilities(doc)).toBe(false)
    }
  })
  it('rejects an unknown member inside limits (schema-010)', () => {
    const [fx] = loadFixtures('schema-010')
    const doc = structuredClone(loadFixtures('caps-001')[0]?.input.response_body)
    expect(capabilities.Check(doc)).toBe(true)
    doc.limits = fx?.input.response_body_excerpt.limits
    expect(capabilities.Check(doc)).toBe(false)
  })
})

describeConformance('publish request and its parts (schema-002/003/008/009/011/012/013, data-ref-*)', () => {
  it.each([
    ['schema-003', 'data_refs', (fx: Fixture) => fx.input.request_body_excerpt.data_refs],
    ['schema-008', 'signature', (fx: Fixture) => fx.input.request_body_excerpt.signature],
    ['schema-009', 'data_period', (fx: Fixture) => fx.input.request_body_excerpt.data_period],
  ] as const)('%s: closed sub-object with an extra member is rejected', (id, field, pick) => {
    const [fx] = loadFixtures(id)
    if (!fx) throw new Error(`fixture ${id} missing`)
    expect(publishRequest.Check({ ...minimalRequest, [field]: pick(fx) })).toBe(false)
  })
  const dataRefFixtures = [
    ...loadFixtures('data-ref-00'),
    ...loadFixtures('schema-011'),
    ...loadFixtures('schema-012'),
  ].filter((f) => f.expected.error_code === 'schema_violation')
  it('has schema-invalid DataRef fixtures', () => {
    expect(dataRefFixtures.length).toBeGreaterThan(0)
  })
  it.each(dataRefFixtures.map((f) => [f.id, f] as [string, Fixture]))('%s: DataRef is schema-invalid', (_id, fx) => {
    expect(dataRef.Check(fx.input.data_ref_under_test)).toBe(false)
  })
  it('rejects a publish response echoing content_hash (schema-002)', () => {
    const [fx] = loadFixtures('schema-002')
    const body = fx?.input.response_body
    expect(publishResponse.Check(body)).toBe(false)
    const { content_hash: _dropped, ...rest } = body
    expect(publishResponse.Check(rest)).toBe(true)
  })
  it('rejects error.details = null (schema-013)', () => {
    const [fx] = loadFixtures('schema-013')
    expect(fx?.input.response_body.error).toBeDefined()
    expect(errorEnvelope.Check(fx?.input.response_body)).toBe(false)
  })
})

describeConformance('context body (body-001, body-002)', () => {
  const body = {
    ...minimalRequest,
    ctx_id: 'acdp://registry.example.com/00000000-0000-4000-8000-000000000001',
    lineage_id: `lin:sha256:${'a'.repeat(64)}`,
    origin_registry: 'registry.example.com',
    created_at: '2026-04-16T10:30:15.123Z',
    unknown_future_field: true,
  }
  it.each(loadFixtures('body-').map((f) => [f.id, f] as [string, Fixture]))('%s', (_id, fx) => {
    const candidate = { ...body, ...fx.input.body_fields_under_test }
    expect(contextBody.Check(candidate)).toBe(fx.expected.outcome === 'accept')
  })
})
