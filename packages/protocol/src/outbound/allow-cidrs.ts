/**
 * The operator allowlist (ARCHITECTURE "Outbound HTTP policy"; RFC-ACDP-0008 §4.8 "explicit, non-default
 * test-mode SSRF policy"): CIDRs whose addresses the outbound client may reach even though their class is
 * blocked. It is the only way to reach loopback or private addresses (tests, `acdp dev`); production leaves it
 * empty and the services refuse a non-empty list when NODE_ENV=production.
 */
import { isIP } from 'node:net'
import { type IpAddress, type Ipv6Address, ipaddr, parseCanonicalIp } from './ip-address.js'

/** A parsed allowlist entry. */
export type AllowCidr = readonly [network: IpAddress, prefixLength: number]

/**
 * Checks an allowlist for configuration-time errors. Each entry must be `<address>/<prefix>` with a canonical
 * address (dotted-quad IPv4 or IPv6, no zone id), a prefix within the family's width, and no host bits set
 * (`127.0.0.1/8` is refused so an operator who meant one host does not open a /8 by accident).
 *
 * @throws TypeError naming the offending entry and the fix.
 */
export function validateAllowCidrs(cidrs: string[]): void {
  parseAllowCidrs(cidrs)
}

/** Parses an allowlist (see {@link validateAllowCidrs} for the rules). @throws TypeError on a malformed entry. */
export function parseAllowCidrs(cidrs: readonly string[]): AllowCidr[] {
  if (!Array.isArray(cidrs)) throw new TypeError('allowCidrs must be an array of CIDR strings')
  return cidrs.map(parseAllowCidr)
}

function parseAllowCidr(cidr: unknown): AllowCidr {
  if (typeof cidr !== 'string') throw new TypeError(`allowCidrs entry ${String(cidr)} is not a string`)
  const slash = cidr.indexOf('/')
  const address = slash < 0 ? cidr : cidr.slice(0, slash)
  const prefixText = slash < 0 ? '' : cidr.slice(slash + 1)
  const network = parseCanonicalIp(address)
  const family = isIP(address)
  const width = family === 4 ? 32 : 128
  if (network === undefined) {
    throw new TypeError(`allowCidrs entry "${cidr}" is not <address>/<prefix> with a canonical IPv4 or IPv6 address`)
  }
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > width) {
    throw new TypeError(`allowCidrs entry "${cidr}" needs a prefix length /0–/${width} (e.g. "${address}/${width}")`)
  }
  const prefixLength = Number(prefixText)
  const canonicalNetwork =
    family === 4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefixLength}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefixLength}`)
  if (canonicalNetwork.toString() !== network.toString()) {
    throw new TypeError(`allowCidrs entry "${cidr}" has host bits set; use "${canonicalNetwork}/${prefixLength}"`)
  }
  return [network, prefixLength]
}

/**
 * True when `ip` (a canonical address, already accepted by `net.isIP`) lies inside one of the allowlist CIDRs.
 * An IPv4-mapped IPv6 address is compared as its IPv4 address, so `127.0.0.1/32` covers `::ffff:127.0.0.1`.
 */
export function isInsideAllowCidrs(ip: string, cidrs: readonly AllowCidr[]): boolean {
  const parsed = cidrs.length === 0 ? undefined : parseCanonicalIp(ip)
  if (parsed === undefined) return false
  const candidates: IpAddress[] = [parsed]
  if (parsed.kind() === 'ipv6' && (parsed as Ipv6Address).isIPv4MappedAddress()) {
    candidates.push((parsed as Ipv6Address).toIPv4Address())
  }
  return cidrs.some(([network, prefixLength]) =>
    candidates.some((candidate) => candidate.kind() === network.kind() && candidate.match(network, prefixLength)),
  )
}
