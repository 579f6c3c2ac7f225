import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RegistryError } from './errors.js'
import { authorityOf, contextLocation, formatUuidV4, isCtxId, mintCtxId, parseCtxIdPath } from './context-id.js'

const ID = 'acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000'

describe('minting', () => {
  it('always yields a well-formed v4 ctx_id, whatever the random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const ctxId = mintCtxId('registry.example.com', () => bytes)
        expect(isCtxId(ctxId)).toBe(true)
        expect(formatUuidV4(bytes)).toBe(ctxId.slice(-36))
      }),
    )
  })

  it('encodes the Location exactly as pub-007 shows', () => {
    expect(contextLocation(ID)).toBe(
      '/contexts/acdp%3A%2F%2Fregistry.example.com%2F550e8400-e29b-41d4-a716-446655440000',
    )
    expect(authorityOf(ID)).toBe('registry.example.com')
  })
})

describe('parseCtxIdPath (attacker-controlled)', () => {
  it.each([
    ['percent-encoded', encodeURIComponent(ID)],
    ['decoded', ID],
    ['path-style', ID.slice('acdp://'.length)],
  ])('accepts the %s form', (_name, path) => {
    expect(parseCtxIdPath(path)).toBe(ID)
  })

  it.each([
    ['empty', ''],
    ['bad percent-encoding', '%E0%A4%A'],
    ['a lone percent', '%'],
    ['uppercase UUID', ID.toUpperCase()],
    ['extra segment', `${encodeURIComponent(ID)}%2Fextra`],
    ['other scheme', 'https://registry.example.com/550e8400-e29b-41d4-a716-446655440000'],
  ])('refuses %s with schema_violation, never a raw URIError', (_name, path) => {
    expect(() => parseCtxIdPath(path)).toThrow(RegistryError)
    try {
      parseCtxIdPath(path)
    } catch (error) {
      expect((error as RegistryError).code).toBe('schema_violation')
    }
  })

  it('throws only RegistryError for arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (path) => {
        try {
          parseCtxIdPath(path)
        } catch (error) {
          expect(error).toBeInstanceOf(RegistryError)
        }
      }),
    )
  })
})
