/**
 * The client address the per-IP limits key on (product spec "Authentication" 7): the socket peer, or the first
 * X-Forwarded-For value when — and only when — the peer is one of `rate_limit.trusted_proxies`. Anyone else's
 * X-Forwarded-For is ignored, so a client cannot pick its own bucket. IPv4-mapped IPv6 peers are written in
 * IPv4 form, so `127.0.0.1` entries match them.
 */
import { BlockList, isIP } from 'node:net'
import type { RequestHead } from './request-head.js'

/** `::ffff:1.2.3.4` → `1.2.3.4`; anything else unchanged. */
export function canonicalIp(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  return mapped ? (mapped[1] as string) : address
}

/** A matcher of the configured proxy entries (addresses or CIDRs; validated by config.ts). */
export function createProxyMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList()
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) list.addAddress(address, family)
    else list.addSubnet(address, Number(prefix), family)
  }
  return (address) => {
    const family = isIP(address)
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4')
  }
}

export function clientIpOf(
  request: Pick<RequestHead, 'headers' | 'socket'>,
  isTrustedProxy: (address: string) => boolean,
): string {
  const peer = canonicalIp(request.socket.remoteAddress ?? '')
  if (!isTrustedProxy(peer)) return peer
  const forwarded = request.headers['x-forwarded-for']
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim()
  return first !== undefined && isIP(canonicalIp(first)) !== 0 ? canonicalIp(first) : peer
}
