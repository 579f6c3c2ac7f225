/**
 * The registry's receipt signer: the requests of one event-loop turn (`SigningBatcher`) signed together by a
 * worker thread holding the receipt key (`WorkerSigner`), a lone request by a libuv pool job. One Ed25519
 * signature per receipt, one hand-off per turn. Measured against one libuv pool job per receipt in docs/performance.md ("Receipt signing in batches").
 */
import { type Ed25519MessageSigner, signEd25519Async } from '@acdp/protocol'
import { SigningBatcher } from './signing-batcher.js'
import { WorkerSigner } from './worker-signer.js'

export interface ReceiptBatchSigner {
  /** Signs with the receipt key; hand to `mintRegistryReceiptAsync` with the same key. */
  readonly sign: Ed25519MessageSigner
  /** Turns signed so far (one hand-off each: to the thread, or a single pool job). */
  readonly handOffs: number
  /** Of those, the batches the thread signed. */
  readonly threadHandOffs: number
  /** Rejects every request not yet signed and stops the thread. */
  close(): Promise<void>
}

/**
 * Turns with fewer requests than this sign on libuv's pool, one job each (the pre-batching path): a round trip to
 * the thread costs more than one pool job for a single signature and less from two on (bench/receipt-signing.ts;
 * at a fixed 1,000 publishes/s most turns carry one receipt).
 */
export const WORKER_MIN_BATCH = 2

/** `seed`: the 32-byte Ed25519 receipt key seed. The thread starts with the first batch it gets. */
export function startReceiptBatchSigner(seed: Uint8Array, workerMinBatch = WORKER_MIN_BATCH): ReceiptBatchSigner {
  const worker = new WorkerSigner(seed)
  const poolSeed = Uint8Array.from(seed)
  let threadHandOffs = 0
  const batcher = new SigningBatcher((messages) => {
    if (messages.length < workerMinBatch) {
      return Promise.all(messages.map((message) => signEd25519Async(poolSeed, message)))
    }
    threadHandOffs += 1
    return worker.signBatch(messages)
  })
  return {
    sign: batcher.sign,
    get handOffs() {
      return batcher.handOffs
    },
    get threadHandOffs() {
      return threadHandOffs
    },
    async close() {
      batcher.close()
      await worker.close()
      poolSeed.fill(0)
    },
  }
}
