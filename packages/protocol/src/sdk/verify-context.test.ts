import { describe, expect, it } from 'vitest'
import { hasConformance, loadFixtures, reportMissingConformance } from '../../../../test/support/conformance.js'
import { DidResolver, type FetchDidDocument } from '../did/resolver.js'
import { buildDidWebDocument, createProducerKey } from './create-producer-key.js'
import { completeProducerContent } from './producer.js'
import { buildPublishRequest } from './publish-request.js'
import { sha256String } from '../hash/sha256.js'
import { type EnvelopeCheck, verifyContext } from './verify-context.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read and tamper with untyped JSON documents
type Json = Record<string, any>

reportMissingConformance('sdk verifyContext')

const noNetwork: FetchDidDocument = async () => {
  throw new Error('no network in this test')
}
const pureResolver = new DidResolver({ fetchDidDocument: noNetwork })

const ASSIGNED = {
  ctx_id: 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
  lineage_id: `lin:sha256:${'1'.repeat(64)}`,
  origin_registry: 'registry.example.com',
  created_at: '2026-06-12T09:00:00.000Z',
}

/** A freshly signed did:key context, wrapped as a registry serves it. */
function signedEnvelope(extra: Record<string, unknown> = {}) {
  const key = createProducerKey()
  const content = completeProducerContent({ title: 'verify me', type: 'analysis', ...extra }, key)
  const request = buildPublishRequest({
    body: content,
    algorithm: key.algorithm,
    privateKey: key.privateKey,
    keyId: key.keyId,
  })
  return {
    key,
    envelope: { body: { ...request, ...ASSIGNED }, registry_state: { status: 'active' } } as Json,
  }
}

const names = (report: { checks: Array<{ name: string }> }) => report.checks.map((check) => check.name)

