/**
 * Worker of bench/verify-offload.ts: the hashing and verification steps of a publish (RFC-ACDP-0003 §2.1 steps 4
 * and 7) run on this thread over the request's bytes, which the main thread transfers rather than clones.
 */
import { parentPort } from 'node:worker_threads'

const MODULE: string = '@acdp/protocol'
const protocol = (await import(MODULE)) as typeof import('@acdp/protocol')
const decoder = new TextDecoder('utf-8', { fatal: true })
/** Resolved did:key keys, as the registry's resolver caches them. */
const resolvedKeys = new Map<string, Uint8Array>()

interface Job {
  id: number
  bytes: Uint8Array
}

parentPort!.on('message', (job: Job) => {
  try {
    const body = protocol.parseJsonStrict(decoder.decode(job.bytes)) as Record<string, unknown>
    const contentHash = protocol.computeContentHash(body)
    const signature = body['signature'] as { algorithm: string; key_id: string; value: string }
    let publicKey = resolvedKeys.get(signature.key_id)
    if (publicKey === undefined) {
      publicKey = protocol.parseDidKey(signature.key_id.slice(0, signature.key_id.indexOf('#'))).publicKey
      resolvedKeys.set(signature.key_id, publicKey)
    }
    const valid =
      contentHash === body['content_hash'] &&
      protocol.verifyContentSignature({
        algorithm: signature.algorithm,
        publicKey,
        contentHash,
        signature: signature.value,
      })
    parentPort!.postMessage({ id: job.id, valid })
  } catch (error) {
    parentPort!.postMessage({ id: job.id, valid: false, error: String(error) })
  }
})
