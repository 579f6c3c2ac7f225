import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { ConfigError } from './config-error.js'
import { layeredConfig } from './layered-config.js'

const closed = { additionalProperties: false } as const
const SCHEMA = Type.Object(
  {
    server: Type.Object(
      {
        host: Type.String(),
        port: Type.Integer({ minimum: 1, maximum: 65535 }),
        ratio: Type.Number(),
        debug: Type.Boolean(),
        tags: Type.Array(Type.String()),
        origins: Type.Array(Type.String()),
        tls: Type.Object({ enabled: Type.Boolean() }, closed),
      },
      closed,
    ),
    peers: Type.Array(Type.Object({ url: Type.String(), weight: Type.Integer() }, closed)),
  },
  closed,
)

const DEFAULTS = {
  server: {
    host: 'default.example',
    port: 80,
    ratio: 0.5,
    debug: false,
    tags: ['x'],
    origins: [],
    tls: { enabled: false },
  },
  peers: [],
}

const config = layeredConfig({
  schema: SCHEMA,
  defaults: DEFAULTS,
  file: { name: 'JSON', parse: (text) => JSON.parse(text) as unknown },
  env: { prefix: 'APP_', ignore: ['APP_CONFIG'], commaLists: ['server.tags'] },
})

const dir = mkdtempSync(join(tmpdir(), 'layered-config-'))
function file(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const load = (env: Record<string, string | undefined>, path?: string) => config.resolve(config.read({ path, env }))

function refusal(run: () => unknown): ConfigError {
  try {
    run()
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('layered configuration', () => {
  it('takes each key from the highest layer that sets it: defaults < file < environment', () => {
    const path = file('precedence.json', JSON.stringify({ server: { host: 'file.example', port: 8080 } }))
    const loaded = load({ APP_SERVER__PORT: '9090' }, path)
    expect(loaded.server.port).toBe(9090)
    expect(loaded.server.host).toBe('file.example')
    expect(loaded.server.ratio).toBe(0.5)
  })

  it('merges objects key by key and replaces a list whole', () => {
    const path = file('merge.json', JSON.stringify({ server: { tags: ['a', 'b'], tls: { enabled: true } } }))
    const loaded = load({}, path)
    expect(loaded.server.tags).toEqual(['a', 'b'])
    expect(loaded.server.tls).toEqual({ enabled: true })
    expect(loaded.server.host).toBe('default.example')
    expect(load({ APP_SERVER__TAGS: 'c' }, path).server.tags).toEqual(['c'])
  })

  it.each([
    ['APP_SERVER__DEBUG', 'YES', (c: Loaded) => c.server.debug, true],
    ['APP_SERVER__DEBUG', '0', (c: Loaded) => c.server.debug, false],
    ['APP_SERVER__PORT', ' 8443 ', (c: Loaded) => c.server.port, 8443],
    ['APP_SERVER__RATIO', '0.25', (c: Loaded) => c.server.ratio, 0.25],
    ['APP_SERVER__TLS__ENABLED', 'true', (c: Loaded) => c.server.tls.enabled, true],
    ['APP_SERVER__TAGS', ' a, b,,c ', (c: Loaded) => c.server.tags, ['a', 'b', 'c']],
    ['APP_SERVER__TAGS', '["a,b"]', (c: Loaded) => c.server.tags, ['a,b']],
    ['APP_SERVER__ORIGINS', '["https://a.example"]', (c: Loaded) => c.server.origins, ['https://a.example']],
    [
      'APP_PEERS_JSON',
      '[{"url":"https://p.example","weight":2}]',
      (c: Loaded) => c.peers,
      [{ url: 'https://p.example', weight: 2 }],
    ],
    ['APP_Server__Host', 'mixed.example', (c: Loaded) => c.server.host, 'mixed.example'],
  ])('reads %s=%j as the type the schema gives the key', (name, value, pick, expected) => {
    expect(pick(load({ [name]: value }))).toEqual(expected)
  })

  it('treats an empty variable as unset and skips the ignored ones', () => {
    const path = file('empty.json', JSON.stringify({ server: { port: 8080 } }))
    expect(load({ APP_SERVER__PORT: '', APP_CONFIG: 'not-a-key' }, path).server.port).toBe(8080)
  })

  it.each([
    ['APP_SERVER__PORT', 'eighty', 'APP_SERVER__PORT: expected integer for server.port, got "eighty"'],
    ['APP_SERVER__PORT', '1.5', 'APP_SERVER__PORT: expected integer for server.port, got "1.5"'],
    ['APP_SERVER__RATIO', 'half', 'APP_SERVER__RATIO: expected number for server.ratio, got "half"'],
    ['APP_SERVER__DEBUG', 'maybe', 'APP_SERVER__DEBUG: expected true or false for server.debug, got "maybe"'],
    ['APP_SERVER__ORIGINS', 'a,b', 'APP_SERVER__ORIGINS: expected a JSON array for server.origins, got "a,b"'],
    ['APP_SERVER__TAGS', '[oops', 'APP_SERVER__TAGS: expected a JSON array for server.tags, got "[oops"'],
    ['APP_SERVER', 'x', 'APP_SERVER: server is a section; set its fields individually'],
    ['APP_SERVER__PROT', '1', 'APP_SERVER__PROT: no such configuration key'],
  ])('refuses %s=%j in one line naming the variable', (name, value, message) => {
    const error = refusal(() => load({ [name]: value }))
    expect(error.message).toBe(message)
    expect(error.problems).toEqual([message])
  })

  it('refuses a key the schema does not have, wherever it comes from', () => {
    const path = file('unknown.json', JSON.stringify({ server: { prot: 1 } }))
    expect(refusal(() => load({}, path)).message).toBe('server.prot: no such configuration key')
    expect(refusal(() => config.resolve({ extra: true })).message).toBe('extra: no such configuration key')
    expect(refusal(() => config.resolve({ peers: [{ url: 'u', weight: 1, x: 1 }] })).message).toBe(
      'peers.0.x: no such configuration key',
    )
  })

  it('refuses a value out of its schema in one line naming the key and the value', () => {
    const message = refusal(() => config.resolve({ server: { port: 70000 } })).message
    expect(message).toMatch(/^server\.port: .+ \(got 70000\)$/)
    expect(message).not.toContain('\n')
  })

  it('refuses an unreadable or unparsable file naming the file', () => {
    const missing = join(dir, 'missing.json')
    expect(refusal(() => load({}, missing)).message).toBe(`config file ${missing}: cannot be read (ENOENT)`)
    const bad = file('bad.json', '{ "server": ')
    expect(refusal(() => load({}, bad)).message).toMatch(new RegExp(`^config file ${bad}: invalid JSON \\(.+\\)$`))
    const list = file('list.json', '[]')
    expect(refusal(() => load({}, list)).message).toBe(`config file ${list}: invalid JSON (not a table)`)
  })

  it('returns a deep-frozen object, and a later load starts from the defaults again', () => {
    const loaded = load({ APP_SERVER__TAGS: 'a' })
    expect(Object.isFrozen(loaded)).toBe(true)
    expect(Object.isFrozen(loaded.server.tls)).toBe(true)
    expect(Object.isFrozen(loaded.server.tags)).toBe(true)
    expect(() => {
      ;(loaded.server as { port: number }).port = 1
    }).toThrow(TypeError)
    expect(load({}).server.tags).toEqual(['x'])
    expect(Object.isFrozen(DEFAULTS.server)).toBe(false)
  })

  it('runs prepare before the schema check and finish on the still-writable result', () => {
    const prepared = layeredConfig({
      schema: SCHEMA,
      defaults: { ...DEFAULTS, server: { ...DEFAULTS.server, host: undefined } },
      env: { prefix: 'APP_' },
      prepare(merged) {
        const server = merged.server as Record<string, unknown>
        if (server.host === undefined) throw new ConfigError('server.host is required')
      },
    })
    expect(refusal(() => prepared.resolve({})).message).toBe('server.host is required')
    const loaded = prepared.resolve({ server: { host: 'h.example' } }, (c) => {
      c.server.tags.push('added')
    })
    expect(loaded.server.tags).toEqual(['x', 'added'])
    const refused = refusal(() =>
      prepared.resolve({ server: { host: 'h.example' } }, () => {
        throw new ConfigError('server.host: refused by the server')
      }),
    )
    expect(refused.message).toBe('server.host: refused by the server')
  })

  it('needs a file format before it reads a file', () => {
    const formatless = layeredConfig({ schema: SCHEMA, defaults: DEFAULTS, env: { prefix: 'APP_' } })
    expect(() => formatless.read({ path: join(dir, 'x.json'), env: {} })).toThrow(TypeError)
  })
})

type Loaded = ReturnType<typeof load>