describe('verifyContext', () => {
  const sig003 = loadFixtures('sig-003')
  it.runIf(hasConformance)('found the did:key golden', () => {
    expect(sig003).toHaveLength(1)
  })

  it.each(sig003.flatMap((fixture) => fixture.vectors as Array<Json>))(
    'accepts the sig-003 golden body as served: $name',
    async (vector) => {
      const body = { ...vector.expected.publish_request_body, ...vector.registry_assigned }
      delete body.note
      const report = await verifyContext({ body, registry_state: { status: 'active' } }, { resolver: pureResolver })
      expect(report).toMatchObject({
        ok: true,
        ctxId: vector.registry_assigned.ctx_id,
        unchecked: ['key_revocation'],
        summary:
          'body and signature verified; no registry receipt; no inclusion proof; no witness cosignatures; key_revocation not checked',
      })
      expect(names(report)).toEqual(['schema', 'producer_content_hash', 'key_binding', 'did_resolution', 'signature'])
    },
  )

  it('passes every stage for a context the SDK signed', async () => {
    const { envelope } = signedEnvelope()
    const report = await verifyContext(envelope, { resolver: pureResolver })
    expect(report.ok).toBe(true)
    expect(report.checks.every((check) => check.ok && check.detail.length > 0)).toBe(true)
  })

  it.each([
    [
      'a changed title',
      (body: Json) => Object.assign(body, { title: 'tampered' }),
      'producer_content_hash',
      'hash_mismatch',
    ],
    [
      'an added producer member',
      (body: Json) => Object.assign(body, { summary: 'x' }),
      'producer_content_hash',
      'hash_mismatch',
    ],
    [
      'a signature from another key',
      (body: Json) =>
        Object.assign(body, {
          signature: { ...body.signature, value: signedEnvelope().envelope.body.signature.value },
        }),
      'signature',
      'invalid_signature',
    ],
    [
      'a key_id of another agent',
      (body: Json) => {
        const other = createProducerKey()
        body.signature = { ...body.signature, key_id: other.keyId }
      },
      'key_binding',
      'key_not_authorized',
    ],
    ['a missing title', (body: Json) => delete body.title, 'schema', 'schema'],
    [
      'a did:key body declaring 0.1.0',
      (body: Json) => Object.assign(body, { acdp_version: '0.1.0' }),
      'schema',
      'did:web',
    ],
  ])('fails at the right stage for %s and stops there', async (_case, tamper, failedStage, detailPart) => {
    const { envelope } = signedEnvelope()
    tamper(envelope.body)
    const report = await verifyContext(envelope, { resolver: pureResolver })
    expect(report.ok).toBe(false)
    const last = report.checks.at(-1)
    expect(last).toMatchObject({ name: failedStage, ok: false, detail: expect.stringContaining(detailPart) })
    expect(report.checks.slice(0, -1).every((check) => check.ok)).toBe(true)
    // Every later stage is still reported: not checked, because this one failed first.
    const failedAt = report.stages.findIndex((stage) => stage.name === failedStage)
    expect(report.stages[failedAt]?.state).toBe('failed')
    const later = report.stages.slice(failedAt + 1)
    expect(later.map((stage) => stage.name)).toEqual(
      expect.arrayContaining(['registry_receipt', 'log_inclusion', 'witness_signatures', 'key_revocation']),
    )
    expect(later.every((stage) => stage.state === 'not_checked')).toBe(true)
    if (failedStage !== 'signature') expect(later.map((stage) => stage.name)).toContain('signature')
    expect(later[0]?.reason).toBe(`not checked: the ${failedStage} stage failed first`)
    expect(report.unchecked).toEqual(later.map((stage) => stage.name))
    expect(report.summary).toBe(`verification FAILED: ${failedStage}`)
  })

  it('reports the data_refs: embedded ones verified or failed without a fetch, locations not fetched by default', async () => {
    const content = { rows: [1, 2, 3] }
    const jcsHash = sha256String(new TextEncoder().encode('{"rows":[1,2,3]}'))
    const { envelope } = signedEnvelope({
      data_refs: [
        { type: 'raw_data', embedded: { encoding: 'json', content, content_hash: jcsHash } },
        { type: 'raw_data', embedded: { encoding: 'utf8', content: 'abc', content_hash: `sha256:${'0'.repeat(64)}` } },
        { type: 'raw_data', embedded: { encoding: 'utf8', content: 'no hash' } },
        { type: 'raw_data', location: 'https://data.example.com/a.csv', content_hash: jcsHash },
        { type: 'raw_data', location: 's3://bucket/a.csv', content_hash: jcsHash },
        { type: 'raw_data', location: 'https://data.example.com/b.csv' },
      ],
    })
    const report = await verifyContext(envelope, { resolver: pureResolver })
    const refs = report.stages.filter((stage) => stage.name.startsWith('data_ref['))
    expect(refs.map((stage) => [stage.name, stage.state])).toEqual([
      ['data_ref[0]', 'verified'],
      ['data_ref[1]', 'failed'],
      ['data_ref[2]', 'not_available'],
      ['data_ref[3]', 'not_checked'],
      ['data_ref[4]', 'not_available'],
      ['data_ref[5]', 'not_available'],
    ])
    expect(refs[1]?.reason).toMatch(/^data_ref_hash_mismatch: /)
    expect(refs[3]?.reason).toMatch(/not fetched/)
    expect(refs[4]?.reason).toMatch(/^s3:\/\/ is dereferenced by its own client/)
    // A DataRef mismatch fails the report, but as data_ref[1], never as the body's hash or signature.
    expect(report.ok).toBe(false)
    expect(report.summary).toBe('verification FAILED: data_ref[1]')
    expect(report.stages.find((stage) => stage.name === 'signature')?.state).toBe('verified')
  })

  it('reports a body that is not an object as a failed schema stage, not an exception', async () => {
    const report = await verifyContext({ body: 'nope' }, { resolver: pureResolver })
    expect(report).toMatchObject({ ok: false, ctxId: undefined, checks: [{ name: 'schema', ok: false }] })
  })

  it('verifies a did:web producer against the DID document it serves', async () => {
    const key = createProducerKey({ algorithm: 'ecdsa-p256', didWeb: 'did:web:agents.example.com:alice' })
    const document = new TextEncoder().encode(JSON.stringify(buildDidWebDocument(key)))
    const requested: string[] = []
    const resolver = new DidResolver({
      fetchDidDocument: async (url) => {
        requested.push(url.href)
        return { status: 200, body: document }
      },
    })
    const content = completeProducerContent({ title: 'web', type: 'analysis' }, key)
    const request = buildPublishRequest({
      body: content,
      algorithm: key.algorithm,
      privateKey: key.privateKey,
      keyId: key.keyId,
    })
    const report = await verifyContext(
      { body: { ...request, ...ASSIGNED }, registry_state: { status: 'active' } },
      { resolver },
    )
    expect(report.ok).toBe(true)
    expect(requested).toEqual(['https://agents.example.com/alice/did.json'])
  })

  it('lists evidence members nobody checked instead of passing them', async () => {
    const { envelope } = signedEnvelope()
    envelope.registry_receipt = { receipt_version: 'x' }
    envelope.log_inclusion = { leaf_index: 0 }
    const report = await verifyContext(envelope, { resolver: pureResolver })
    expect(report.ok).toBe(true)
    expect(report.unchecked).toEqual(['registry_receipt', 'log_inclusion', 'key_revocation'])
  })

  it('runs a configured envelope check and lets its failure fail the report', async () => {
    const { envelope } = signedEnvelope()
    envelope.registry_receipt = { receipt_version: 'x' }
    const receiptCheck: EnvelopeCheck = {
      member: 'registry_receipt',
      name: 'registry_receipt',
      run: () => ({ name: 'registry_receipt', ok: false, detail: 'invalid_receipt: test' }),
    }
    const throwing: EnvelopeCheck = {
      member: 'registry_receipt',
      name: 'registry_receipt_extra',
      run: () => {
        throw new Error('boom')
      },
    }
    const report = await verifyContext(envelope, { resolver: pureResolver, envelopeChecks: [receiptCheck, throwing] })
    expect(report.ok).toBe(false)
    expect(report.unchecked).toEqual(['key_revocation'])
    expect(report.checks.slice(-2)).toEqual([
      { name: 'registry_receipt', ok: false, detail: 'invalid_receipt: test' },
      { name: 'registry_receipt_extra', ok: false, detail: 'boom' },
    ])
  })
})

