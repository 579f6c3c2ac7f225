/**
 * The receipt signer's worker thread: holds the registry's Ed25519 receipt key and signs each batch of messages
 * the serving thread posts, synchronously, one RFC 8032 signature per message, answering with all of them in one
 * message. Started by `worker-signer.ts`.
 *
 * This file must stay loadable by a bare worker thread (Node strips its types under the test runner): it imports
 * only `node:` modules, so the PKCS#8 framing of a raw seed is repeated here rather than imported from
 * @acdp/protocol. Nothing here logs or posts back key material; an error answer carries only the error's message.
 */
import { createPrivateKey, type KeyObject, sign } from 'node:crypto'
import { isMainThread, type MessagePort, parentPort, workerData } from 'node:worker_threads'

export const SIGNER_ROLE = 'acdp-receipt-signer'

export interface SignerWorkerData {
  readonly role: typeof SIGNER_ROLE
  /** The 32-byte Ed25519 seed (the worker's own copy; zeroed once imported). */
  readonly seed: Uint8Array
}

/** One batch: the messages packed end to end in `bytes`, message i ending at `ends[i]`. */
export interface SignRequest {
  readonly id: number
  readonly bytes: Uint8Array
  readonly ends: Uint32Array
}

/** 64 bytes per message of the batch, in order, or why the batch failed. */
export type SignReply =
  { readonly id: number; readonly signatures: Uint8Array } | { readonly id: number; readonly error: string }

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
const SIGNATURE_BYTES = 64

function serve(port: MessagePort, data: SignerWorkerData): void {
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, data.seed])
  const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
  der.fill(0)
  data.seed.fill(0)
  port.on('message', (request: SignRequest) => {
    let reply: SignReply
    let transfer: ArrayBuffer[] = []
    try {
      const signatures = signAll(key, request)
      reply = { id: request.id, signatures }
      transfer = [signatures.buffer as ArrayBuffer]
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? error.message : 'signing failed' }
    }
    port.postMessage(reply, transfer)
  })
}

function signAll(key: KeyObject, { bytes, ends }: SignRequest): Uint8Array {
  const signatures = new Uint8Array(ends.length * SIGNATURE_BYTES)
  let start = 0
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!
    signatures.set(sign(null, bytes.subarray(start, end), key), i * SIGNATURE_BYTES)
    start = end
  }
  return signatures
}

const data = workerData as Partial<SignerWorkerData> | null
if (!isMainThread && parentPort !== null && data?.role === SIGNER_ROLE) serve(parentPort, data as SignerWorkerData)
