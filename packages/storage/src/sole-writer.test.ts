import { describe, expect, it } from 'vitest'
import { hasSoleWriter } from './sole-writer.js'

describe('hasSoleWriter', () => {
  it('is true for the embedded SQLite file and false for a database several instances may share', () => {
    expect(hasSoleWriter('sqlite')).toBe(true)
    expect(hasSoleWriter('postgres')).toBe(false)
  })
})
