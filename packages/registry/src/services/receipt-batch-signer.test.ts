import { randomBytes } from 'node:crypto'
import type { Worker } from 'node:worker_threads'
import {
  ed25519PublicKeyFromSeed,
  mintRegistryReceipt,
  mintRegistryReceiptAsync,
  signEd25519,
  type SigningKey,
  verifyEd25519,
} from '@acdp/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { type ReceiptBatchSigner, startReceiptBatchSigner } from './receipt-batch-signer.js'
import { WorkerSigner } from './worker-signer.js'

const seed = new Uint8Array(randomBytes(32))
const publicKey = ed25519PublicKeyFromSeed(seed)
const message = (i: number) => new TextEncoder().encode(`sha256:${i.toString(16).padStart(64, '0')}`)

const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((signer) => signer.close()))
})
function started(): ReceiptBatchSigner {
  const signer = startReceiptBatchSigner(seed)
  open.push(signer)
  return signer
}

describe('startReceiptBatchSigner', () => {
  it('signs the requests of one turn in one hand-off, each with its own signature that verifies', async () => {
    const signer = started()
    const messages = Array.from({ length: 16 }, (_, i) => message(i))
    const signatures = await Promise.all(messages.map((m) => signer.sign(m)))
    expect([signer.handOffs, signer.threadHandOffs]).toEqual([1, 1])
    signatures.forEach((signature, i) => {
      expect(signature).toEqual(signEd25519(seed, messages[i]!))
      expect(verifyEd25519(publicKey, messages[i]!, signature)).toBe(true)
    })
  })

  it('signs turn after turn on the same thread', async () => {
    const signer = started()
    for (let turn = 0; turn < 3; turn++) {
      const messages = [message(10 * turn), message(10 * turn + 1)]
      const signatures = await Promise.all(messages.map((m) => signer.sign(m)))
      signatures.forEach((signature, i) => expect(verifyEd25519(publicKey, messages[i]!, signature)).toBe(true))
    }
    expect([signer.handOffs, signer.threadHandOffs]).toEqual([3, 3])
  })

  it('mints the same receipt as the synchronous minting', async () => {
    const signer = started()
    const key: SigningKey = { algorithm: 'ed25519', keyId: 'did:web:registry.example#receipt-key-1', privateKey: seed }
    const unsigned = {
      registry_did: 'did:web:registry.example',
      ctx_id: 'acdp://registry.example/0b6c8f0e-4a47-4f3a-9d59-2d7f3e2f6a10',
      lineage_id: 'lin:sha256:' + 'a'.repeat(64),
      origin_registry: 'registry.example',
      created_at: '2026-11-25T00:00:00.000Z',
      content_hash: 'sha256:' + 'b'.repeat(64),
      key_fingerprint: 'sha256:' + 'c'.repeat(64),
    }
    expect(await mintRegistryReceiptAsync(unsigned, key, signer.sign)).toEqual(mintRegistryReceipt(unsigned, key))
  })

  it('closing with requests pending rejects them, whether handed over or not, and does not hang', async () => {
    const signer = started()
    const handedOver = Array.from({ length: 8 }, (_, i) => signer.sign(message(i)))
    await new Promise<void>((resolve) => setImmediate(resolve))
    const queued = signer.sign(message(99))
    const outcomes = Promise.allSettled([...handedOver, queued])
    await signer.close()
    for (const outcome of await outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('closed') } })
    }
    expect([signer.handOffs, signer.threadHandOffs]).toEqual([1, 1])
    await expect(signer.sign(message(100))).rejects.toThrow('closed')
  })

  it('signs a lone request of a turn with a pool job, not on the thread', async () => {
    const signer = started()
    const signature = await signer.sign(message(7))
    expect(verifyEd25519(publicKey, message(7), signature)).toBe(true)
    expect([signer.handOffs, signer.threadHandOffs]).toEqual([1, 0])
  })
})

describe('WorkerSigner', () => {
  it('a dead thread rejects the batches it held; the next batch starts a new one', async () => {
    const signer = new WorkerSigner(seed)
    open.push(signer)
    const held = signer.signBatch([message(1), message(2)])
    const outcome = Promise.allSettled([held])
    await (signer as unknown as { worker: Worker }).worker.terminate()
    expect((await outcome)[0]).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringContaining('exited') },
    })
    const [signature] = await signer.signBatch([message(3)])
    expect(verifyEd25519(publicKey, message(3), signature!)).toBe(true)
  })

  it('refuses a seed that is not 32 bytes', () => {
    expect(() => new WorkerSigner(new Uint8Array(31))).toThrow(TypeError)
  })
})
