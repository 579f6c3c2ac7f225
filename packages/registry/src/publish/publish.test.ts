import { parseJsonStrict } from '@acdp/protocol'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendRegistryFields } from './publish.js'

const FIELDS = {
  ctx_id: 'acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000',
  origin_registry: 'registry.example.com',
  created_at: '2026-04-16T10:30:15.123Z',
}

describe('appendRegistryFields', () => {
  it('keeps every producer byte and adds exactly the registry members', () => {
    const text = '\n { "a" : 1.0, "b": "caf\\u00e9" }  \n'
    expect(appendRegistryFields(text, FIELDS)).toBe(
      '{ "a" : 1.0, "b": "caf\\u00e9","ctx_id":"acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000","origin_registry":"registry.example.com","created_at":"2026-04-16T10:30:15.123Z"}',
    )
  })

  it('yields the producer object plus the registry members for any object and any indentation', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((k) => !(k in FIELDS)),
          fc.jsonValue(),
          { minKeys: 1 },
        ),
        fc.integer({ min: 0, max: 4 }),
        (object, indent) => {
          const text = JSON.stringify(object, null, indent)
          const out = parseJsonStrict(appendRegistryFields(text, FIELDS)) as Record<string, unknown>
          expect(out).toEqual({ ...(JSON.parse(text) as object), ...FIELDS })
          expect(appendRegistryFields(text, FIELDS).startsWith(text.trim().slice(0, -1).trimEnd())).toBe(true)
        },
      ),
    )
  })
})
