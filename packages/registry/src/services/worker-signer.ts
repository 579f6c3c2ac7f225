/**
 * A worker thread holding the receipt key, signing whole batches (the dispatch behind `SigningBatcher`).
 *
 * One round trip per batch: the messages go packed into one transferred buffer, the signatures come back the same
 * way, so the serving thread pays one post and one completion callback per batch instead of one libuv pool job
 * per signature. The thread starts with the first batch (a registry that never publishes never starts it) and
 * restarts with the next batch if it dies; a death rejects only the batches it held.
 */
import { Worker } from 'node:worker_threads'
import { SIGNER_ROLE, type SignerWorkerData, type SignReply, type SignRequest } from './receipt-signer-worker.js'

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './receipt-signer-worker.ts' : './receipt-signer-worker.js',
  import.meta.url,
)

const SIGNATURE_BYTES = 64

interface InFlight {
  readonly count: number
  readonly resolve: (signatures: Uint8Array[]) => void
  readonly reject: (error: unknown) => void
}

export class WorkerSigner {
  private readonly seed: Uint8Array
  private worker: Worker | undefined
  private readonly inFlight = new Map<number, InFlight>()
  private nextId = 0
  private closed = false
  private closing: Promise<void> | undefined

  /** `seed`: the 32-byte Ed25519 receipt key; copied to the thread, never logged. */
  constructor(seed: Uint8Array) {
    if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes')
    this.seed = Uint8Array.from(seed)
  }

  /** One signature per message, in order; rejects when the thread fails or is closed while it holds them. */
  readonly signBatch = (messages: readonly Uint8Array[]): Promise<Uint8Array[]> => {
    if (this.closed) return Promise.reject(new Error('the receipt signer is closed'))
    const ends = new Uint32Array(messages.length)
    let total = 0
    for (let i = 0; i < messages.length; i++) ends[i] = total += messages[i]!.length
    const bytes = new Uint8Array(total)
    for (let i = 0; i < messages.length; i++) bytes.set(messages[i]!, i === 0 ? 0 : ends[i - 1])
    const id = this.nextId++
    const request: SignRequest = { id, bytes, ends }
    return new Promise<Uint8Array[]>((resolve, reject) => {
      const worker = this.worker ?? this.start()
      this.inFlight.set(id, { count: messages.length, resolve, reject })
      if (this.inFlight.size === 1) worker.ref()
      worker.postMessage(request, [bytes.buffer, ends.buffer])
    })
  }

  /** Terminates the thread; batches it still holds reject. Idempotent. */
  close(): Promise<void> {
    this.closed = true
    this.closing ??= (async () => {
      const worker = this.worker
      this.worker = undefined
      this.rejectAll(new Error('the receipt signer closed before signing'))
      this.seed.fill(0)
      if (worker !== undefined) await worker.terminate()
    })()
    return this.closing
  }

  private start(): Worker {
    const data: SignerWorkerData = { role: SIGNER_ROLE, seed: this.seed }
    const worker = new Worker(WORKER_URL, { workerData: data })
    // Referenced only while it holds a batch: an idle signer never keeps the process alive.
    worker.unref()
    worker.on('message', (reply: SignReply) => this.settle(worker, reply))
    worker.on('error', (error) => this.fail(worker, error))
    worker.on('exit', () => this.fail(worker, new Error('the receipt signer thread exited')))
    this.worker = worker
    return worker
  }

  private settle(worker: Worker, reply: SignReply): void {
    const batch = this.inFlight.get(reply.id)
    if (batch === undefined) return
    this.inFlight.delete(reply.id)
    if (this.inFlight.size === 0) worker.unref()
    if ('error' in reply) {
      batch.reject(new Error(`receipt signing failed: ${reply.error}`))
      return
    }
    if (reply.signatures.length !== batch.count * SIGNATURE_BYTES) {
      batch.reject(new Error('the receipt signer answered a batch of the wrong size'))
      return
    }
    const signatures: Uint8Array[] = []
    for (let i = 0; i < batch.count; i++) {
      signatures.push(reply.signatures.subarray(i * SIGNATURE_BYTES, (i + 1) * SIGNATURE_BYTES))
    }
    batch.resolve(signatures)
  }

  /** The thread failed or exited: what it held is lost; the next batch starts a new one. */
  private fail(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return
    this.worker = undefined
    this.rejectAll(error)
  }

  private rejectAll(error: unknown): void {
    const batches = [...this.inFlight.values()]
    this.inFlight.clear()
    for (const batch of batches) batch.reject(error)
  }
}
