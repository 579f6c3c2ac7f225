import { describe, expect, it } from 'vitest'
import { canonicalize } from '../jcs/canonicalize.js'
import { parseJsonStrict } from '../jcs/parse-json-strict.js'
import { computeContentHash, extractProducerContent, PRODUCER_CONTENT_EXCLUSIONS } from './content-hash.js'
import { deriveLineageId } from './lineage-id.js'
import { sha256String } from './sha256.js'

describe('ProducerContent and content_hash', () => {
  it('excludes exactly the six RFC-ACDP-0001 §5.7 names', () => {
    expect([...PRODUCER_CONTENT_EXCLUSIONS].sort()).toEqual(
      ['content_hash', 'created_at', 'ctx_id', 'lineage_id', 'origin_registry', 'signature'].sort(),
    )
  })

  it('removes excluded members by name whatever their value, and keeps unknown members', () => {
    const body = {
      title: 't',
      priority: 'high',
      registry_state: { status: 'active' },
      ctx_id: 42,
      lineage_id: null,
      origin_registry: { spoof: true },
      created_at: [],
      content_hash: 'x',
      signature: 'not an object',
    }
    expect(extractProducerContent(body)).toEqual({ title: 't', priority: 'high', registry_state: { status: 'active' } })
    expect(body).toHaveProperty('ctx_id', 42)
  })

  it('keeps a "__proto__" member so it stays covered by the hash', () => {
    const body = parseJsonStrict('{"__proto__":{"x":1},"title":"t","signature":{}}') as Record<string, unknown>
    const content = extractProducerContent(body)
    expect(Object.keys(content)).toEqual(['__proto__', 'title'])
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype)
    expect(computeContentHash(body)).toBe(sha256String('{"__proto__":{"x":1},"title":"t"}'))
  })

  it('hashes a full body and its bare producer content to the same value', () => {
    const content = { version: 1, title: 'x', data_refs: [] }
    const full = { ...content, ctx_id: 'acdp://r.example/1', created_at: '2026-01-01T00:00:00.000Z', content_hash: 'z' }
    expect(computeContentHash(full)).toBe(computeContentHash(content))
    expect(computeContentHash(content)).toBe(sha256String(canonicalize(content)))
  })

  it('refuses a non-object body as caller misuse', () => {
    expect(() => extractProducerContent([] as unknown as Record<string, unknown>)).toThrow(TypeError)
    expect(() => extractProducerContent(null as unknown as Record<string, unknown>)).toThrow(TypeError)
  })
})

describe('deriveLineageId', () => {
  it('hashes the full ctx_id string including scheme and authority', () => {
    const ctxId = 'acdp://a.example/00000000-0000-4000-8000-000000000001'
    expect(deriveLineageId(ctxId)).toBe(`lin:${sha256String(ctxId)}`)
    expect(deriveLineageId(ctxId)).not.toBe(deriveLineageId(ctxId.replace('a.example', 'b.example')))
    expect(() => deriveLineageId('')).toThrow(TypeError)
  })
})
