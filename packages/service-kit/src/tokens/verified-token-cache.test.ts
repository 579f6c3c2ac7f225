import { describe, expect, it } from 'vitest'
import { VerifiedTokenCache } from './verified-token-cache.js'

describe('VerifiedTokenCache', () => {
  it('answers a live entry until its instant, then reports it dead once and forgets it', () => {
    const cache = new VerifiedTokenCache<string>(10)
    cache.remember('t', 'alice', 1_000)
    expect(cache.lookup('t', 999)).toEqual({ value: 'alice', live: true })
    expect(cache.lookup('t', 1_000)).toEqual({ value: 'alice', live: false })
    expect(cache.lookup('t', 1_000)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('has nothing for a token it never saw', () => {
    expect(new VerifiedTokenCache<string>(1).lookup('x', 0)).toBeUndefined()
  })

  it('drops the entry stored longest ago when full', () => {
    const cache = new VerifiedTokenCache<number>(2)
    cache.remember('a', 1, 100)
    cache.remember('b', 2, 100)
    cache.remember('c', 3, 100)
    expect(cache.size).toBe(2)
    expect(cache.lookup('a', 0)).toBeUndefined()
    expect(cache.lookup('b', 0)?.value).toBe(2)
    expect(cache.lookup('c', 0)?.value).toBe(3)
  })

  it('re-remembering a token moves it to the back', () => {
    const cache = new VerifiedTokenCache<number>(2)
    cache.remember('a', 1, 100)
    cache.remember('b', 2, 100)
    cache.remember('a', 10, 200)
    cache.remember('c', 3, 100)
    expect(cache.lookup('b', 0)).toBeUndefined()
    expect(cache.lookup('a', 150)).toEqual({ value: 10, live: true })
  })

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new VerifiedTokenCache(0)).toThrow(RangeError)
  })
})
