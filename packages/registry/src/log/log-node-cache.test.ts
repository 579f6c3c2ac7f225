import { describe, expect, it } from 'vitest'
import { DEFAULT_RESIDENT_SHARE, LogNodeCache } from './log-node-cache.js'

const hash = (byte: number) => new Uint8Array(32).fill(byte)
/** Bytes of one 256-node chunk (32-byte hashes plus presence flags). */
const CHUNK = 256 * 33

describe('LogNodeCache', () => {
  it('answers stored nodes only, level and index both counting', () => {
    const cache = new LogNodeCache(4 * CHUNK)
    cache.set(0, 5, hash(5))
    cache.set(1, 5, hash(6))
    expect(cache.get(0, 5)).toEqual(hash(5))
    expect(cache.get(1, 5)).toEqual(hash(6))
    expect(cache.get(0, 4)).toBeUndefined() // same chunk, never stored
    expect(cache.get(2, 5)).toBeUndefined()
    expect(cache.get(0, 5 + 256)).toBeUndefined() // next chunk
  })

  it('keeps its own copy of what was stored', () => {
    const cache = new LogNodeCache(CHUNK)
    const stored = hash(9)
    cache.set(3, 0, stored)
    stored.fill(0)
    expect(cache.get(3, 0)).toEqual(hash(9))
  })

  it('evicts a chunk not hit since the last scan once full (second chance)', () => {
    const cache = new LogNodeCache(2 * CHUNK, 0)
    cache.set(0, 0, hash(1)) // chunk A
    cache.set(0, 256, hash(2)) // chunk B
    expect(cache.get(0, 0)).toEqual(hash(1)) // A is referenced
    cache.set(0, 512, hash(3)) // chunk C evicts B
    expect(cache.get(0, 256)).toBeUndefined()
    expect(cache.get(0, 0)).toEqual(hash(1))
    expect(cache.get(0, 512)).toEqual(hash(3))
  })

  it('reuses an evicted chunk without carrying over its nodes, and never changes a hash it returned', () => {
    const cache = new LogNodeCache(CHUNK, 0)
    cache.set(0, 7, hash(1))
    const held = cache.get(0, 7) as Uint8Array
    cache.get(0, 7) // referenced: the next set clears the flag, then evicts it anyway (only chunk)
    cache.set(0, 256 + 8, hash(2)) // the one chunk's memory now holds level 0, chunk 1
    expect(cache.get(0, 7)).toBeUndefined()
    expect(cache.get(0, 256 + 7)).toBeUndefined() // slot 7 of the reused chunk was never stored
    expect(cache.get(0, 256 + 8)).toEqual(hash(2))
    cache.set(0, 256 + 7, hash(3)) // writes the memory slot `held` came from
    expect(held).toEqual(hash(1))
  })

  it('reports the memory of whole chunks, bounded by its budget', () => {
    const cache = new LogNodeCache(2 * CHUNK)
    expect(cache.bytes).toBe(0)
    cache.set(0, 0, hash(1))
    cache.set(0, 1, hash(2)) // same chunk
    expect(cache.bytes).toBe(CHUNK)
    cache.set(1, 0, hash(3))
    cache.set(2, 0, hash(4)) // a third chunk evicts one
    expect(cache.bytes).toBe(2 * CHUNK)
    cache.clear()
    expect(cache.bytes).toBe(0)
  })

  it('refuses a hash that is not 32 bytes, and forgets everything on clear', () => {
    const cache = new LogNodeCache(CHUNK)
    expect(() => cache.set(0, 0, new Uint8Array(31))).toThrow(TypeError)
    cache.set(0, 0, hash(1))
    cache.clear()
    expect(cache.get(0, 0)).toBeUndefined()
  })

  describe('resident upper levels', () => {
    // 8 chunks, 6 of them for resident levels. A 1,024-leaf tree has one chunk at each level ≥ 2 (level 2: 256
    // nodes) and 2 and 4 at levels 1 and 0: levels 10…5 are six chunks, adding level 4 would make seven.
    const fitted = (share = 0.75) => {
      const cache = new LogNodeCache(8 * CHUNK, share)
      cache.fitTree(1024)
      return cache
    }
    /** Fills the cache with more never-hit level-0 chunks than it can hold. */
    const churn = (cache: LogNodeCache, from = 1024) => {
      for (let c = 0; c < 16; c++) cache.set(0, from + c * 256, hash(7))
    }

    it('keeps the levels whose nodes all fit in the resident share', () => {
      expect(DEFAULT_RESIDENT_SHARE).toBe(0.75)
      expect(fitted().residentLevel).toBe(5)
      expect(fitted(0.5).residentLevel).toBe(7) // 4 chunks: levels 10…7
      expect(fitted(0).residentLevel).toBeGreaterThan(10) // nothing resident
      expect(new LogNodeCache(8 * CHUNK).residentLevel).toBeGreaterThan(10) // no size known yet
    })

    it('never evicts a resident chunk for a lower one, even one never hit', () => {
      const cache = fitted()
      for (let level = 5; level <= 10; level++) cache.set(level, 0, hash(level))
      churn(cache)
      for (let level = 5; level <= 10; level++) expect(cache.get(level, 0)).toEqual(hash(level))
      expect(cache.residentBytes).toBe(6 * CHUNK)
      expect(cache.bytes).toBe(8 * CHUNK) // the clock region is full of level-0 chunks
    })

    it('evicts the same never-hit upper chunks when nothing is resident (CLOCK alone)', () => {
      const cache = fitted(0)
      for (let level = 5; level <= 10; level++) cache.set(level, 0, hash(level))
      churn(cache)
      for (let level = 5; level <= 10; level++) expect(cache.get(level, 0)).toBeUndefined()
      expect(cache.residentBytes).toBe(0)
    })

    it('keeps chunks cached before the first fit, now resident', () => {
      const cache = new LogNodeCache(8 * CHUNK)
      cache.set(9, 1, hash(9))
      cache.set(0, 3, hash(3))
      cache.fitTree(1024)
      expect(cache.get(9, 1)).toEqual(hash(9))
      expect(cache.get(0, 3)).toEqual(hash(3))
      expect(cache.residentBytes).toBe(CHUNK)
      churn(cache)
      expect(cache.get(9, 1)).toEqual(hash(9))
      expect(cache.get(0, 3)).toBeUndefined()
    })

    it('hands levels the grown tree no longer fits to the clock, where churn evicts them', () => {
      const cache = fitted()
      cache.set(5, 0, hash(5))
      cache.set(10, 0, hash(10))
      cache.fitTree(4 * 1024) // level 5 now has 128 nodes and levels 7…12 take the six resident chunks
      expect(cache.residentLevel).toBe(7)
      expect(cache.get(5, 0)).toEqual(hash(5)) // still cached, now under CLOCK
      cache.fitTree(4 * 1024) // unchanged size: nothing moves
      churn(cache, 4096)
      churn(cache, 8192)
      expect(cache.get(5, 0)).toBeUndefined()
      expect(cache.get(10, 0)).toEqual(hash(10))
    })

    it('still bounds its memory when the budget is a single chunk', () => {
      const cache = new LogNodeCache(CHUNK, 0.5)
      cache.fitTree(0) // every level fits in nothing: all resident, so eviction must take a resident chunk
      cache.set(3, 0, hash(3))
      cache.set(3, 256, hash(4))
      expect(cache.bytes).toBe(CHUNK)
      expect(cache.get(3, 256)).toEqual(hash(4))
      expect(() => new LogNodeCache(CHUNK, 1)).toThrow(RangeError)
    })
  })
})
