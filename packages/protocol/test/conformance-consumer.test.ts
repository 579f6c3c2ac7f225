/**
 * Consumer conformance for historical keys and key revocation (rot-001, rev-001, rev-002), driven through the
 * SDK verifier (`verifyContext` with evidence) on the golden material only: the sig-001 body (signed by K1), the
 * rcpt-001 receipt over it (registry seed 11…11), rot-001's DID document (K1 retired to verificationMethod, K2
 * current) and rev-001's revocation of K1 signed by K2. Where a scenario needs a receipt at another time (rev-002
 * B) it is minted with the rcpt-001 registry test key, as the fixture describes. Expected outcomes are read from
 * each scenario.
 */
import { expect, it } from 'vitest'
import {
  describeConformance,
  type Fixture,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import { DidResolver } from '../src/did/index.js'
import { signRegistryReceipt } from '../src/receipt/index.js'
import { assertRevocationNotSelfSigned, type KeyRevocation, parseKeyRevocation } from '../src/revocation/index.js'
import { type VerificationReport, verifyContext } from '../src/sdk/index.js'
import type { RegistryReceipt } from '../src/wire/log.js'
import { didDocumentOf } from './support/fake-registry.js'

reportMissingConformance('consumer conformance (rot-, rev-)')
const one = (prefix: string) => loadFixtures(prefix)[0] as Fixture
const NOW = new Date('2026-07-01T00:00:00.000Z')

describeConformance('rot-001 and rev-002 through verifyContext (golden material)', () => {
  const sig = one('sig-001')
  const rcpt = one('rcpt-001')
  const rot = one('rot-001')
  const rev1 = one('rev-001')
  const rev2 = one('rev-002')
  const goldenReceipt = rcpt.vectors[0].expected.registry_receipt as Record<string, unknown>
  const registryKey = {
    keyId: rcpt.registry_test_keypair.key_id as string,
    publicKey: new Uint8Array(Buffer.from(rcpt.registry_test_keypair.public_key_hex, 'hex')),
  }
  const registryDocument = didDocumentOf('did:web:registry.example.com', [registryKey])

  /** The sig-001 body with the registry-assigned members the rcpt-001 receipt binds (created_at overridable). */
  function envelope(createdAt = goldenReceipt.created_at as string, receipt: unknown = goldenReceipt) {
    // `null` serves the context without a receipt.
    const vector = sig.vectors[0]
    const body = {
      ...vector.producer_content,
      content_hash: vector.expected.content_hash,
      signature: {
        algorithm: 'ed25519',
        key_id: 'did:web:agents.example.com:test-producer#key-1',
        value: vector.expected.signature_value_base64,
      },
      ctx_id: goldenReceipt.ctx_id,
      lineage_id: goldenReceipt.lineage_id,
      origin_registry: goldenReceipt.origin_registry,
      created_at: createdAt,
    }
    return {
      body,
      registry_state: { status: 'active' },
      ...(receipt === null ? {} : { registry_receipt: receipt }),
    }
  }

  function resolver(producerDocument: Record<string, unknown>): DidResolver {
    const documents = new Map([
      ['https://agents.example.com/test-producer/did.json', producerDocument],
      ['https://registry.example.com/.well-known/did.json', registryDocument],
    ])
    return new DidResolver({
      fetchDidDocument: async (url) => {
        const doc = documents.get(url.href)
        return doc
          ? { status: 200, body: new TextEncoder().encode(JSON.stringify(doc)) }
          : { status: 404, body: new Uint8Array() }
      },
      clock: () => NOW.getTime(),
    })
  }

  const rotDocument = rot.input.producer_did_document as Record<string, unknown>
  const verify = (env: Record<string, unknown>, doc = rotDocument, revocations?: KeyRevocation[]) =>
    verifyContext(env, {
      resolver: resolver(doc),
      evidence: { now: NOW, ...(revocations ? { revocations } : {}) },
    })
  const outcomeOf = (report: VerificationReport) => (report.ok ? 'success' : 'failure')
  const expected = (fx: Fixture, letter: string) =>
    (fx.scenarios as Array<{ name: string; expected: { outcome: string } }>).find((s) =>
      s.name.startsWith(`${letter} `),
    )?.expected.outcome

  it('rot-001: A historically authorized with the receipt, B fails without, C fails once K1 is removed', async () => {
    const a = await verify(envelope())
    expect(outcomeOf(a)).toBe(expected(rot, 'A'))
    expect(a.checks.find((c) => c.name === 'historical_key')).toMatchObject({ ok: true })
    expect(outcomeOf(await verify(envelope(undefined, null)))).toBe(expected(rot, 'B'))
    const removed = {
      ...rotDocument,
      verificationMethod: (rotDocument.verificationMethod as Array<{ id: string }>).filter(
        (m) => !m.id.endsWith('#key-1'),
      ),
    }
    expect(outcomeOf(await verify(envelope(), removed))).toBe(expected(rot, 'C'))
  })

  /** rev-001's revocation, verified as a context and against the §5 self-signature rule. */
  async function goldenRevocation(): Promise<KeyRevocation> {
    const vector = rev1.vectors[0]
    const body = {
      ...vector.expected.publish_request_body,
      ctx_id: 'acdp://registry.example.com/22222222-2222-4222-8222-222222222222',
      lineage_id: 'lin:sha256:' + 'a'.repeat(64),
      origin_registry: 'registry.example.com',
      created_at: '2026-05-01T01:00:00.000Z',
    }
    const doc = resolver(rotDocument)
    const report = await verifyContext({ body, registry_state: { status: 'active' } }, { resolver: doc })
    expect(report.ok).toBe(true)
    const revocation = parseKeyRevocation(body)
    assertRevocationNotSelfSigned(revocation, await doc.resolveKey(body.signature.key_id))
    expect(revocation).toMatchObject({ trustClass: 'producer-signed', compromisedSince: '2026-05-01T00:00:00.000Z' })
    return revocation
  }

  it('rev-002: A before T succeeds as pre-compromise, B at/after T and C without receipt fail closed', async () => {
    const revocation = await goldenRevocation()
    const a = await verify(envelope(), rotDocument, [revocation])
    expect(outcomeOf(a)).toBe(expected(rev2, 'A'))
    expect(a.checks.find((c) => c.name === 'key_revocation')?.detail).toContain(
      'historically authorized (pre-compromise, receipt-attested)',
    )

    const lateAt = '2026-05-03T09:00:00.000Z'
    const { signature: _golden, ...unsigned } = goldenReceipt
    const lateReceipt = signRegistryReceipt(
      { ...(unsigned as Omit<RegistryReceipt, 'signature'>), created_at: lateAt },
      {
        algorithm: 'ed25519',
        keyId: registryKey.keyId,
        privateKey: new Uint8Array(Buffer.from(rcpt.registry_test_keypair.private_seed_hex, 'hex')),
      },
    )
    const b = await verify(envelope(lateAt, lateReceipt), rotDocument, [revocation])
    expect(outcomeOf(b)).toBe(expected(rev2, 'B'))
    expect(b.checks.find((c) => c.name === 'registry_receipt')).toMatchObject({ ok: true })
    expect(b.checks.find((c) => c.name === 'key_revocation')).toMatchObject({ ok: false })

    expect(outcomeOf(await verify(envelope(undefined, null), rotDocument, [revocation]))).toBe(expected(rev2, 'C'))
  })

  it('rev-002 D: a registry-attested statement is classified apart from a producer-signed one', async () => {
    const revocation = await goldenRevocation()
    const attested = parseKeyRevocation(
      {
        type: 'key-revocation',
        visibility: 'public',
        agent_id: 'did:web:registry.example.com',
        metadata: {
          revoked_key_fingerprint: revocation.revokedKeyFingerprint,
          compromised_since: revocation.compromisedSince,
          revoked_key_controller: 'did:web:agents.example.com:test-producer',
        },
      },
      { registryDid: 'did:web:registry.example.com' },
    )
    expect(attested.trustClass).toBe('registry-attested')
    const report = await verify(envelope(), rotDocument, [attested])
    expect(outcomeOf(report)).toBe(expected(rev2, 'D'))
    expect(report.checks.find((c) => c.name === 'key_revocation')?.detail).toContain('registry-attested')
  })
})
