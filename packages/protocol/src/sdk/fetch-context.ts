/**
 * Consumer side of retrieval (RFC-ACDP-0004 §2): GET /contexts/{ctx_id} from a registry, parsed strictly
 * from the raw text so every member the producer signed survives for verification (RFC-ACDP-0001 §5.7
 * "Hash verification over raw JSON").
 */
import { ProtocolError } from '../errors.js'
import { parseJsonStrict } from '../jcs/parse-json-strict.js'
import { registryEndpoint, rejectedRequestError, type SdkRequestOptions, sendRegistryRequest } from './registry-http.js'

/** A retrieved context: the full envelope (`body`, `registry_state`, receipts and proofs beside them). */
export interface FetchedContext {
  envelope: Record<string, unknown> & { body: Record<string, unknown> }
  status: number
  headers: Headers
}

/**
 * Retrieves one context. The ctx_id is sent percent-encoded as one path segment.
 *
 * @throws ProtocolError `request_rejected` for a registry error answer (`details.code`: `not_found`, …).
 * @throws ProtocolError `malformed_input` / `too_deep` when the answer is not a JSON envelope with a `body`
 *   object (the answer is attacker-controlled).
 * @throws ProtocolError `outbound_failed` / `outbound_too_large` from the transport.
 */
export async function fetchContext(
  registryUrl: string,
  ctxId: string,
  options: SdkRequestOptions = {},
): Promise<FetchedContext> {
  const url = registryEndpoint(registryUrl, `/contexts/${encodeURIComponent(ctxId)}`)
  const response = await sendRegistryRequest(
    url,
    { headers: { accept: 'application/acdp+json, application/json' } },
    options,
  )
  if (response.status < 200 || response.status > 299) throw rejectedRequestError(response)
  const parsed = parseJsonStrict(response.text)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProtocolError('malformed_input', 'retrieval answer is not a JSON object', {
      details: { reason: 'not_an_object' },
    })
  }
  const envelope = parsed as Record<string, unknown>
  const body = envelope['body']
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProtocolError('malformed_input', 'retrieval answer has no "body" object', {
      details: { reason: 'missing_body' },
    })
  }
  return { envelope: envelope as FetchedContext['envelope'], status: response.status, headers: response.headers }
}
