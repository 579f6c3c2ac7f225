import { describe, expect, it } from 'vitest'
import {
  type FakeProducer,
  FakeRegistry,
  didDocumentOf,
  fakeDidKeyProducer,
  fakeProducer,
} from '../../test/support/fake-registry.js'
import { cosignCheckpoint } from '../cosignature/index.js'
import { signLifecycleEvent } from '../lifecycle/index.js'
import { signLineageHeadReceipt } from '../receipt/index.js'
import { DidResolver } from '../did/index.js'
import { computeKeyFingerprint } from '../keys/index.js'
import type { KeyRevocation } from '../revocation/index.js'
import { ed25519PublicKeyFromSeed } from '../signature/index.js'
import { verifyContext } from './verify-context.js'

const NOW = new Date('2026-05-10T00:00:00.000Z')

function resolverFor(documents: Array<Record<string, unknown>>): DidResolver {
  const byUrl = new Map(
    documents.map((doc) => {
      const [, , host, ...path] = String(doc.id).split(':')
      const url =
        path.length === 0 ? `https://${host}/.well-known/did.json` : `https://${host}/${path.join('/')}/did.json`
      return [url, doc]
    }),
  )
  return new DidResolver({
    fetchDidDocument: async (url) => {
      const doc = byUrl.get(url.href)
      return doc
        ? { status: 200, body: new TextEncoder().encode(JSON.stringify(doc)) }
        : { status: 404, body: new Uint8Array() }
    },
    clock: () => NOW.getTime(),
  })
}

const checksOf = (report: { checks: Array<{ name: string; ok: boolean }> }) =>
  Object.fromEntries(report.checks.map((c) => [c.name, c.ok]))
const statesOf = (report: { stages: Array<{ name: string; state: string }> }) =>
  Object.fromEntries(report.stages.map((stage) => [stage.name, stage.state]))

function setup(producer: FakeProducer = fakeDidKeyProducer(3)) {
  const registry = new FakeRegistry({ authority: 'registry.example.com' })
  const ctxId = registry.publish(producer)
  registry.publish(producer)
  return { registry, ctxId, producer }
}

describe('verifyContext with evidence (receipt, inclusion, witnesses)', () => {
  it('verifies an honest envelope end to end and reports each stage', async () => {
    const { registry, ctxId } = setup()
    const witnessKey = new Uint8Array(32).fill(0x33)
    const witness = fakeDidKeyProducer(0x33)
    const inclusion = registry.inclusion(ctxId) as Record<string, unknown>
    const envelope = {
      ...registry.envelope(ctxId),
      log_inclusion: inclusion,
      witness_signatures: [
        cosignCheckpoint({
          checkpoint: inclusion.log_checkpoint as never,
          witnessId: witness.did,
          witnessedAt: NOW,
          key: { algorithm: 'ed25519', keyId: witness.keyId, privateKey: witnessKey },
        }),
      ],
    }
    const report = await verifyContext(envelope, {
      resolver: resolverFor([registry.didDocument()]),
      evidence: { now: NOW },
    })
    expect(checksOf(report)).toEqual({
      schema: true,
      producer_content_hash: true,
      key_binding: true,
      did_resolution: true,
      signature: true,
      registry_receipt: true,
      log_inclusion: true,
      witness_signatures: true,
    })
    expect(report.ok).toBe(true)
    // No revocation list was given, so the one stage left is said to be not checked (never silently passed).
    expect(report.unchecked).toEqual(['key_revocation'])
    expect(report.summary).toBe(
      'body, signature, registry_receipt, log_inclusion and witness_signatures verified; key_revocation not checked',
    )
    const withRevocations = await verifyContext(envelope, {
      resolver: resolverFor([registry.didDocument()]),
      evidence: { now: NOW, revocations: [] },
    })
    expect(withRevocations.unchecked).toEqual([])
    expect(withRevocations.summary).toMatch(/^verified: schema, .*, witness_signatures, key_revocation$/)
  })

  it('fails the receipt and everything resting on it when the receipt is forged', async () => {
    const { registry, ctxId } = setup()
    registry.tamper = 'receipt_signature'
    const envelope = { ...registry.envelope(ctxId), log_inclusion: registry.inclusion(ctxId) }
    const report = await verifyContext(envelope, {
      resolver: resolverFor([registry.didDocument()]),
      evidence: { now: NOW },
    })
    expect(report.ok).toBe(false)
    expect(checksOf(report)).toMatchObject({ signature: true, registry_receipt: false })
    // The proof rests on the receipt (its leaf is rebuilt from it): not checked, and it says why.
    expect(statesOf(report)).toMatchObject({ registry_receipt: 'failed', log_inclusion: 'not_checked' })
    expect(report.stages.find((stage) => stage.name === 'log_inclusion')?.reason).toMatch(/needs a verified receipt/)
    expect(report.summary).toBe('verification FAILED: registry_receipt')
  })

  it('fails a tampered inclusion path and a cosignature over another tree', async () => {
    const { registry, ctxId } = setup()
    registry.tamper = 'inclusion_path'
    const tampered = await verifyContext(
      { ...registry.envelope(ctxId), log_inclusion: registry.inclusion(ctxId) },
      { resolver: resolverFor([registry.didDocument()]), evidence: { now: NOW } },
    )
    expect(checksOf(tampered)).toMatchObject({ registry_receipt: true, log_inclusion: false })

    registry.tamper = undefined
    const inclusion = registry.inclusion(ctxId, 1) as Record<string, unknown>
    const witness = fakeDidKeyProducer(0x34)
    const otherTree = registry.checkpoint(2)
    const report = await verifyContext(
      {
        ...registry.envelope(ctxId),
        log_inclusion: inclusion,
        witness_signatures: [
          cosignCheckpoint({
            checkpoint: otherTree,
            witnessId: witness.did,
            witnessedAt: NOW,
            key: { algorithm: 'ed25519', keyId: witness.keyId, privateKey: witness.privateKey },
          }),
        ],
      },
      { resolver: resolverFor([registry.didDocument()]), evidence: { now: NOW } },
    )
    expect(checksOf(report)).toMatchObject({ log_inclusion: true, witness_signatures: false })
  })

  it('lists evidence as unchecked when evidence verification is not asked for', async () => {
    const { registry, ctxId } = setup()
    const report = await verifyContext(registry.envelope(ctxId) as Record<string, unknown>, {
      resolver: resolverFor([registry.didDocument()]),
    })
    expect(report.ok).toBe(true)
    expect(report.unchecked).toEqual(['registry_receipt', 'key_revocation'])
    expect(statesOf(report)).toMatchObject({ log_inclusion: 'not_available', witness_signatures: 'not_available' })
  })
})

