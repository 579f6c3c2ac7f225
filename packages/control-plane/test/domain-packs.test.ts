import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { FINANCE_PACK } from '../src/domain-packs/finance.js'
import { registerDomainPackRoutes } from '../src/domain-packs/domain-packs-routes.js'
import {
  BASE_CONTEXT_TYPES,
  createDomainPackRegistry,
  DomainPackError,
  loadDomainPacks,
} from '../src/domain-packs/domain-packs.js'

const SCIENCE_PACK = {
  id: 'science',
  version: '1.2.0',
  label: 'Science',
  contextTypes: [
    { contextType: 'science:experiment-replication', requiredFields: ['doi'], defaultVisibility: 'public' },
  ],
}

/** A reader over an in-memory file table, so tests need no files on disk. */
function files(table: Record<string, string>): (path: string) => string {
  return (path) => {
    const text = table[path]
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' })
    return text
  }
}

describe('domain pack gate', () => {
  it('accepts every context type when no pack is registered', () => {
    const registry = loadDomainPacks('')
    expect(registry.packs).toEqual([])
    expect(registry.isContextTypeAccepted('earnings_report')).toBe(true)
    expect(registry.isContextTypeAccepted('anything:else')).toBe(true)
  })

  const finance = loadDomainPacks('finance')
  it.each([
    ['base type data_snapshot', 'data_snapshot', true],
    ['base type analysis', 'analysis', true],
    ['base type prediction', 'prediction', true],
    ['base type alert', 'alert', true],
    ['base type key-revocation', 'key-revocation', true],
    ['interim key revocation spelling', 'acdp:key-revocation', true],
    ['pack type earnings_report', 'earnings_report', true],
    ['pack type analyst_note', 'analyst_note', true],
    ['undeclared custom type', 'science:experiment-replication', false],
    ['undeclared bare type', 'weather_report', false],
    ['case variant of a pack type', 'Earnings_Report', false],
    ['empty string', '', false],
    ['absent context type', undefined, true],
    ['null context type', null, true],
  ])('with the finance pack active, %s → %s', (_name, type, accepted) => {
    expect(finance.isContextTypeAccepted(type)).toBe(accepted)
  })

  it('base context types are exactly the protocol registry standard types plus the interim spelling', () => {
    expect([...BASE_CONTEXT_TYPES].sort()).toEqual(
      ['acdp:key-revocation', 'alert', 'analysis', 'data_snapshot', 'key-revocation', 'prediction'].sort(),
    )
  })
})

describe('loadDomainPacks', () => {
  it('loads built-in packs by id and JSON packs by path, in setting order', () => {
    const registry = loadDomainPacks(' science.json , finance ', {
      baseDir: '/etc/acdp',
      readFile: files({ '/etc/acdp/science.json': JSON.stringify(SCIENCE_PACK) }),
    })
    expect(registry.packs.map((p) => p.id)).toEqual(['science', 'finance'])
    expect(registry.isContextTypeAccepted('science:experiment-replication')).toBe(true)
    expect(registry.isContextTypeAccepted('earnings_report')).toBe(true)
    expect(registry.isContextTypeAccepted('weather_report')).toBe(false)
  })

  it.each([
    ['an unknown built-in id', 'retail', {}, /unknown pack "retail"/],
    ['a duplicate id', 'finance,finance', {}, /registered twice/],
    ['an unreadable file', '/nope/pack.json', {}, /cannot read pack file/],
    ['a file that is not JSON', '/p/bad.json', { '/p/bad.json': '{"id":' }, /not valid JSON/],
    [
      'a pack with an unknown member',
      '/p/x.json',
      { '/p/x.json': JSON.stringify({ ...SCIENCE_PACK, policyDecider: 'eval()' }) },
      /invalid pack/,
    ],
    [
      'a pack with a malformed context type',
      '/p/x.json',
      {
        '/p/x.json': JSON.stringify({
          ...SCIENCE_PACK,
          contextTypes: [{ contextType: 'Bad Type', requiredFields: [], defaultVisibility: 'public' }],
        }),
      },
      /invalid pack.*contextTypes/,
    ],
    [
      'a pack with an unknown visibility',
      '/p/x.json',
      {
        '/p/x.json': JSON.stringify({
          ...SCIENCE_PACK,
          contextTypes: [{ contextType: 'lab_note', requiredFields: [], defaultVisibility: 'secret' }],
        }),
      },
      /invalid pack/,
    ],
    [
      'two packs declaring one type',
      'finance,/p/x.json',
      {
        '/p/x.json': JSON.stringify({
          ...SCIENCE_PACK,
          contextTypes: [{ contextType: 'earnings_report', requiredFields: [], defaultVisibility: 'public' }],
        }),
      },
      /declared by both "finance" and "science"/,
    ],
    [
      'a pack redeclaring a base type',
      '/p/x.json',
      {
        '/p/x.json': JSON.stringify({
          ...SCIENCE_PACK,
          contextTypes: [{ contextType: 'analysis', requiredFields: [], defaultVisibility: 'public' }],
        }),
      },
      /redeclares the base context type/,
    ],
  ])('refuses %s at boot with DomainPackError', (_name, setting, table, message) => {
    const load = () => loadDomainPacks(setting, { baseDir: '/', readFile: files(table) })
    expect(load).toThrow(DomainPackError)
    expect(load).toThrow(message)
  })

  it('keeps the registered packs immune to later mutation of the source object', () => {
    const source = structuredClone(SCIENCE_PACK) as typeof SCIENCE_PACK
    const registry = createDomainPackRegistry([source as never])
    source.contextTypes.push({ contextType: 'late_type', requiredFields: [], defaultVisibility: 'public' })
    expect(registry.isContextTypeAccepted('late_type')).toBe(false)
  })
})

describe('GET /domain-packs', () => {
  it('lists the registered packs with the spec fields', async () => {
    const app = Fastify()
    registerDomainPackRoutes(app, { domainPacks: loadDomainPacks('finance') })
    const res = await app.inject({ method: 'GET', url: '/domain-packs' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      packs: [
        {
          id: 'finance',
          version: '0.1.0',
          label: 'Finance (reference)',
          contextTypes: FINANCE_PACK.contextTypes.map((t) => ({
            contextType: t.contextType,
            requiredFields: t.requiredFields,
            defaultVisibility: t.defaultVisibility,
          })),
        },
      ],
    })
    await app.close()
  })

  it('answers an empty list when no pack is registered', async () => {
    const app = Fastify()
    registerDomainPackRoutes(app, { domainPacks: loadDomainPacks('') })
    const res = await app.inject({ method: 'GET', url: '/domain-packs' })
    expect(res.json()).toEqual({ packs: [] })
    await app.close()
  })
})

describe('loadDomainPacks with the parsed config list', () => {
  it('accepts the entries as an array', () => {
    expect(loadDomainPacks(['finance']).packs.map((p) => p.id)).toEqual(['finance'])
  })
})
