import { describe, expect, it } from 'vitest'
import { mapLimit } from './map-limit.js'

describe('mapLimit', () => {
  it('keeps input order and never has more than `limit` in flight', async () => {
    let inFlight = 0
    let peak = 0
    const results = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n, i) => {
      inFlight++
      peak = Math.max(peak, inFlight)
      await new Promise((resolve) => setTimeout(resolve, n))
      inFlight--
      return `${i}:${n}`
    })
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:6'])
    expect(peak).toBe(3)
  })

  it('answers an empty list with an empty list', async () => {
    expect(await mapLimit([], 4, async () => 1)).toEqual([])
  })

  it('rejects when one piece of work rejects', async () => {
    await expect(
      mapLimit([1, 2], 4, async (n) => {
        if (n === 2) throw new Error('boom')
        return n
      }),
    ).rejects.toThrow('boom')
  })
})
