import { describe, expect, it } from 'vitest'
import { computeKeyFingerprint } from '../keys/index.js'
import { ed25519PublicKeyFromSeed, p256PublicKeyFromPrivate } from '../signature/index.js'
import { verifyLineageHeadReceipt } from './lineage-head-receipt.js'
import { computeReceiptHash } from './receipt-hash.js'
import { signReceiptHash, verifyReceiptSignature } from './receipt-signature.js'
import { assertRegistryBinding, didOfKeyId, hostOfRegistryDid, registryDidForAuthority } from './registry-binding.js'
import { signRegistryReceipt, verifyRegistryReceipt } from './registry-receipt.js'
import { reasonOf } from '../../test/support/rejection.js'

describe('registry authority binding (RFC-ACDP-0010 §8 step 2)', () => {
  it.each([
    { authority: 'registry.example.com', did: 'did:web:registry.example.com' },
    { authority: 'Registry.Example.COM', did: 'did:web:registry.example.com' },
    { authority: 'localhost:8443', did: 'did:web:localhost%3A8443' },
  ])('the registry DID of $authority is $did', ({ authority, did }) => {
    expect(registryDidForAuthority(authority)).toBe(did)
  })

  it.each([
    { did: 'did:web:registry.example.com', host: 'registry.example.com' },
    { did: 'did:web:localhost%3A8443', host: 'localhost' },
    { did: 'did:web:example.com:registry', host: undefined },
    { did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', host: undefined },
  ])('the host of $did is $host', ({ did, host }) => {
    expect(hostOfRegistryDid(did)).toBe(host)
  })

  it.each([
    { keyId: 'did:web:registry.example.com#receipt-key-1', did: 'did:web:registry.example.com' },
    { keyId: 'did:web:registry.example.com', did: undefined },
    { keyId: 'did:web:registry.example.com/path#k', did: undefined },
    { keyId: 'not a did#k', did: undefined },
  ])('the DID of key id $keyId is $did', ({ keyId, did }) => {
    expect(didOfKeyId(keyId)).toBe(did)
  })

  it.each([
    { name: 'matching port', patch: {}, reason: undefined },
    { name: 'other port', patch: { authority: 'localhost:9000' }, reason: 'registry_did_mismatch' },
    {
      name: 'key id without fragment',
      patch: { keyId: 'did:web:localhost%3A8443' },
      reason: 'key_id_not_under_registry_did',
    },
    {
      name: 'capabilities disagree',
      patch: { capabilitiesRegistryDid: 'did:web:other' },
      reason: 'capabilities_registry_did_mismatch',
    },
  ])('binding with $name', async ({ patch, reason }) => {
    const input = {
      registryDid: 'did:web:localhost%3A8443',
      keyId: 'did:web:localhost%3A8443#k1',
      authority: 'localhost:8443',
      ...patch,
    }
    if (reason === undefined) assertRegistryBinding(input)
    else expect(await reasonOf(() => assertRegistryBinding(input))).toEqual({ code: 'verification_failed', reason })
  })
})

describe('receipts signed with ecdsa-p256 (optional algorithm, IEEE 1363 r‖s)', () => {
  const privateKey = new Uint8Array(32).fill(7)
  const key = { algorithm: 'ecdsa-p256' as const, keyId: 'did:web:registry.example.com#p256-1', privateKey }
  const publicKey = { algorithm: 'ecdsa-p256' as const, publicKey: p256PublicKeyFromPrivate(privateKey) }
  const producerKey = { algorithm: 'ed25519' as const, publicKey: ed25519PublicKeyFromSeed(new Uint8Array(32).fill(1)) }
  const unsigned = {
    registry_did: 'did:web:registry.example.com',
    ctx_id: 'acdp://registry.example.com/12345678-1234-4321-8123-123456781234',
    lineage_id: 'lin:sha256:c7fef01c000f8edaa9cb46122ceb5d7bca38328f002fb0f40e362e3b289bbb2a',
    origin_registry: 'registry.example.com',
    created_at: '2026-04-16T10:30:15.123Z',
    content_hash: `sha256:${'a'.repeat(64)}`,
    key_fingerprint: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
  }

  it('mints deterministically and verifies; an Ed25519 key for the same id is an algorithm mismatch', async () => {
    const receipt = signRegistryReceipt({ ...unsigned, key_fingerprint: computeKeyFingerprint(producerKey) }, key)
    expect(signRegistryReceipt({ ...unsigned, key_fingerprint: receipt.key_fingerprint }, key)).toEqual(receipt)
    const input = {
      receipt,
      authority: 'registry.example.com',
      context: receipt,
      contentHash: receipt.content_hash,
      producerKey,
    }
    await verifyRegistryReceipt({ ...input, resolveKey: () => publicKey })
    expect(await reasonOf(() => verifyRegistryReceipt({ ...input, resolveKey: () => producerKey }))).toEqual({
      code: 'verification_failed',
      reason: 'algorithm_mismatch',
    })
  })

  it('refuses a signature value that is not 64 bytes of base64 as an encoding failure', async () => {
    const hash = computeReceiptHash(unsigned)
    const signature = { ...signReceiptHash(hash, key), value: 'AAAA' }
    expect(await reasonOf(() => verifyReceiptSignature(hash, signature, publicKey))).toEqual({
      code: 'verification_failed',
      reason: 'signature_encoding_invalid',
    })
  })
})

describe('malformed receipts yield domain errors, never a TypeError', () => {
  const base = {
    authority: 'registry.example.com',
    resolveKey: () => {
      throw new Error('must not resolve')
    },
  }
  it.each([null, 42, 'receipt', [], {}, { registry_did: 'did:web:registry.example.com' }])(
    'registry receipt %j',
    async (receipt) => {
      const result = await reasonOf(() =>
        verifyRegistryReceipt({
          ...base,
          receipt,
          context: { ctx_id: '', lineage_id: '', origin_registry: '', created_at: '' },
          contentHash: '',
          producerKey: { algorithm: 'ed25519', publicKey: new Uint8Array(32) },
        }),
      )
      expect(result).toEqual({ code: 'invalid_structure', reason: 'schema_violation' })
    },
  )

  it.each([null, 'x', { receipt_version: 'acdp-lhr/2' }])('head receipt %j', async (receipt) => {
    const result = await reasonOf(() =>
      verifyLineageHeadReceipt({
        ...base,
        receipt,
        lineageId: '',
        endpoint: 'current',
        served: { ctx_id: '', version: 1, status: 'active' },
        now: new Date(0),
      }),
    )
    expect(result).toEqual({ code: 'invalid_structure', reason: 'schema_violation' })
  })
})
