/**
 * did:web → HTTPS URL (W3C did:web method §3.2 "Read"; RFC-ACDP-0001 §5.11 step 3).
 *
 * The host and path come verbatim from producer-controlled `agent_id`/`key_id`, so the grammar is
 * checked tightly: an LDH host name (no IP literal), an optional `%3A<port>`, and path segments that
 * cannot smuggle `.`/`..`, `/` or `\` into the URL. SSRF address checks belong to the outbound
 * client that fetches the URL (RFC-ACDP-0008 §4.8).
 */
import { assertDidSyntax, invalidDid } from './key-id.js'

const DID_WEB_PREFIX = 'did:web:'
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const HOST_COMPONENT = /^([A-Za-z0-9.-]+)(?:%3[Aa]([0-9]{1,5}))?$/
const PATH_SEGMENT = /^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/
// Percent-encodings that would change the path's structure once a server decodes them.
const FORBIDDEN_ESCAPES = /%(?:2[Ff]|5[Cc]|00)/

/**
 * The HTTPS URL of a did:web DID document: `did:web:<host>` → `https://<host>/.well-known/did.json`,
 * `did:web:<host>:a:b` → `https://<host>/a/b/did.json`; `%3A` in the host component encodes a port.
 *
 * @throws ProtocolError `invalid_did` (details.reason: `not_did_web`, `invalid_did_syntax`,
 *   `invalid_host`, `invalid_port`, `invalid_path`).
 */
export function didWebToUrl(did: string): URL {
  assertDidSyntax(did)
  if (!did.startsWith(DID_WEB_PREFIX)) throw invalidDid('not a did:web', 'not_did_web')
  const [hostComponent = '', ...segments] = did.slice(DID_WEB_PREFIX.length).split(':')
  const match = HOST_COMPONENT.exec(hostComponent)
  if (!match) throw invalidDid('did:web host is not a DNS name', 'invalid_host')
  const host = (match[1] as string).toLowerCase()
  if (!isDnsName(host)) throw invalidDid('did:web host is not a DNS name', 'invalid_host')
  let authority = host
  if (match[2] !== undefined) {
    const port = Number(match[2])
    if (port < 1 || port > 65535 || match[2].startsWith('0'))
      throw invalidDid('did:web port is out of range', 'invalid_port')
    authority = `${host}:${port}`
  }
  for (const segment of segments) {
    if (!PATH_SEGMENT.test(segment) || FORBIDDEN_ESCAPES.test(segment) || isDotSegment(segment)) {
      throw invalidDid('did:web path segment is not allowed', 'invalid_path')
    }
  }
  const path = segments.length === 0 ? '/.well-known/did.json' : `/${segments.join('/')}/did.json`
  return new URL(`https://${authority}${path}`)
}

function isDnsName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false
  const labels = host.split('.')
  if (!labels.every((label) => LABEL.test(label))) return false
  // An all-numeric last label would make this an IPv4 literal; did:web names hosts by DNS name.
  return !/^[0-9]+$/.test(labels[labels.length - 1] as string)
}

function isDotSegment(segment: string): boolean {
  const decoded = segment.replace(/%2[Ee]/g, '.')
  return decoded === '.' || decoded === '..'
}
