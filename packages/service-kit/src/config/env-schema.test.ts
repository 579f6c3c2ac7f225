import { Type } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { ConfigError } from './config-error.js'
import { describeEnv, Env, loadEnv, parseEnv } from './env-schema.js'

const SCHEMA = Type.Object({
  HOST: Env.string({ description: 'listen address', default: '0.0.0.0' }),
  NAME: Env.string({ description: 'a name' }),
  TOKEN: Env.string({ description: 'a credential', secret: true }),
  PORT: Env.integer({ description: 'listen port', default: 3001, minimum: 0, maximum: 65535 }),
  OFFSET: Env.integer({ description: 'signed', default: 0, minimum: -10, maximum: 10 }),
  LIMIT: Env.integer({ description: 'no default', minimum: 1, maximum: 5 }),
  FRACTION: Env.number({ description: 'share', default: 0.05, minimum: 0, maximum: 1 }),
  TILT: Env.number({ description: 'signed share', default: 0, minimum: -1, maximum: 1 }),
  ENABLED: Env.boolean({ description: 'switch', default: false }),
  AUTO: Env.boolean({ description: 'default decided by the server' }),
  MODE: Env.enum(['development', 'test', 'production'], { description: 'mode', default: 'development' }),
  ALG: Env.enum(['HS256', 'EdDSA'], { description: 'algorithm', default: 'HS256' }),
  LEVEL: Env.enum(['fatal', 'error', 'warn', 'info'], { description: 'level', default: 'info' }),
  ENDPOINT: Env.url({ description: 'collector', protocols: ['http:', 'https:'] }),
  DATABASE: Env.url({ description: 'database', protocols: ['postgres:'], secret: true }),
  TIMEOUT: Env.duration({ description: 'deadline', unit: 'ms', default: 10_000, minimum: 100, maximum: 60_000 }),
  INTERVAL: Env.duration({ description: 'period', unit: 's', default: 300, minimum: 1, maximum: 86_400 }),
  KEYS: Env.list({ description: 'keys', unique: true }),
  RULES: Env.list({ description: 'rules', separator: ';' }),
})

function problemsOf(env: Record<string, string>): string[] {
  return parseEnv(SCHEMA, env).problems.map((p) => p.message)
}

