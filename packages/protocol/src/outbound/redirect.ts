/**
 * Redirects followed by hand (RFC-ACDP-0006 §7.5; RFC-ACDP-0008 §4.8–4.9): only to the same authority, i.e. the
 * identical (scheme, host, effective port) triple, so the pinned addresses stay valid and no new lookup happens.
 */
import { ProtocolError } from '../errors.js'

/** HTTP method the client sends. */
export type OutboundMethod = 'GET' | 'POST' | 'HEAD' | 'PUT'

/** One request of a redirect chain. */
export interface RedirectHop {
  url: URL
  method: OutboundMethod
  headers: Record<string, string>
  body: Uint8Array | string | undefined
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
/** Dropped on every hop: the target is same-origin, but a credential is bound to the URL it was sent to. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie']
/** Describe a body that a 301/302/303 → GET hop no longer sends. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']

/** True when `status` is a redirect the client follows (given a Location header). */
export function isRedirectStatus(status: number): boolean {
  return REDIRECT_STATUSES.has(status)
}

/**
 * Computes the next hop for a redirect response. 301/302/303 become GET without a body (HEAD stays HEAD);
 * 307/308 keep method and body. Credential headers are always removed.
 *
 * @param location attacker-controlled: the response's Location header.
 * @throws ProtocolError `outbound_failed` (reason `invalid_redirect`) when Location does not parse;
 *   `outbound_refused` (reason `redirect_cross_origin` or `credentials_in_url`) when it leaves the authority.
 */
export function planRedirect(current: RedirectHop, status: number, location: string): RedirectHop {
  let target: URL
  try {
    target = new URL(location, current.url)
  } catch (cause) {
    throw new ProtocolError('outbound_failed', 'redirect Location does not parse', {
      details: { reason: 'invalid_redirect', status },
      cause,
    })
  }
  if (target.username !== '' || target.password !== '') {
    throw new ProtocolError('outbound_refused', 'redirect target carries credentials', {
      details: { reason: 'credentials_in_url', status },
    })
  }
  if (!isSameAuthority(current.url, target)) {
    throw new ProtocolError('outbound_refused', 'redirect leaves the original scheme, host and port', {
      details: { reason: 'redirect_cross_origin', status, host: current.url.hostname, target_host: target.hostname },
    })
  }
  const headers: Record<string, string> = {}
  const becomesGet = status !== 307 && status !== 308 && current.method !== 'HEAD'
  for (const [name, value] of Object.entries(current.headers)) {
    const lower = name.toLowerCase()
    if (CREDENTIAL_HEADERS.includes(lower)) continue
    if (becomesGet && BODY_HEADERS.includes(lower)) continue
    headers[name] = value
  }
  return becomesGet
    ? { url: target, method: 'GET', headers, body: undefined }
    : { url: target, method: current.method, headers, body: current.body }
}

/**
 * RFC-ACDP-0006 §7.5 "same authority": scheme, host (case-insensitive; WHATWG URL already lowercases and
 * canonicalises IP literals) and effective port (WHATWG drops a default port, so `:443` equals none) all match.
 */
export function isSameAuthority(from: URL, to: URL): boolean {
  return from.protocol === to.protocol && from.hostname === to.hostname && from.port === to.port
}
