import { describe, expect, it } from 'vitest'
import { deepFreeze } from './deep-freeze.js'

describe('deepFreeze', () => {
  it('freezes every object and array reachable from the value and returns the value', () => {
    const value = { a: { b: [{ c: 1 }] } }
    expect(deepFreeze(value)).toBe(value)
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen(value.a.b)).toBe(true)
    expect(Object.isFrozen(value.a.b[0])).toBe(true)
  })

  it('leaves a typed array writable instead of throwing on it', () => {
    const value = { seed: new Uint8Array([1, 2, 3]) }
    deepFreeze(value)
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen(value.seed)).toBe(false)
  })

  it('ends on a cycle', () => {
    const value: { self?: unknown; child: { parent?: unknown } } = { child: {} }
    value.self = value
    value.child.parent = value
    deepFreeze(value)
    expect(Object.isFrozen(value.child)).toBe(true)
  })
})
