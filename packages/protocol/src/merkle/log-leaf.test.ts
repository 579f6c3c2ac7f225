import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { computeReceiptHash } from '../receipt/receipt-hash.js'
import { mintRegistryReceipt, mintRegistryReceiptAsync } from '../receipt/registry-receipt.js'
import { buildLogLeaf, encodeLogLeaf, encodeMintedLogLeaf } from './log-leaf.js'

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

function randomUnsigned(host: string) {
  return {
    registry_did: `did:web:${host}`,
    ctx_id: `acdp://${host}/${randomUUID()}`,
    lineage_id: `lin:sha256:${hex(32)}`,
    origin_registry: host,
    created_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(Math.random() * 3e10)).toISOString(),
    content_hash: `sha256:${hex(32)}`,
    key_fingerprint: `sha256:${hex(32)}`,
  }
}

describe('a minted receipt carries the hash it signed, and its leaf needs no second canonicalization', () => {
  it.each(['ed25519', 'ecdsa-p256'] as const)('%s: same receipt hash and the same leaf bytes', async (algorithm) => {
    for (const host of ['registry.example.com', 'r.example', 'a-b.c-d.example.org']) {
      const key = { algorithm, keyId: `did:web:${host}#receipt-key-1`, privateKey: randomBytes(32) }
      for (let i = 0; i < 20; i++) {
        const unsigned = randomUnsigned(host)
        for (const minted of [mintRegistryReceipt(unsigned, key), await mintRegistryReceiptAsync(unsigned, key)]) {
          expect(minted.receiptHash).toBe(computeReceiptHash(minted.receipt))
          expect(Buffer.from(encodeMintedLogLeaf(minted))).toEqual(
            Buffer.from(encodeLogLeaf(buildLogLeaf(minted.receipt))),
          )
        }
      }
    }
  })

  it('minting refuses what signing refuses: a receipt that breaks its closed schema is never returned', async () => {
    const key = { algorithm: 'ed25519' as const, keyId: 'did:web:r.example#k', privateKey: randomBytes(32) }
    const bad = { ...randomUnsigned('r.example'), created_at: '2026-01-01T00:00:00Z' }
    expect(() => mintRegistryReceipt(bad, key)).toThrow(expect.objectContaining({ code: 'invalid_structure' }))
    await expect(mintRegistryReceiptAsync(bad, key)).rejects.toMatchObject({ code: 'invalid_structure' })
  })
})
