import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isProtocolError } from '../errors.js'
import { DEFAULT_MAX_JSON_DEPTH, parseJsonStrict } from './parse-json-strict.js'

function failure(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    if (isProtocolError(error)) return { code: error.code, reason: error.details?.['reason'] }
    throw error
  }
  throw new Error('expected a ProtocolError')
}

describe('parseJsonStrict', () => {
  it('parses valid JSON like JSON.parse', () => {
    const text = '{"a":[1,2,{"b":"x\\"y"}],"c":null,"d":true,"e":-1.5e3}'
    expect(parseJsonStrict(text)).toEqual(JSON.parse(text))
  })

  it('keeps "__proto__" as an own member without touching the prototype', () => {
    const value = parseJsonStrict('{"__proto__":{"polluted":true}}') as Record<string, unknown>
    expect(Object.keys(value)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it.each([
    ['top level', '{"a":1,"a":2}'],
    ['nested', '{"x":{"k":1,"y":[{"k":2}],"k":3}}'],
    ['escaped spelling', '{"a":1,"\\u0061":2}'],
    ['after a string value containing an escaped quote', '{"a":"\\"","b":1,"a":0}'],
    ['after a nested object', '{"a":{"a":1},"b":{},"a":2}'],
  ])('refuses a duplicate member name (%s)', (_name, text) => {
    expect(failure(() => parseJsonStrict(text))).toEqual({ code: 'malformed_input', reason: 'duplicate_key' })
  })

  it.each([
    ['same key in sibling objects', '[{"a":1},{"a":2}]'],
    ['key text reused as a value', '{"a":"a","b":"a"}'],
    ['parent and child share a key', '{"a":{"a":{"a":1}}}'],
  ])('accepts repeated names that are not duplicates (%s)', (_name, text) => {
    expect(parseJsonStrict(text)).toEqual(JSON.parse(text))
  })

  it.each([
    '',
    '{',
    '{"a":1,}',
    "{'a':1}",
    '[1,]',
    'NaN',
    '\ufeff{}',
    '{"a":"\\x"}',
    '{"a\\q":1}',
    '01',
    '"unterminated',
    ']',
  ])('refuses invalid JSON %j as malformed_input', (text) => {
    expect(failure(() => parseJsonStrict(text))).toEqual({ code: 'malformed_input', reason: 'invalid_json' })
  })

  it.each([
    [1, '[]', true],
    [1, '[[]]', false],
    [3, '{"a":[{"b":1}]}', true],
    [2, '{"a":[{"b":1}]}', false],
    [DEFAULT_MAX_JSON_DEPTH, '['.repeat(DEFAULT_MAX_JSON_DEPTH) + ']'.repeat(DEFAULT_MAX_JSON_DEPTH), true],
    [DEFAULT_MAX_JSON_DEPTH, '['.repeat(DEFAULT_MAX_JSON_DEPTH + 1) + ']'.repeat(DEFAULT_MAX_JSON_DEPTH + 1), false],
  ])('with maxDepth %i, %j within limit: %s', (maxDepth, text, ok) => {
    if (ok) expect(parseJsonStrict(text, { maxDepth })).toEqual(JSON.parse(text))
    else expect(failure(() => parseJsonStrict(text, { maxDepth }))).toEqual({ code: 'too_deep', reason: undefined })
  })

  it('refuses a megabyte of open brackets quickly with too_deep', () => {
    expect(failure(() => parseJsonStrict('['.repeat(1 << 20)))).toEqual({ code: 'too_deep', reason: undefined })
  })

  it('ignores brackets and commas inside strings', () => {
    const text = '{"a":"[[[[{,\\\\","b":"}"}'
    expect(parseJsonStrict(text, { maxDepth: 1 })).toEqual(JSON.parse(text))
  })

  it('round-trips any JSON value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value)
        expect(parseJsonStrict(text)).toEqual(JSON.parse(text))
      }),
      { numRuns: 500 },
    )
  })
})
