/**
 * The inspector's marks over real signed contexts: the sig-003 golden body (did:key) and fresh contexts signed
 * by the SDK, genuine and tampered. The same module runs in the browser bundle (with the @noble platform twins);
 * here it runs on the Node platform, which the protocol's twin tests prove equivalent.
 */
import { buildPublishRequest, completeProducerContent, createProducerKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { hasConformance, loadFixtures, reportMissingConformance } from '../../../../test/support/conformance.js'
import { inspectContext, type Mark } from './inspect-context.js'

reportMissingConformance('console inspector')

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests tamper with untyped JSON documents
type Json = Record<string, any>

const ASSIGNED = {
  ctx_id: 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
  lineage_id: `lin:sha256:${'1'.repeat(64)}`,
  origin_registry: 'registry.example.com',
  created_at: '2026-06-12T09:00:00.000Z',
}

function signedEnvelope(options: { didWeb?: boolean } = {}): Json {
  const key = createProducerKey(options.didWeb ? { didWeb: 'did:web:agent.example' } : {})
  const content = completeProducerContent({ title: 'inspect me', type: 'analysis' }, key)
  const request = buildPublishRequest({
    body: content,
    algorithm: key.algorithm,
    privateKey: key.privateKey,
    keyId: key.keyId,
  })
  return { body: { ...request, ...ASSIGNED }, registry_state: { status: 'active' } }
}

async function marks(envelope: unknown): Promise<Record<string, Mark>> {
  const inspection = await inspectContext(envelope)
  return Object.fromEntries(inspection.items.map((item) => [item.subject, item.mark]))
}

describe('inspectContext', () => {
  it.skipIf(!hasConformance)('verifies the sig-003 golden did:key body', async () => {
    const [fixture] = loadFixtures('sig-003')
    for (const vector of fixture!['vectors'] as Json[]) {
      const body = { ...vector['expected'].publish_request_body, ...vector['registry_assigned'] }
      delete body.note
      expect(await marks({ body, registry_state: { status: 'active' } })).toEqual({
        body: 'verified',
        signature: 'verified',
        registry_receipt: 'not_available',
        log_inclusion: 'not_available',
        witness_signatures: 'not_available',
      })
    }
  })

  it('verifies a freshly signed context', async () => {
    expect(await marks(signedEnvelope())).toMatchObject({ body: 'verified', signature: 'verified' })
  })

  it("judges missing evidence against the registry's relayed profiles", async () => {
    const now = new Date()
    const coreOnly = await inspectContext(signedEnvelope(), {
      now,
      registryProfiles: { known: true, profiles: ['acdp-registry-core'] },
    })
    expect(coreOnly.report?.stages.find((stage) => stage.name === 'registry_receipt')).toMatchObject({
      state: 'not_available',
      called_for: false,
      reason: 'the registry does not advertise acdp-registry-receipts',
    })
    expect(coreOnly.report?.summary).not.toContain('no registry receipt')
    const unknown = await inspectContext(signedEnvelope(), {
      now,
      registryProfiles: { known: false, reason: "the registry's capabilities are not available (NOT_FOUND)" },
    })
    expect(unknown.report?.summary).toContain('no registry receipt')
    expect(unknown.report?.summary).toContain('registry profiles unknown')
  })

  it('marks a tampered body not verified (content hash mismatch) and does not reach the signature', async () => {
    const envelope = signedEnvelope()
    envelope['body'].title = 'tampered'
    const inspection = await inspectContext(envelope)
    expect(inspection.items[0]).toMatchObject({
      mark: 'failed',
      detail: expect.stringContaining('hash_mismatch'),
    })
    expect(inspection.items[1]).toMatchObject({ mark: 'not_checked' })
    // The full stage list the inspector shows under "Every stage": each later stage not checked, with why.
    const stages = inspection.report?.stages ?? []
    expect(stages.find((stage) => stage.name === 'producer_content_hash')?.state).toBe('failed')
    expect(stages.find((stage) => stage.name === 'signature')).toEqual({
      name: 'signature',
      state: 'not_checked',
      reason: 'not checked: the producer_content_hash stage failed first',
      called_for: true,
    })
    expect(inspection.report?.summary).toBe('verification FAILED: producer_content_hash')
  })

  it('marks a body whose hash matches but whose signature was swapped as signature not verified', async () => {
    const genuine = signedEnvelope()
    const other = signedEnvelope()
    // Same producer key, a signature over different content: the hash still matches the body, the signature not.
    genuine['body'].signature = { ...genuine['body'].signature, value: other['body'].signature.value }
    expect(await marks(genuine)).toMatchObject({ body: 'verified', signature: 'failed' })
  })

  it('reports a did:web producer signature as not available (no network from the browser)', async () => {
    expect(await marks(signedEnvelope({ didWeb: true }))).toMatchObject({
      body: 'verified',
      signature: 'not_available',
    })
  })

  it('reports evidence that is present but not checkable as not available, with the reason', async () => {
    const envelope = signedEnvelope()
    envelope['registry_state'].registry_receipt = { any: 'thing' }
    const inspection = await inspectContext(envelope)
    expect(inspection.items.find((item) => item.subject === 'registry_receipt')).toMatchObject({
      mark: 'not_available',
      detail: expect.stringContaining('present'),
    })
  })

  it.each([null, 'text', [1, 2], 42])('refuses a non-envelope answer (%s) without throwing', async (value) => {
    expect(await marks(value)).toMatchObject({ body: 'failed', signature: 'not_checked' })
  })
})

describe('inspectContext reads registry_state.status (RFC-ACDP-0004 §4.1)', () => {
  it.each(['ACTIVE', 'in progress', ''])('rejects the malformed status %j with schema_violation', async (status) => {
    const envelope = signedEnvelope()
    envelope.registry_state = { status }
    const inspection = await inspectContext(envelope)
    const body = inspection.items.find((item) => item.subject === 'body')
    expect(body?.mark).toBe('failed')
    expect(body?.detail).toMatch(/^schema: schema_violation: malformed registry state: registry_state\.status/)
    expect(inspection.items.find((item) => item.subject === 'signature')?.mark).toBe('not_checked')
    expect(inspection.report?.ok).toBe(false)
  })

  it('accepts the unknown well-formed status "paused_x", its warning in the report', async () => {
    const envelope = signedEnvelope()
    envelope.registry_state = { status: 'paused_x' }
    const inspection = await inspectContext(envelope)
    expect(await marks(envelope)).toMatchObject({ body: 'verified', signature: 'verified' })
    expect(inspection.report?.warnings).toEqual([expect.stringContaining('"paused_x"')])
  })
})