describe('time-scoped key revocation (RFC-ACDP-0014 §7, rev-002) and historical keys (rot-001)', () => {
  const did = 'did:web:agents.example.com:test-producer'
  const k1 = fakeProducer(did, 0, 'key-1')
  const k2 = fakeProducer(did, 0x42, 'key-2')
  const revocation: KeyRevocation = {
    revokedKeyFingerprint: computeKeyFingerprint({ algorithm: 'ed25519', publicKey: k1.publicKey }),
    compromisedSince: '2026-05-01T00:00:00.000Z',
    controller: did,
    trustClass: 'producer-signed',
  }
  // rot-001's DID document: K1 retained in verificationMethod only, K2 current.
  const rotated = didDocumentOf(did, [k1, k2], [k2])

  async function verifyAt(createdAt: string, options: { receipt?: boolean; revocations?: KeyRevocation[] } = {}) {
    const registry = new FakeRegistry({ authority: 'registry.example.com' })
    const ctxId = registry.publish(k1, {}, createdAt)
    const envelope = registry.envelope(ctxId) as Record<string, unknown>
    if (options.receipt === false) delete envelope.registry_receipt
    return verifyContext(envelope, {
      resolver: resolverFor([registry.didDocument(), rotated]),
      evidence: { now: NOW, ...(options.revocations ? { revocations: options.revocations } : {}) },
    })
  }

  it('accepts a retired key with a receipt attesting it (historically authorized) and fails closed without', async () => {
    const withReceipt = await verifyAt('2026-04-16T10:30:15.123Z')
    expect(checksOf(withReceipt)).toMatchObject({ did_resolution: true, registry_receipt: true, historical_key: true })
    expect(withReceipt.ok).toBe(true)
    const without = await verifyAt('2026-04-16T10:30:15.123Z', { receipt: false })
    expect(without.ok).toBe(false)
    expect(checksOf(without)).toMatchObject({ did_resolution: false })
  })

  it('before T: historically authorized (pre-compromise, receipt-attested)', async () => {
    const report = await verifyAt('2026-04-16T10:30:15.123Z', { revocations: [revocation] })
    expect(report.ok).toBe(true)
    const stage = report.checks.find((c) => c.name === 'key_revocation')
    expect(stage).toMatchObject({ ok: true })
    expect(stage?.detail).toContain('historically authorized (pre-compromise, receipt-attested)')
    expect(stage?.detail).toContain('producer-signed')
  })

  it('at or after T: fail closed despite a valid receipt; no receipt: fail closed', async () => {
    const after = await verifyAt('2026-05-03T09:00:00.000Z', { revocations: [revocation] })
    expect(after.ok).toBe(false)
    expect(checksOf(after)).toMatchObject({ registry_receipt: true, key_revocation: false })
    const atT = await verifyAt(revocation.compromisedSince, { revocations: [revocation] })
    expect(checksOf(atT).key_revocation).toBe(false)
    const unplaceable = await verifyAt('2026-04-16T10:30:15.123Z', { receipt: false, revocations: [revocation] })
    expect(unplaceable.ok).toBe(false)
  })

  it('keeps the trust classes distinguishable and ignores a revocation of another controller', async () => {
    const attested = await verifyAt('2026-05-03T09:00:00.000Z', {
      revocations: [{ ...revocation, trustClass: 'registry-attested' }],
    })
    expect(attested.checks.find((c) => c.name === 'key_revocation')?.detail).toContain('registry-attested')
    const foreign = await verifyAt('2026-05-03T09:00:00.000Z', {
      revocations: [{ ...revocation, controller: 'did:web:agents.example.com:someone-else' }],
    })
    expect(checksOf(foreign).key_revocation).toBe(true)
    expect(ed25519PublicKeyFromSeed(k1.privateKey)).toEqual(k1.publicKey)
  })
})

