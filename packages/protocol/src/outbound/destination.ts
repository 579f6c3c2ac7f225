/**
 * Turning a URL into the checked set of addresses a request may connect to (RFC-ACDP-0006 §7.1–7.2, §7.6;
 * RFC-ACDP-0008 §4.8–4.9). One resolution per request: the addresses returned here are the only ones the
 * connection may use, so the filter and the socket consume the same DNS answer.
 */
import { isIP } from 'node:net'
import { ProtocolError } from '../errors.js'
import { classifyAddress } from './address-class.js'
import { type AllowCidr, isInsideAllowCidrs } from './allow-cidrs.js'

/** Resolves a hostname to every address it has (the injectable DNS of `OutboundPolicy.lookup`). */
export type OutboundLookup = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>

/** The policy facts {@link resolveDestination} needs. */
export interface DestinationPolicy {
  allowCidrs: readonly AllowCidr[]
  allowHttpForAllowlisted: boolean
  lookup: OutboundLookup
}

/** A URL that passed the policy, with the addresses its connection is pinned to (all checked, in DNS order). */
export interface Destination {
  url: URL
  /** Hostname without IPv6 brackets; the TLS server name and Host header keep this, the socket uses `addresses`. */
  hostname: string
  addresses: string[]
}

/**
 * Parses a URL string for the client. WHATWG parsing normalises IPv4 literals first, so `2130706433`,
 * `0x7f.1` and `0177.0.0.1` all become `127.0.0.1` before classification.
 *
 * @param input attacker-influenced (a DID, webhook URL, Location header…).
 * @throws ProtocolError `outbound_refused` (reason `invalid_url`) when it does not parse.
 */
export function parseOutboundUrl(input: string | URL): URL {
  try {
    return new URL(input instanceof URL ? input.href : input)
  } catch (cause) {
    throw new ProtocolError('outbound_refused', 'outbound URL does not parse', {
      details: { reason: 'invalid_url' },
      cause,
    })
  }
}

/**
 * Checks a URL's shape (credentials, scheme), resolves its host (IP literals skip DNS) and checks every address.
 * A hostname whose answer mixes allowed and refused addresses is refused whole, never filtered.
 *
 * @throws ProtocolError `outbound_refused` with `details.reason` one of `credentials_in_url`, `scheme`,
 *   `http_not_allowlisted`, or an address class from `classifyAddress` (plus `details.address`,
 *   and `details.mixed_answer: true` when other addresses in the answer were acceptable);
 *   `outbound_failed` (reason `dns`) when the lookup fails or returns nothing.
 */
export async function resolveDestination(url: URL, policy: DestinationPolicy): Promise<Destination> {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (url.username !== '' || url.password !== '') {
    throw refused('outbound URLs must not carry credentials', { reason: 'credentials_in_url', host: hostname })
  }
  const isHttp = url.protocol === 'http:'
  if (url.protocol !== 'https:' && !(isHttp && policy.allowHttpForAllowlisted)) {
    throw refused('outbound requests must use https', { reason: 'scheme', scheme: url.protocol.slice(0, -1) })
  }
  if (hostname === '') throw refused('outbound URL has no host', { reason: 'invalid_url' })

  const addresses = isIP(hostname) !== 0 ? [hostname] : await lookupAll(hostname, policy.lookup)
  for (const address of addresses) {
    if (isInsideAllowCidrs(address, policy.allowCidrs)) continue
    const verdict = classifyAddress(address)
    if (verdict.blocked) {
      throw refused(`outbound destination address is ${verdict.reason}`, {
        reason: verdict.reason,
        ...(verdict.via === undefined ? {} : { via: verdict.via }),
        host: hostname,
        address,
        ...(addresses.length > 1 ? { mixed_answer: addresses.some((a) => isAcceptable(a, policy)) } : {}),
      })
    }
    if (isHttp) {
      throw refused('plain http is allowed only to allowlisted addresses', {
        reason: 'http_not_allowlisted',
        host: hostname,
        address,
      })
    }
  }
  return { url, hostname, addresses }
}

function isAcceptable(address: string, policy: DestinationPolicy): boolean {
  return isInsideAllowCidrs(address, policy.allowCidrs) || !classifyAddress(address).blocked
}

async function lookupAll(hostname: string, lookup: OutboundLookup): Promise<string[]> {
  let answers: Awaited<ReturnType<OutboundLookup>>
  try {
    answers = await lookup(hostname)
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code
    throw new ProtocolError('outbound_failed', 'outbound host did not resolve', {
      details: { reason: 'dns', host: hostname, ...(typeof code === 'string' ? { code } : {}) },
      cause,
    })
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    throw new ProtocolError('outbound_failed', 'outbound host resolved to no address', {
      details: { reason: 'dns', host: hostname },
    })
  }
  // A malformed entry from a custom resolver is kept as-is: classifyAddress refuses it as invalid_address.
  return [...new Set(answers.map((answer) => String((answer as { address?: unknown } | null)?.address)))]
}

function refused(message: string, details: Record<string, unknown>): ProtocolError {
  return new ProtocolError('outbound_refused', message, { details })
}
