/**
 * Verifies one context of a run in the browser, as the inspector does (the envelope through the control plane's
 * federation proxy, the registry's trust material beside it, every check by @acdp/protocol), reduced to the node's
 * verdict for the DAG. Never throws: what cannot be had is `unavailable`, with why.
 */
import { type ApiClient, ApiError } from '../api/client.js'
import { inspectContext } from './inspect-context.js'
import { type NodeResult, nodeVerdict } from './node-verdict.js'
import { trustMaterial } from './trust-material.js'

export async function verifyNode(client: ApiClient, ctxId: string): Promise<NodeResult> {
  let envelope: unknown
  try {
    envelope = await client.get<unknown>(`/contexts/${encodeURIComponent(ctxId)}`)
  } catch (error) {
    const detail = error instanceof ApiError ? `${error.errorCode}: ${error.message}` : String(error)
    return { verdict: 'unavailable', detail: `not retrieved (${detail})` }
  }
  const inspection = await inspectContext(envelope, await trustMaterial(client, ctxId))
  const verdict = nodeVerdict(inspection)
  if (verdict === 'failed') {
    const failed = inspection.items.find((item) => item.mark === 'failed')
    return { verdict, detail: failed === undefined ? 'a check failed' : `${failed.label}: ${failed.detail}` }
  }
  if (verdict === 'unavailable') {
    const missing = inspection.items.find((item) => item.subject === 'signature')
    return { verdict, detail: missing?.detail ?? 'not every check could be made here' }
  }
  const title = (envelope as { body?: { title?: unknown } }).body?.title
  return { verdict, detail: 'body and signature verified', ...(typeof title === 'string' ? { title } : {}) }
}