describe('lifecycle events in registry_state (RFC-ACDP-0013 §5 consumer verification)', () => {
  it('verifies producer-signed events, accepts unsigned registry events, refuses forged or unbound ones', async () => {
    const { registry, ctxId, producer } = setup()
    const base = registry.envelope(ctxId) as Record<string, unknown>
    const event = signLifecycleEvent(
      {
        event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e2f',
        ctx_id: ctxId,
        event_type: 'retracted',
        occurred_at: '2026-05-02T00:00:00.000Z',
        actor: producer.did,
      },
      { algorithm: 'ed25519', keyId: producer.keyId, privateKey: producer.privateKey },
    )
    const adminEvent = {
      event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e30',
      ctx_id: ctxId,
      event_type: 'republished',
      occurred_at: '2026-05-03T00:00:00.000Z',
      actor: registry.registryDid,
    }
    const withEvents = (events: unknown[]) => ({
      ...base,
      registry_state: { status: 'retracted', lifecycle_events: events },
    })
    const verify = (events: unknown[]) =>
      verifyContext(withEvents(events), { resolver: resolverFor([registry.didDocument()]), evidence: { now: NOW } })
    const good = await verify([event, adminEvent])
    expect(good.checks.find((c) => c.name === 'lifecycle_events')).toMatchObject({ ok: true })
    expect(good.ok).toBe(true)
    expect(checksOf(await verify([{ ...event, reason: 'edited later' }])).lifecycle_events).toBe(false)
    expect(checksOf(await verify([{ ...event, signature: undefined }])).lifecycle_events).toBe(false)
    const otherCtx = ctxId.replace(/.$/, '9')
    expect(checksOf(await verify([{ ...adminEvent, ctx_id: otherCtx }])).lifecycle_events).toBe(false)
  })
})

