import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isProtocolError } from '../errors.js'
import { canonicalBytes, canonicalize, MAX_CANONICALIZE_DEPTH } from './canonicalize.js'

function bitsToNumber(hex: string): number {
  const view = new DataView(new ArrayBuffer(8))
  view.setBigUint64(0, BigInt(`0x${hex}`))
  return view.getFloat64(0)
}

function reasonOf(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    if (isProtocolError(error)) return { code: error.code, reason: error.details?.['reason'] }
    throw error
  }
  throw new Error('expected a ProtocolError')
}

describe('canonicalize', () => {
  // RFC 8785 Appendix B: IEEE-754 bit patterns and their required serialization.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('serializes the double with bits %s as %s (RFC 8785 Appendix B)', (bits, expected) => {
    expect(canonicalize(bitsToNumber(bits))).toBe(expected)
  })

  it('sorts keys by UTF-16 code units, not code points (RFC 8785 §3.2.3 example)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    }
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']
    const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k as keyof typeof input])}`).join(',')}}`
    expect(canonicalize(input)).toBe(expected)
  })

  it('escapes strings minimally and keeps non-ASCII raw (RFC 8785 §3.2.2.2 example)', () => {
    const input = '\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/'
    expect(canonicalize(input)).toBe('"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"')
    expect(canonicalize('\b\t\n\f\r\u001f\u007f')).toBe('"\\b\\t\\n\\f\\r\\u001f\u007f"')
  })

  it('quotes any well-formed string exactly as JSON.stringify does (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
        (any, ascii) => {
          expect(canonicalize(any)).toBe(JSON.stringify(any))
          expect(canonicalize(ascii)).toBe(JSON.stringify(ascii))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('encodes canonical bytes as UTF-8', () => {
    expect(Buffer.from(canonicalBytes({ t: 'é' })).toString('hex')).toBe(
      Buffer.from('{"t":"é"}', 'utf8').toString('hex'),
    )
  })

  it('accepts objects with a null prototype and a "__proto__" own member', () => {
    const bare = Object.create(null) as Record<string, unknown>
    bare['b'] = 1
    bare['a'] = 2
    expect(canonicalize(bare)).toBe('{"a":2,"b":1}')
    expect(canonicalize(JSON.parse('{"__proto__":{"x":1},"a":1}'))).toBe('{"__proto__":{"x":1},"a":1}')
  })

  it.each<[string, () => unknown, string]>([
    ['NaN', () => Number.NaN, 'non_finite_number'],
    ['Infinity', () => Number.POSITIVE_INFINITY, 'non_finite_number'],
    ['-Infinity inside an array', () => [Number.NEGATIVE_INFINITY], 'non_finite_number'],
    ['a lone high surrogate', () => 'a\ud800b', 'lone_surrogate'],
    ['a lone low surrogate', () => '\udc00', 'lone_surrogate'],
    ['a lone surrogate in a key', () => ({ '\ud800': 1 }), 'lone_surrogate'],
    ['undefined', () => undefined, 'unsupported_type'],
    ['an undefined member', () => ({ a: undefined }), 'undefined_value'],
    ['an undefined array element', () => [1, undefined, 3], 'undefined_value'],
    // eslint-disable-next-line no-sparse-arrays -- a hole is exactly what this row tests
    ['an array hole', () => [1, , 3], 'undefined_value'],
    ['a function', () => () => 1, 'unsupported_type'],
    ['a bigint', () => 10n, 'unsupported_type'],
    ['a symbol', () => Symbol('x'), 'unsupported_type'],
    ['a Date', () => new Date(0), 'not_plain_object'],
    ['a Map', () => new Map(), 'not_plain_object'],
    ['a Uint8Array', () => new Uint8Array(2), 'not_plain_object'],
    ['a class instance', () => new (class Thing {})(), 'not_plain_object'],
  ])('refuses %s with not_canonicalizable', (_name, make, reason) => {
    const value = make()
    expect(reasonOf(() => canonicalize(value))).toEqual({ code: 'not_canonicalizable', reason })
  })

  it('refuses a cyclic value with a domain error instead of overflowing the stack', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    expect(reasonOf(() => canonicalize(cyclic))).toEqual({ code: 'not_canonicalizable', reason: 'too_deep' })
  })

  it('accepts nesting up to the bound and refuses one level more', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 0
      for (let i = 0; i < levels; i++) value = [value]
      return value
    }
    expect(() => canonicalize(nest(MAX_CANONICALIZE_DEPTH))).not.toThrow()
    expect(reasonOf(() => canonicalize(nest(MAX_CANONICALIZE_DEPTH + 1)))).toEqual({
      code: 'not_canonicalizable',
      reason: 'too_deep',
    })
  })

  it('is idempotent through JSON.parse (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = canonicalize(value)
        expect(canonicalize(JSON.parse(once))).toBe(once)
      }),
      { numRuns: 500 },
    )
  })

  it('does not depend on member insertion order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 12 }), fc.integer(), (object, seed) => {
        const entries = Object.entries(object)
        // Deterministic shuffle driven by the generated seed.
        let state = seed >>> 0
        for (let i = entries.length - 1; i > 0; i--) {
          state = (Math.imul(state, 1103515245) + 12345) >>> 0
          const j = state % (i + 1)
          const tmp = entries[i]!
          entries[i] = entries[j]!
          entries[j] = tmp
        }
        const reordered: Record<string, unknown> = {}
        for (const [k, v] of entries)
          Object.defineProperty(reordered, k, { value: v, enumerable: true, writable: true, configurable: true })
        expect(canonicalize(reordered)).toBe(canonicalize(object))
      }),
      { numRuns: 300 },
    )
  })

  it('agrees with JSON.stringify on the JSON data model apart from key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalize(value))).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 300 },
    )
  })
})