describe('parseEnv', () => {
  it('gives every default when nothing is set, and treats blank as unset', () => {
    for (const env of [{}, { HOST: '', PORT: '  ', ENABLED: '', KEYS: ' ' }]) {
      const { values, problems, given } = parseEnv(SCHEMA, env)
      expect(problems).toEqual([])
      expect(given.size).toBe(0)
      expect(values).toEqual({
        HOST: '0.0.0.0',
        NAME: '',
        TOKEN: '',
        PORT: 3001,
        OFFSET: 0,
        LIMIT: undefined,
        FRACTION: 0.05,
        TILT: 0,
        ENABLED: false,
        AUTO: undefined,
        MODE: 'development',
        ALG: 'HS256',
        LEVEL: 'info',
        ENDPOINT: '',
        DATABASE: '',
        TIMEOUT: 10_000,
        INTERVAL: 300,
        KEYS: [],
        RULES: [],
      })
    }
  })

  it('reads each kind, trimmed', () => {
    const { values, problems, given } = parseEnv(SCHEMA, {
      HOST: ' 127.0.0.1 ',
      NAME: 'x',
      PORT: '0',
      OFFSET: '-10',
      LIMIT: '5',
      FRACTION: '.5',
      TILT: '-0.25',
      ENABLED: 'TRUE',
      AUTO: '0',
      MODE: 'production',
      ALG: 'EdDSA',
      ENDPOINT: 'https://collector.example/v1',
      DATABASE: 'postgres://u@h/db',
      TIMEOUT: '2s',
      INTERVAL: '10m',
      KEYS: ' a, b ,,c ',
      RULES: 'x=1;y=2,z',
    })
    expect(problems).toEqual([])
    expect(values).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 0,
      OFFSET: -10,
      LIMIT: 5,
      FRACTION: 0.5,
      TILT: -0.25,
      ENABLED: true,
      AUTO: false,
      MODE: 'production',
      ALG: 'EdDSA',
      ENDPOINT: 'https://collector.example/v1',
      TIMEOUT: 2000,
      INTERVAL: 600,
      KEYS: ['a', 'b', 'c'],
      RULES: ['x=1', 'y=2,z'],
    })
    expect([...given]).toContain('TIMEOUT')
    expect(given.has('TOKEN')).toBe(false)
  })

  it('types each value by its kind, optional only where no default is declared', () => {
    const { values } = parseEnv(SCHEMA, {})
    expectTypeOf(values.PORT).toEqualTypeOf<number>()
    expectTypeOf(values.LIMIT).toEqualTypeOf<number | undefined>()
    expectTypeOf(values.ENABLED).toEqualTypeOf<boolean>()
    expectTypeOf(values.AUTO).toEqualTypeOf<boolean | undefined>()
    expectTypeOf(values.MODE).toEqualTypeOf<'development' | 'test' | 'production'>()
    expectTypeOf(values.KEYS).toEqualTypeOf<string[]>()
    expectTypeOf(values.HOST).toEqualTypeOf<string>()
    expect(values.LIMIT).toBeUndefined()
  })

  it.each([
    ['1', true],
    ['true', true],
    ['True', true],
    ['0', false],
    ['FALSE', false],
  ])('reads boolean %j as %j', (raw, expected) => {
    expect(parseEnv(SCHEMA, { ENABLED: raw }).values.ENABLED).toBe(expected)
  })

  it.each([
    [{ ENABLED: 'yes' }, 'ENABLED must be true or false, got "yes"'],
    [{ ENABLED: '2' }, 'ENABLED must be true or false, got "2"'],
    [{ PORT: '30a' }, 'PORT must be an integer, got "30a"'],
    [{ PORT: '1e3' }, 'PORT must be an integer, got "1e3"'],
    [{ PORT: '3.5' }, 'PORT must be an integer, got "3.5"'],
    [{ PORT: '99999999999999999999' }, 'PORT must be an integer, got "99999999999999999999"'],
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535, got 70000'],
    [{ PORT: '-1' }, 'PORT must be between 0 and 65535, got -1'],
    [{ OFFSET: '11' }, 'OFFSET must be between -10 and 10, got 11'],
    [{ FRACTION: '1.5' }, 'FRACTION must be a number between 0 and 1, got "1.5"'],
    [{ FRACTION: '-0' }, 'FRACTION must be a number between 0 and 1, got "-0"'],
    [{ FRACTION: 'abc' }, 'FRACTION must be a number between 0 and 1, got "abc"'],
    [{ FRACTION: '1.' }, 'FRACTION must be a number between 0 and 1, got "1."'],
    [{ TILT: '-2' }, 'TILT must be a number between -1 and 1, got "-2"'],
    [{ MODE: 'prod' }, 'MODE must be development, test or production, got "prod"'],
    [{ ALG: 'eddsa' }, 'ALG must be HS256 or EdDSA, got "eddsa"'],
    [{ LEVEL: 'verbose' }, 'LEVEL must be one of fatal, error, warn, info, got "verbose"'],
    [{ ENDPOINT: 'collector:4318' }, 'ENDPOINT must be a URL (http:// or https://), got "collector:4318"'],
    [{ ENDPOINT: 'not a url' }, 'ENDPOINT must be a URL (http:// or https://), got "not a url"'],
    [{ TIMEOUT: '50' }, 'TIMEOUT must be between 100 and 60000 ms, got 50'],
    [{ TIMEOUT: '2d' }, expect.stringMatching(/^TIMEOUT must be a duration: .*, got "2d"$/)],
    [{ INTERVAL: '1500ms' }, expect.stringMatching(/^INTERVAL must be a duration: .*whole number of s, got "1500ms"$/)],
    [{ INTERVAL: '25h' }, 'INTERVAL must be between 1 and 86400 s, got 90000'],
    [{ KEYS: 'a,b,a' }, 'KEYS lists the same entry twice'],
  ])('refuses %j in one line naming the variable', (env, message) => {
    expect(problemsOf(env)).toEqual([message])
  })

  it('accepts a duration in its own unit, or with a unit that converts exactly', () => {
    expect(parseEnv(SCHEMA, { TIMEOUT: '1500' }).values.TIMEOUT).toBe(1500)
    expect(parseEnv(SCHEMA, { TIMEOUT: '1m' }).values.TIMEOUT).toBe(60_000)
    expect(parseEnv(SCHEMA, { INTERVAL: '2000ms' }).values.INTERVAL).toBe(2)
    expect(parseEnv(SCHEMA, { INTERVAL: '1h' }).values.INTERVAL).toBe(3600)
  })

  it('never quotes a secret variable', () => {
    const problems = problemsOf({ DATABASE: 'mysql://user:hunter2@db/x' })
    expect(problems).toEqual(['DATABASE must be a URL (postgres://)'])
    expect(problems.join(' ')).not.toContain('hunter2')
  })

  it('keeps the default for a refused value and reports every bad variable once, in schema order', () => {
    const { values, problems } = parseEnv(SCHEMA, { KEYS: 'k,k,k', PORT: 'x', MODE: 'prod', ENABLED: 'maybe' })
    expect(problems.map((p) => p.variable)).toEqual(['PORT', 'ENABLED', 'MODE', 'KEYS'])
    for (const p of problems) expect(p.message).not.toContain('\n')
    expect(values).toMatchObject({ PORT: 3001, MODE: 'development', ENABLED: false, KEYS: ['k'] })
  })

  it('hands out a fresh default list each time', () => {
    const first = parseEnv(SCHEMA, {}).values.KEYS
    first.push('mutated')
    expect(parseEnv(SCHEMA, {}).values.KEYS).toEqual([])
  })

  it('ignores variables the schema does not name', () => {
    expect(parseEnv(SCHEMA, { UNRELATED: 'x', PATH: '/bin' }).problems).toEqual([])
  })

  it('refuses a schema member not built with Env', () => {
    expect(() => parseEnv(Type.Object({ X: Type.String() }), {})).toThrow(/X: not an Env schema/)
  })
})