describe('verifyContext reads registry_state.status as RFC-ACDP-0004 §4.1 says', () => {
  it.each(['ACTIVE', 'in progress', '', '9lives', 'a'.repeat(65)])(
    'rejects the malformed status %j as schema_violation and stops there',
    async (status) => {
      const { envelope } = signedEnvelope()
      envelope.registry_state = { status }
      const report = await verifyContext(envelope, { resolver: pureResolver })
      expect(report.ok).toBe(false)
      expect(names(report)).toEqual(['schema'])
      expect(report.checks[0]?.detail).toMatch(/^schema_violation: malformed registry state: registry_state\.status/)
      expect(report.checks[0]?.detail).toContain(JSON.stringify(status))
    },
  )

  it.each([{ status: 3 }, {}, 'active', null])('rejects the registry_state %j (no string status)', async (state) => {
    const { envelope } = signedEnvelope()
    envelope.registry_state = state
    const report = await verifyContext(envelope, { resolver: pureResolver })
    expect(report.ok).toBe(false)
    expect(report.checks[0]).toMatchObject({ name: 'schema', ok: false })
    expect(report.checks[0]?.detail).toContain('schema_violation')
  })

  it('accepts a well-formed unknown status with a warning, and warns about none of the defined ones', async () => {
    const { envelope } = signedEnvelope()
    envelope.registry_state = { status: 'paused_x' }
    const report = await verifyContext(envelope, { resolver: pureResolver })
    expect(report.ok).toBe(true)
    expect(report.warnings).toEqual([expect.stringContaining('"paused_x" is not defined by this ACDP version')])
    for (const status of ['active', 'superseded', 'expired', 'retracted']) {
      envelope.registry_state = { status }
      expect((await verifyContext(envelope, { resolver: pureResolver })).warnings).toEqual([])
    }
  })

  it('checks nothing about registry state when the envelope carries none (a bare body)', async () => {
    const { envelope } = signedEnvelope()
    delete envelope.registry_state
    const report = await verifyContext(envelope, { resolver: pureResolver })
    expect(report).toMatchObject({ ok: true, warnings: [] })
  })
})
