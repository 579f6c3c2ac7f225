import { describe, expect, it } from 'vitest'
import { DidResolver } from '../did/resolver.js'
import { createProducerKey } from './create-producer-key.js'
import { completeProducerContent } from './producer.js'
import { buildPublishRequest } from './publish-request.js'
import { fetchRegistryProfiles, type RegistryProfiles } from './registry-profiles.js'
import { verifyContext } from './verify-context.js'

const resolver = new DidResolver({
  fetchDidDocument: async () => {
    throw new Error('no network in this test')
  },
})

/** A did:key context served with no receipt, no inclusion proof and no cosignatures. */
function bareEnvelope(): Record<string, unknown> {
  const key = createProducerKey()
  const content = completeProducerContent({ title: 'profiles', type: 'analysis' }, key)
  const request = buildPublishRequest({
    body: content,
    algorithm: key.algorithm,
    privateKey: key.privateKey,
    keyId: key.keyId,
  })
  return {
    body: {
      ...request,
      ctx_id: 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
      lineage_id: `lin:sha256:${'1'.repeat(64)}`,
      origin_registry: 'registry.example.com',
      created_at: '2026-06-12T09:00:00.000Z',
    },
    registry_state: { status: 'active' },
  }
}

const verify = (registryProfiles: RegistryProfiles | undefined, require?: { receipt?: boolean }) =>
  verifyContext(bareEnvelope(), {
    resolver,
    evidence: { now: new Date('2026-06-13T00:00:00.000Z'), revocations: [] },
    ...(registryProfiles === undefined ? {} : { registryProfiles }),
    ...(require === undefined ? {} : { require }),
  })

const stage = (report: Awaited<ReturnType<typeof verify>>, name: string) =>
  report.stages.find((candidate) => candidate.name === name)

describe('verifyContext judges missing evidence against the registry profiles', () => {
  it('says verified when the registry advertises neither receipts nor a log and serves neither', async () => {
    const report = await verify({ known: true, profiles: ['acdp-registry-core'] })
    expect(report.ok).toBe(true)
    expect(report.summary).toMatch(/^verified: schema, .*signature/)
    expect(report.summary).toContain('not called for')
    expect(stage(report, 'registry_receipt')).toEqual({
      name: 'registry_receipt',
      state: 'not_available',
      reason: 'the registry does not advertise acdp-registry-receipts',
      called_for: false,
    })
    expect(stage(report, 'log_inclusion')?.reason).toBe(
      'the registry does not advertise acdp-registry-transparency-log',
    )
    expect(stage(report, 'witness_signatures')?.called_for).toBe(false)
    expect(stage(report, 'signature')?.called_for).toBe(true)
    expect(report.profiles).toEqual({ known: true, profiles: ['acdp-registry-core'] })
  })

  it('names the evidence the advertised profiles promise but the registry did not serve', async () => {
    const report = await verify({
      known: true,
      profiles: ['acdp-registry-core', 'acdp-registry-receipts', 'acdp-registry-transparency-log'],
    })
    expect(report.summary).not.toMatch(/^verified/)
    expect(report.summary).toContain('no registry receipt')
    expect(report.summary).toContain('no inclusion proof')
    // No registry profile promises witness cosignatures (RFC-ACDP-0015 §10).
    expect(report.summary).not.toContain('witness')
    expect(stage(report, 'registry_receipt')).toMatchObject({ state: 'not_available', called_for: true })
  })

  it('says the profiles are unknown and treats every evidence stage as called for', async () => {
    const report = await verify({ known: false, reason: 'GET /.well-known/acdp.json answered HTTP 503' })
    expect(report.summary).toContain('no registry receipt; no inclusion proof; no witness cosignatures')
    expect(report.summary).toContain('registry profiles unknown: GET /.well-known/acdp.json answered HTTP 503')
    expect(stage(report, 'registry_receipt')?.called_for).toBe(true)
  })

  it('keeps the old verdict when no profiles are given', async () => {
    const report = await verify(undefined)
    expect(report.summary).toContain('no registry receipt')
    expect(report.summary).not.toContain('profiles')
    expect(report.profiles).toBeUndefined()
  })

  it('still fails required evidence the registry does not advertise', async () => {
    const report = await verify({ known: true, profiles: ['acdp-registry-core'] }, { receipt: true })
    expect(report.ok).toBe(false)
    expect(report.summary).toBe('verification FAILED: registry_receipt')
    expect(stage(report, 'registry_receipt')?.state).toBe('failed')
  })
})

describe('fetchRegistryProfiles', () => {
  const answering =
    (status: number, text: string): typeof fetch =>
    async () =>
      new Response(text, { status, headers: { 'content-type': 'application/json' } })

  it('reads the advertised profiles of GET /.well-known/acdp.json', async () => {
    const seen: string[] = []
    const fetchFn: typeof fetch = async (input, init) => {
      seen.push(String(input))
      return answering(200, JSON.stringify({ profiles: ['acdp-registry-core', 'acdp-registry-receipts'] }))(input, init)
    }
    expect(await fetchRegistryProfiles('https://registry.example.com/', { fetch: fetchFn })).toEqual({
      known: true,
      profiles: ['acdp-registry-core', 'acdp-registry-receipts'],
    })
    expect(seen).toEqual(['https://registry.example.com/.well-known/acdp.json'])
  })

  it('answers unknown, with the reason, for a refusal, a transport error, bad JSON or no profiles array', async () => {
    const base = 'https://registry.example.com'
    expect(await fetchRegistryProfiles(base, { fetch: answering(404, '{}') })).toEqual({
      known: false,
      reason: `${base}/.well-known/acdp.json answered HTTP 404`,
    })
    const failing: typeof fetch = async () => {
      throw new TypeError('connection refused')
    }
    const transport = await fetchRegistryProfiles(base, { fetch: failing })
    expect(transport.known).toBe(false)
    expect(transport.known === false && transport.reason).toContain('could not be read')
    const duplicate = await fetchRegistryProfiles(base, { fetch: answering(200, '{"profiles":[],"profiles":[]}') })
    expect(duplicate).toEqual({
      known: false,
      reason: `${base}/.well-known/acdp.json answered a body that is not strict JSON`,
    })
    expect(await fetchRegistryProfiles(base, { fetch: answering(200, '{"profiles":"acdp-registry-core"}') })).toEqual({
      known: false,
      reason: 'the capabilities document has no profiles array of strings',
    })
  })
})
