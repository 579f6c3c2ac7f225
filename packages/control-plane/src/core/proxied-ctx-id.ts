/**
 * The ctx_id a caller names in a path or query of the control plane's relays (the federation proxy, the registry
 * trust material): one parse and one refusal for all of them.
 */
import { isIP } from 'node:net'
import { ControlPlaneError } from './errors.js'

/** `acdp://<authority>/<id>`; authority per the product spec, id a lowercase UUID v4 (RFC-ACDP-0001 §5.5). */
const CTX_ID =
  /^acdp:\/\/([a-zA-Z0-9.:-]{1,255})\/([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})$/

/**
 * Parses the ctx_id of the request path (raw or percent-encoded).
 *
 * @throws ControlPlaneError VALIDATION_ERROR for anything but `acdp://<authority>/<uuid v4>` with a host-name
 *   authority (no IP literal, no userinfo, path or query).
 */
export function parseProxiedCtxId(raw: string): { ctxId: string; authority: string } {
  let decoded = raw
  if (/%[0-9a-fA-F]{2}/.test(raw)) {
    try {
      decoded = decodeURIComponent(raw)
    } catch {
      throw new ControlPlaneError('VALIDATION_ERROR', 'ctxId is not a valid percent-encoded acdp:// URI')
    }
  }
  const match = CTX_ID.exec(decoded)
  const authority = match?.[1]?.toLowerCase()
  if (match === null || authority === undefined) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'ctxId must be acdp://<authority>/<uuid v4>')
  }
  const host = authority.replace(/:\d{1,5}$/, '')
  if (isIP(host) !== 0 || isIP(authority) !== 0 || host.includes(':') || !/[a-z]/.test(host)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'the ctxId authority must be a host name, not an IP literal')
  }
  return { ctxId: `acdp://${authority}/${match[2]}`, authority }
}