describe('verifyContext require (receipt, log, witness=N)', () => {
  function witnessed(count: number) {
    const { registry, ctxId } = setup()
    const inclusion = registry.inclusion(ctxId) as Record<string, unknown>
    const cosignatures = Array.from({ length: count }, (_, index) => {
      const witness = fakeDidKeyProducer(0x40 + index)
      return cosignCheckpoint({
        checkpoint: inclusion.log_checkpoint as never,
        witnessId: witness.did,
        witnessedAt: NOW,
        key: { algorithm: 'ed25519', keyId: witness.keyId, privateKey: witness.privateKey },
      })
    })
    return { registry, ctxId, inclusion, cosignatures }
  }

  it('turns a missing receipt, proof or cosignature into a failure that names the requirement', async () => {
    const { registry, ctxId } = setup()
    const { registry_receipt: _dropped, ...withoutReceipt } = registry.envelope(ctxId) as Record<string, unknown>
    const resolver = resolverFor([registry.didDocument()])
    const lenient = await verifyContext(withoutReceipt, { resolver, evidence: { now: NOW } })
    expect(lenient.ok).toBe(true)
    expect(statesOf(lenient)).toMatchObject({
      registry_receipt: 'not_available',
      log_inclusion: 'not_available',
      witness_signatures: 'not_available',
    })
    expect(lenient.summary).toBe(
      'body and signature verified; no registry receipt; no inclusion proof; no witness cosignatures; key_revocation not checked',
    )

    const strict = await verifyContext(withoutReceipt, {
      resolver,
      evidence: { now: NOW },
      require: { receipt: true, log: true, witnesses: 1 },
    })
    expect(strict.ok).toBe(false)
    expect(statesOf(strict)).toMatchObject({
      registry_receipt: 'failed',
      log_inclusion: 'failed',
      witness_signatures: 'failed',
    })
    const reasons = Object.fromEntries(strict.stages.map((stage) => [stage.name, stage.reason]))
    expect(reasons['registry_receipt']).toBe('required (receipt): the registry attaches no registry_receipt')
    expect(reasons['witness_signatures']).toMatch(/^required \(witness=1\): /)
    expect(strict.summary).toBe('verification FAILED: registry_receipt, log_inclusion, witness_signatures')
  })

  it('counts distinct verified witnesses against witness=N', async () => {
    const { registry, ctxId, inclusion, cosignatures } = witnessed(1)
    const envelope = { ...registry.envelope(ctxId), log_inclusion: inclusion, witness_signatures: cosignatures }
    const options = { resolver: resolverFor([registry.didDocument()]), evidence: { now: NOW, revocations: [] } }
    const one = await verifyContext(envelope, { ...options, require: { receipt: true, log: true, witnesses: 1 } })
    expect(one.ok).toBe(true)
    expect(one.summary).toMatch(/^verified: /)
    const two = await verifyContext(envelope, { ...options, require: { witnesses: 2 } })
    expect(two.ok).toBe(false)
    expect(two.stages.find((stage) => stage.name === 'witness_signatures')).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^required \(witness=2\): only 1 witness\(es\) cosigned/),
    })
    const both = witnessed(2)
    const twoOfTwo = await verifyContext(
      {
        ...both.registry.envelope(both.ctxId),
        log_inclusion: both.inclusion,
        witness_signatures: both.cosignatures,
      },
      { resolver: resolverFor([both.registry.didDocument()]), evidence: { now: NOW }, require: { witnesses: 2 } },
    )
    expect(statesOf(twoOfTwo)).toMatchObject({ witness_signatures: 'verified' })
    expect(twoOfTwo.ok).toBe(true)
  })

  it('reports cosignatures without a proof as not checked (they need its checkpoint)', async () => {
    const { registry, ctxId, cosignatures } = witnessed(1)
    const report = await verifyContext(
      { ...registry.envelope(ctxId), witness_signatures: cosignatures },
      { resolver: resolverFor([registry.didDocument()]), evidence: { now: NOW } },
    )
    expect(statesOf(report)).toMatchObject({
      registry_receipt: 'verified',
      log_inclusion: 'not_available',
      witness_signatures: 'not_checked',
    })
    expect(report.unchecked).toEqual(['witness_signatures', 'key_revocation'])
  })
})

describe('verifyContext lineage_head_receipt (RFC-ACDP-0011 §7, full retrieval)', () => {
  function withHeadReceipt(change: Record<string, unknown> = {}) {
    const { registry, ctxId } = setup()
    const envelope = registry.envelope(ctxId) as Record<string, Record<string, unknown>>
    const receipt = signLineageHeadReceipt(
      {
        receipt_version: 'acdp-lhr/1',
        registry_did: registry.registryDid,
        lineage_id: String(envelope['body']!['lineage_id']),
        head_ctx_id: ctxId,
        head_version: Number(envelope['body']!['version']),
        head_status: 'active',
        as_of: NOW.toISOString(),
        ...change,
      },
      registry.receiptKey,
    )
    return { registry, envelope: { ...envelope, lineage_head_receipt: receipt } }
  }

  it('verifies a head receipt naming the served context and fails one naming another version', async () => {
    const honest = withHeadReceipt()
    const resolver = resolverFor([honest.registry.didDocument()])
    const report = await verifyContext(honest.envelope, { resolver, evidence: { now: NOW } })
    expect(report.stages.find((stage) => stage.name === 'lineage_head_receipt')).toMatchObject({
      state: 'verified',
      reason: expect.stringContaining('this context (version 1, active)'),
    })
    const lying = withHeadReceipt({ head_version: 7 })
    const failed = await verifyContext(lying.envelope, {
      resolver: resolverFor([lying.registry.didDocument()]),
      evidence: { now: NOW },
    })
    expect(failed.stages.find((stage) => stage.name === 'lineage_head_receipt')).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^invalid_receipt: verification_failed\/head_version_mismatch/),
    })
    expect(failed.ok).toBe(false)
    // Without evidence options it is reported, as not checked, never dropped.
    const unasked = await verifyContext(honest.envelope, { resolver })
    expect(unasked.stages.find((stage) => stage.name === 'lineage_head_receipt')).toEqual({
      name: 'lineage_head_receipt',
      state: 'not_checked',
      reason: 'registry evidence was not requested (no evidence options)',
      called_for: true,
    })
  })
})
