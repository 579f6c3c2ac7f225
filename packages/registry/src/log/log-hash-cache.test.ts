import { describe, expect, it } from 'vitest'
import { LogHashCache } from './log-hash-cache.js'

const hash = (byte: number) => new Uint8Array(32).fill(byte)

describe('LogHashCache', () => {
  it('answers what was stored and nothing else', () => {
    const cache = new LogHashCache<number>(8)
    cache.set(1, hash(1))
    expect(cache.get(1)).toEqual(hash(1))
    expect(cache.get(2)).toBeUndefined()
  })

  it('stays bounded: the oldest generation goes when the young one fills, promoted hits survive', () => {
    const cache = new LogHashCache<number>(4)
    cache.set(1, hash(1))
    cache.set(2, hash(2))
    cache.set(3, hash(3)) // generation {1, 2} becomes old
    expect(cache.get(1)).toEqual(hash(1)) // promoted into the young generation {3, 1}
    cache.set(4, hash(4)) // young {3, 1} becomes old; {2} is dropped
    expect(cache.get(2)).toBeUndefined()
    expect(cache.get(1)).toEqual(hash(1))
    expect(cache.get(3)).toEqual(hash(3))
  })

  it('forgets everything on clear', () => {
    const cache = new LogHashCache<string>(4)
    cache.set('0:3', hash(7))
    cache.clear()
    expect(cache.get('0:3')).toBeUndefined()
  })
})
