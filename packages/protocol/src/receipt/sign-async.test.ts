import { describe, expect, it } from 'vitest'
import { signContentHash, signContentHashAsync } from '../signature/index.js'
import { signRegistryReceipt, signRegistryReceiptAsync } from './registry-receipt.js'

const unsigned = {
  registry_did: 'did:web:registry.example.com',
  ctx_id: 'acdp://registry.example.com/12345678-1234-4321-8123-123456781234',
  lineage_id: 'lin:sha256:c7fef01c000f8edaa9cb46122ceb5d7bca38328f002fb0f40e362e3b289bbb2a',
  origin_registry: 'registry.example.com',
  created_at: '2026-04-16T10:30:15.123Z',
  content_hash: `sha256:${'a'.repeat(64)}`,
  key_fingerprint: `sha256:${'b'.repeat(64)}`,
}

describe('asynchronous signing (libuv pool) produces exactly the synchronous bytes', () => {
  it.each(['ed25519', 'ecdsa-p256'] as const)('%s receipts', async (algorithm) => {
    const key = {
      algorithm,
      keyId: 'did:web:registry.example.com#receipt-key-1',
      privateKey: new Uint8Array(32).fill(9),
    }
    expect(await signRegistryReceiptAsync(unsigned, key)).toEqual(signRegistryReceipt(unsigned, key))
  })

  it('refuses what the synchronous signer refuses, the same way', async () => {
    const key = { algorithm: 'ed25519' as const, keyId: 'did:web:other.example.com#k', privateKey: new Uint8Array(32) }
    await expect(signRegistryReceiptAsync(unsigned, key)).rejects.toMatchObject({
      code: 'invalid_structure',
      details: { reason: 'key_id_not_under_registry_did' },
    })
    const bad = { algorithm: 'ed25519' as const, privateKey: new Uint8Array(32), contentHash: 'sha256:XYZ' }
    expect(() => signContentHash(bad)).toThrow(expect.objectContaining({ code: 'invalid_hash_format' }))
    expect(() => signContentHashAsync(bad)).toThrow(expect.objectContaining({ code: 'invalid_hash_format' }))
    const odd = { algorithm: 'rsa' as never, privateKey: new Uint8Array(32), contentHash: `sha256:${'c'.repeat(64)}` }
    expect(() => signContentHashAsync(odd)).toThrow(expect.objectContaining({ code: 'unsupported_algorithm' }))
  })
})
