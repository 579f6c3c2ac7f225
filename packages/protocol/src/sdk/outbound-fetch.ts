/**
 * The SSRF-safe outbound client (outbound/client.ts: HTTPS only, every resolved address checked and pinned,
 * same-authority redirects, body cap, deadlines) in the shape of `fetch`, so the SDK's reads (fetchContext, the
 * derived_from walker) can go through it wherever the caller does not fully trust the URLs: a walk follows
 * `acdp://` references chosen by whoever produced the bodies (RFC-ACDP-0006 §7).
 */
import type { OutboundClient, OutboundRequest } from '../outbound/client.js'
import type { OutboundMethod } from '../outbound/redirect.js'

const METHODS: ReadonlySet<string> = new Set<OutboundMethod>(['GET', 'HEAD', 'POST', 'PUT'])
/** Statuses whose Response may not carry a body (the Fetch standard's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

/**
 * A `fetch` whose every request goes through `client` (its policy, caps and deadlines). Errors are the client's
 * ProtocolErrors (`outbound_refused`, `outbound_too_large`, `outbound_failed`).
 *
 * @throws TypeError (from the returned function) for a method the client does not send.
 */
export function fetchThroughOutbound(client: Pick<OutboundClient, 'request'>): typeof globalThis.fetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input)
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    if (!METHODS.has(method)) throw new TypeError(`the outbound client does not send ${method}`)
    const request: OutboundRequest = {
      method: method as OutboundMethod,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(init.signal ? { signal: init.signal } : {}),
      ...(typeof init.body === 'string' || init.body instanceof Uint8Array ? { body: init.body } : {}),
    }
    const response = await client.request(url, request)
    const body = NULL_BODY_STATUSES.has(response.status) || method === 'HEAD' ? null : response.body
    return new Response(body as ConstructorParameters<typeof Response>[0], {
      status: response.status,
      headers: response.headers,
    })
  }
}
