/**
 * How the inspector reaches DataRef `location`s from a browser: the console's CSP (`connect-src 'self'`) lets it
 * fetch its own origin only, so a location there is fetched (no credentials, 1 MiB cap, no redirect off the
 * origin) and its bytes checked against `content_hash` by the protocol's own DataRef stage (RFC-ACDP-0002 §6.7);
 * any other location is refused with a reason marked `not_available_in_browser`, which the inspector shows as
 * "not available" rather than a failure (the data may well be fine — the browser just may not look).
 */
import { type DataRefOptions, ProtocolError } from '@acdp/protocol/verify'

/** The reason detail a refusal carries, so the refusal can be told from a real fetch failure. */
export const NOT_FETCHABLE = 'not_available_in_browser'
const MAX_BYTES = 1024 * 1024

type DataRefClient = NonNullable<DataRefOptions['client']>

export function sameOriginDataRefClient(origin: string, fetchImpl: typeof fetch = fetch): DataRefClient {
  const refuse = (url: string) =>
    new ProtocolError(
      'outbound_refused',
      `${url} is not on the console's origin; the browser may fetch only ${origin} (CSP connect-src 'self'): check it with acdp get --verify --fetch-data`,
      { details: { reason: NOT_FETCHABLE } },
    )
  return {
    async request(url) {
      const target = new URL(String(url))
      if (target.origin !== origin) throw refuse(target.href)
      const response = await fetchImpl(target.href, { credentials: 'omit', redirect: 'follow' })
      if (new URL(response.url || target.href).origin !== origin) throw refuse(response.url)
      const body = new Uint8Array(await response.arrayBuffer())
      if (body.byteLength > MAX_BYTES) {
        throw new ProtocolError('outbound_failed', `${target.href} is larger than ${MAX_BYTES} bytes`, {
          details: { reason: 'body_too_large' },
        })
      }
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        headers[name] = value
      })
      return { status: response.status, headers, body, url: response.url || target.href }
    },
  }
}