describe('loadEnv', () => {
  it('returns the values when every variable is good', () => {
    expect(loadEnv(SCHEMA, { PORT: '8080' }).PORT).toBe(8080)
  })

  it('throws one refusal with one line per bad variable', () => {
    let caught: unknown
    try {
      loadEnv(SCHEMA, { PORT: 'x', ALG: 'none' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).problems).toEqual([
      'PORT must be an integer, got "x"',
      'ALG must be HS256 or EdDSA, got "none"',
    ])
    expect((caught as ConfigError).message).toBe(
      'invalid configuration:\n  - PORT must be an integer, got "x"\n  - ALG must be HS256 or EdDSA, got "none"',
    )
  })
})

describe('describeEnv', () => {
  it('lists every variable with its kind, default and description', () => {
    const rows = describeEnv(SCHEMA)
    expect(rows.map((r) => r.name)).toEqual(Object.keys(SCHEMA.properties))
    expect(rows.find((r) => r.name === 'PORT')).toEqual({
      name: 'PORT',
      kind: 'integer',
      description: 'listen port',
      default: '3001',
    })
    expect(rows.find((r) => r.name === 'AUTO')).toMatchObject({ kind: 'boolean', default: '' })
    expect(rows.find((r) => r.name === 'KEYS')).toMatchObject({ kind: 'list', default: '' })
  })
})
