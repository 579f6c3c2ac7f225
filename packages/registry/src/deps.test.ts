import { describe, expect, it } from 'vitest'
import { createRandomPool } from './deps.js'

describe('createRandomPool', () => {
  it('never hands out the same bytes twice, across refills', () => {
    const random = createRandomPool(64)
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const bytes = random(16)
      expect(bytes).toHaveLength(16)
      const hex = Buffer.from(bytes).toString('hex')
      expect(seen.has(hex)).toBe(false)
      seen.add(hex)
    }
  })

  it('returns independent copies and serves large requests directly', () => {
    const random = createRandomPool(64)
    const a = random(8)
    const copy = Uint8Array.from(a)
    random(8)
    expect(a).toEqual(copy)
    expect(random(1000)).toHaveLength(1000)
  })
})
