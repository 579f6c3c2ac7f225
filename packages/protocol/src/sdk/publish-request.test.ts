import { describe, expect, it } from 'vitest'
import { hasConformance, loadFixtures, reportMissingConformance } from '../../../../test/support/conformance.js'
import { ProtocolError } from '../errors.js'
import { computeContentHash } from '../hash/content-hash.js'
import { verifyContentSignature } from '../signature/content-signature.js'
import { generateSigningKey } from '../signature/generate-signing-key.js'
import { buildPublishRequest } from './publish-request.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read and tamper with untyped JSON documents
type Json = Record<string, any>

reportMissingConformance('sdk publish request')

// Signature goldens whose keypair seed is published: sig-001 (ed25519), sig-002 (ecdsa-p256), sig-003 (did:key).
// Only vectors that expect a successful publish request are reproducible by a signer (sig-002's DER vector is a
// rejection case for verifiers).
const goldens = loadFixtures('sig-')
  .map((fixture) => ({
    id: fixture.id as string,
    privateKeyHex: (fixture.test_keypair?.private_seed_hex ?? fixture.test_keypair?.private_scalar_hex) as
      string | undefined,
    vectors: (fixture.vectors as Array<Json>).filter(
      (vector) => vector.producer_content !== undefined && vector.expected?.signature_value_base64 !== undefined,
    ),
  }))
  .filter((golden) => golden.privateKeyHex !== undefined && golden.vectors.length > 0)

describe('buildPublishRequest', () => {
  it.runIf(hasConformance)('ran at least one signature golden', () => {
    expect(goldens.length).toBeGreaterThan(0)
    console.info(`[sdk publish request] ${goldens.length} signature golden fixture(s)`)
  })

  describe.each(goldens)('$id', (fixture) => {
    it.each(fixture.vectors)('reproduces the golden publish request: $name', (vector) => {
      const golden = vector.expected.publish_request_body
      const request = buildPublishRequest({
        body: vector.producer_content,
        algorithm: golden.signature.algorithm,
        privateKey: Buffer.from(fixture.privateKeyHex!, 'hex'),
        keyId: golden.signature.key_id,
      })
      expect(request).toEqual(golden)
    })
  })

  it('signs the ASCII content_hash so the signature verifies under the public key', () => {
    const key = generateSigningKey('ecdsa-p256')
    const body = { version: 1, supersedes: null, agent_id: 'did:key:zExample', title: 't', metadata: { n: 1 } }
    const request = buildPublishRequest({
      body,
      algorithm: 'ecdsa-p256',
      privateKey: key.privateKey,
      keyId: 'did:key:zExample#zExample',
    })
    expect(request.content_hash).toBe(computeContentHash(body))
    expect(
      verifyContentSignature({
        algorithm: 'ecdsa-p256',
        publicKey: key.publicKey,
        contentHash: request.content_hash,
        signature: request.signature.value,
      }),
    ).toBe(true)
  })

  it('replaces a stale content_hash and signature instead of hashing them', () => {
    const key = generateSigningKey('ed25519')
    const body = {
      title: 'x',
      content_hash: `sha256:${'0'.repeat(64)}`,
      signature: { algorithm: 'ed25519', key_id: 'k', value: 'v' },
    }
    const request = buildPublishRequest({
      body,
      algorithm: 'ed25519',
      privateKey: key.privateKey,
      keyId: 'did:key:z#z',
    })
    expect(request.content_hash).toBe(computeContentHash({ title: 'x' }))
    expect(request.signature.key_id).toBe('did:key:z#z')
  })

  it('keeps a supplied lineage_id in the request but out of the hash', () => {
    const key = generateSigningKey('ed25519')
    const lineageId = `lin:sha256:${'a'.repeat(64)}`
    const request = buildPublishRequest({
      body: { title: 'v2', version: 2, lineage_id: lineageId },
      algorithm: 'ed25519',
      privateKey: key.privateKey,
      keyId: 'did:key:z#z',
    })
    expect(request['lineage_id']).toBe(lineageId)
    expect(request.content_hash).toBe(computeContentHash({ title: 'v2', version: 2 }))
  })

  it.each([['ctx_id'], ['origin_registry'], ['created_at']])(
    'refuses a body carrying registry-assigned %s',
    (member) => {
      const key = generateSigningKey('ed25519')
      const call = () =>
        buildPublishRequest({
          body: { title: 'x', [member]: 'value' },
          algorithm: 'ed25519',
          privateKey: key.privateKey,
          keyId: 'did:key:z#z',
        })
      expect(call).toThrow(ProtocolError)
      expect(call).toThrow(
        expect.objectContaining({
          code: 'malformed_input',
          details: { reason: 'registry_assigned_member', members: [member] },
        }),
      )
    },
  )

  it('does not modify the caller’s body', () => {
    const key = generateSigningKey('ed25519')
    const body = { title: 'x' }
    buildPublishRequest({ body, algorithm: 'ed25519', privateKey: key.privateKey, keyId: 'did:key:z#z' })
    expect(body).toEqual({ title: 'x' })
  })
})
