import { describe, expect, it } from 'vitest'
import { mergeLineage } from './record-node.js'

describe('mergeLineage', () => {
  it('keeps the writes of one superstep together and replaces them with the next superstep', () => {
    const start = { step: -1, ids: [] }
    const first = mergeLineage(start, { step: 1, ids: ['a'] })
    const fanOut = mergeLineage(mergeLineage(first, { step: 2, ids: ['b'] }), { step: 2, ids: ['c'] })
    expect(fanOut).toEqual({ step: 2, ids: ['b', 'c'] })
    expect(mergeLineage(fanOut, { step: 3, ids: ['d'] })).toEqual({ step: 3, ids: ['d'] })
    expect(mergeLineage(fanOut, { step: 1, ids: ['late'] })).toBe(fanOut)
  })
})
