import { createPublicKey, type KeyObject } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { KeyObjectCache } from './key-object-cache.js'

const spki = (byte: number) =>
  createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.alloc(32, byte)]),
    format: 'der',
    type: 'spki',
  })

describe('KeyObjectCache', () => {
  it('loads once per key and evicts the least recently used entry at capacity', () => {
    const cache = new KeyObjectCache(2)
    const loads: number[] = []
    const load = (raw: Uint8Array): KeyObject => {
      loads.push(raw[0]!)
      return spki(raw[0]!)
    }
    const a = new Uint8Array([1, 1])
    const b = new Uint8Array([2, 2])
    const c = new Uint8Array([3, 3])
    cache.get(a, load)
    cache.get(b, load)
    cache.get(a, load) // a becomes most recent
    cache.get(c, load) // evicts b
    cache.get(a, load)
    cache.get(b, load)
    expect(loads).toEqual([1, 2, 3, 2])
    expect(cache.size).toBe(2)
  })

  it('does not cache a failed load', () => {
    const cache = new KeyObjectCache(4)
    let calls = 0
    const fail = () => {
      calls++
      return null
    }
    expect(cache.get(new Uint8Array([9]), fail)).toBeNull()
    expect(cache.get(new Uint8Array([9]), fail)).toBeNull()
    expect(calls).toBe(2)
    expect(cache.size).toBe(0)
  })

  it('rejects a non-positive capacity', () => {
    expect(() => new KeyObjectCache(0)).toThrow(TypeError)
  })
})
