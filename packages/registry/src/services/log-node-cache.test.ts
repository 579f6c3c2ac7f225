import { describe, expect, it } from 'vitest'
import { LogNodeCache } from './log-node-cache.js'

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
    const cache = new LogNodeCache(2 * CHUNK)
    cache.set(0, 0, hash(1)) // chunk A
    cache.set(0, 256, hash(2)) // chunk B
    expect(cache.get(0, 0)).toEqual(hash(1)) // A is referenced
    cache.set(0, 512, hash(3)) // chunk C evicts B
    expect(cache.get(0, 256)).toBeUndefined()
    expect(cache.get(0, 0)).toEqual(hash(1))
    expect(cache.get(0, 512)).toEqual(hash(3))
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
})
