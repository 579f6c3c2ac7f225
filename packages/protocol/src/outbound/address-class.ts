/**
 * Address classes an outbound request must never reach (RFC-ACDP-0006 §7.1, RFC-ACDP-0008 §4.8–4.9).
 *
 * The RFCs list loopback, RFC 1918, ULA, link-local (incl. the IMDS address 169.254.169.254), multicast and the
 * unspecified address, plus "any locally-defined private range". We add every special-purpose range that is not
 * globally reachable unicast (CGNAT, broadcast, benchmarking, documentation, reserved, deprecated site-local) and
 * look through IPv6 forms that carry an IPv4 destination (mapped, compatible, NAT64, 6to4, Teredo), because a
 * dual-stack socket or a translator on the path delivers those packets to the embedded IPv4 address.
 * For IPv6 only global unicast 2000::/3 is reachable at all; everything outside it is refused as `reserved`.
 */
import { type Ipv4Address, type Ipv6Address, ipaddr, parseCanonicalIp } from './ip-address.js'

/** Why an address is refused; `details.reason` of an `outbound_refused` error carries one of these. */
export type BlockedAddressReason =
  | 'invalid_address'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'unique_local'
  | 'link_local'
  | 'cloud_metadata'
  | 'site_local'
  | 'carrier_grade_nat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'

/** IPv6 forms whose packets end up at an embedded IPv4 address. */
export type EmbeddedIpv4Form = 'ipv4_mapped' | 'ipv4_compatible' | 'nat64' | '6to4' | 'teredo'

/** Result of {@link classifyAddress}. `via` names the IPv6 wrapper when the verdict comes from embedded IPv4. */
export interface AddressClass {
  blocked: boolean
  reason?: BlockedAddressReason
  via?: EmbeddedIpv4Form
}

type Range = readonly [cidr: string, reason: BlockedAddressReason]

// First match wins, so narrower entries precede the ranges that contain them.
const IPV4_BLOCKED: readonly Range[] = [
  ['169.254.169.254/32', 'cloud_metadata'],
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'unspecified'], // "this network"; 0.0.0.0 reaches localhost on most stacks
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier_grade_nat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]

const IPV6_BLOCKED: readonly Range[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'reserved'], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ['100::/64', 'reserved'], // discard-only
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'reserved'], // IETF protocol assignments (ORCHID etc.); Teredo is looked through before this
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'], // SRv6 SIDs
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'site_local'],
  ['ff00::/8', 'multicast'],
]

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')
const V4_MAPPED = ipaddr.IPv6.parseCIDR('::ffff:0:0/96')
const V4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96')
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96')
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16')
const TEREDO = ipaddr.IPv6.parseCIDR('2001::/32')

const PARSED_V4 = IPV4_BLOCKED.map(([cidr, reason]) => [ipaddr.IPv4.parseCIDR(cidr), reason] as const)
const PARSED_V6 = IPV6_BLOCKED.map(([cidr, reason]) => [ipaddr.IPv6.parseCIDR(cidr), reason] as const)

/**
 * Classifies one IP address (pure; no DNS). `blocked: true` means the outbound policy refuses it unless an
 * operator allowlist CIDR contains it. Only the canonical textual forms Node accepts (`net.isIP`) are
 * addresses; anything else (`'0x7f.1'`, a zone id, a hostname) is `invalid_address`, so a caller can never
 * smuggle a non-canonical literal past the check and into a socket.
 *
 * @param ip attacker-influenced: a DNS answer or a URL's IP literal.
 */
export function classifyAddress(ip: string): AddressClass {
  const address = parseCanonicalIp(ip)
  if (address === undefined) return { blocked: true, reason: 'invalid_address' }
  return address.kind() === 'ipv4' ? classifyIpv4(address as Ipv4Address) : classifyIpv6(address as Ipv6Address)
}

function classifyIpv4(address: Ipv4Address): AddressClass {
  for (const [range, reason] of PARSED_V4) {
    if (address.match(range)) return { blocked: true, reason }
  }
  return { blocked: false }
}

function classifyIpv6(address: Ipv6Address): AddressClass {
  for (const [range, reason] of PARSED_V6.slice(0, 2)) {
    if (address.match(range)) return { blocked: true, reason }
  }
  const parts = address.parts
  const embedded = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  const viaV4 = (via: EmbeddedIpv4Form, inner: AddressClass): AddressClass =>
    inner.blocked ? { ...inner, via } : { blocked: false }

  if (address.match(V4_MAPPED)) return viaV4('ipv4_mapped', classifyIpv4(embedded(part(parts, 6), part(parts, 7))))
  if (address.match(V4_COMPATIBLE)) {
    return viaV4('ipv4_compatible', classifyIpv4(embedded(part(parts, 6), part(parts, 7))))
  }
  if (address.match(NAT64)) return viaV4('nat64', classifyIpv4(embedded(part(parts, 6), part(parts, 7))))
  if (address.match(SIX_TO_FOUR)) return viaV4('6to4', classifyIpv4(embedded(part(parts, 1), part(parts, 2))))
  if (address.match(TEREDO)) {
    // RFC 4380 §4: bits 32–63 are the Teredo server, bits 96–127 the client address with every bit inverted.
    const server = classifyIpv4(embedded(part(parts, 2), part(parts, 3)))
    if (server.blocked) return { ...server, via: 'teredo' }
    const client = classifyIpv4(embedded(~part(parts, 6) & 0xffff, ~part(parts, 7) & 0xffff))
    return viaV4('teredo', client)
  }
  for (const [range, reason] of PARSED_V6) {
    if (address.match(range)) return { blocked: true, reason }
  }
  if (!address.match(GLOBAL_UNICAST_V6)) return { blocked: true, reason: 'reserved' }
  return { blocked: false }
}

function part(parts: number[], index: number): number {
  return parts[index] ?? 0
}
