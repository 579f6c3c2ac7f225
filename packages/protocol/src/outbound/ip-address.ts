/**
 * IP address parsing for the outbound policy. `ipaddr.js` is CommonJS with `export =`; loading it through
 * `createRequire` keeps the typed module object under this repo's `esModuleInterop: false` ESM build.
 */
import { createRequire } from 'node:module'
import { isIP } from 'node:net'

type IpaddrModule = typeof import('ipaddr.js')

/** The `ipaddr.js` module object. */
export const ipaddr: IpaddrModule = createRequire(import.meta.url)('ipaddr.js')

/** A parsed IPv4 address. */
export type Ipv4Address = import('ipaddr.js').IPv4
/** A parsed IPv6 address. */
export type Ipv6Address = import('ipaddr.js').IPv6
/** A parsed address of either family. */
export type IpAddress = Ipv4Address | Ipv6Address

/**
 * Parses an address only in a canonical textual form Node's sockets accept (`net.isIP`) and without a zone id;
 * returns `undefined` otherwise. `ipaddr.js` alone would also accept `0x7f.1` or `2130706433`, which must never
 * reach a policy decision as if they were ordinary addresses.
 *
 * @param ip attacker-influenced: a DNS answer or a URL's IP literal.
 */
export function parseCanonicalIp(ip: unknown): IpAddress | undefined {
  if (typeof ip !== 'string' || ip.includes('%')) return undefined
  const family = isIP(ip)
  if (family === 4) return ipaddr.IPv4.parse(ip)
  // ipaddr.js reads the deprecated `::a.b.c.d` as `::ffff:a.b.c.d`; the WHATWG serialisation is pure hex.
  if (family !== 6) return undefined
  const canonical = URL.canParse(`http://[${ip}]/`) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : undefined
  return canonical === undefined ? undefined : ipaddr.IPv6.parse(canonical)
}
