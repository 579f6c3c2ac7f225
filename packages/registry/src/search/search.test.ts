import { describe, expect, it } from 'vitest'
import { RegistryError } from '../core/errors.js'
import { parseSearchQuery } from './search.js'

describe('parseSearchQuery', () => {
  it.each(['q', 'type', 'domain', 'schema_uri', 'tags', 'agent_id', 'cursor', 'status'])(
    'refuses U+0000 in %s with schema_violation naming the parameter (PostgreSQL cannot take it)',
    (parameter) => {
      let thrown: unknown
      try {
        parseSearchQuery({ [parameter]: 'a\u0000b' }, 20, 100)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(RegistryError)
      expect((thrown as RegistryError).code).toBe('schema_violation')
      expect((thrown as RegistryError).details).toEqual({ parameter })
    },
  )

  it('still accepts ordinary filter values', () => {
    const parsed = parseSearchQuery({ q: 'Energy prices', type: 'analysis', domain: 'finance' }, 20, 100)
    expect(parsed.filter).toMatchObject({ terms: ['energy', 'prices'], contextType: 'analysis', domain: 'finance' })
  })
})
