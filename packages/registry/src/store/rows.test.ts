import { describe, expect, it } from 'vitest'
import { searchable } from './rows.js'

describe('searchable', () => {
  it('replaces U+0000 (which PostgreSQL text cannot hold) with U+FFFD and leaves everything else alone', () => {
    expect(searchable('a\u0000b\u0000')).toBe('a\ufffdb\ufffd')
    expect(searchable('plain \u0001 text é')).toBe('plain \u0001 text é')
    expect(searchable(null)).toBeNull()
  })
})
