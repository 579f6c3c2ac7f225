import { describe, expect, it } from 'vitest'
import { canonicalIp, clientIpOf, createProxyMatcher } from './client-ip.js'
import type { RequestHead } from './request-head.js'

const request = (peer: string, forwarded?: string): Pick<RequestHead, 'headers' | 'socket'> => ({
  socket: { remoteAddress: peer },
  headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
})

describe('client IP for the per-IP limits', () => {
  const trusted = createProxyMatcher(['10.0.0.0/8', '192.0.2.7', 'fd00::/8'])

  it('uses the socket peer and ignores X-Forwarded-For from an untrusted peer', () => {
    expect(clientIpOf(request('203.0.113.9', '198.51.100.1'), trusted)).toBe('203.0.113.9')
  })

  it('takes the first X-Forwarded-For value from a trusted proxy (CIDR, address, IPv6)', () => {
    expect(clientIpOf(request('10.1.2.3', '198.51.100.1, 10.1.2.3'), trusted)).toBe('198.51.100.1')
    expect(clientIpOf(request('192.0.2.7', '2001:db8::1'), trusted)).toBe('2001:db8::1')
    expect(clientIpOf(request('fd00::5', '198.51.100.2'), trusted)).toBe('198.51.100.2')
    expect(clientIpOf(request('192.0.2.8', '198.51.100.1'), trusted)).toBe('192.0.2.8')
  })

  it('keeps the peer when a trusted proxy forwards garbage or nothing', () => {
    expect(clientIpOf(request('10.1.2.3', 'not-an-ip'), trusted)).toBe('10.1.2.3')
    expect(clientIpOf(request('10.1.2.3'), trusted)).toBe('10.1.2.3')
  })

  it('writes IPv4-mapped IPv6 peers in IPv4 form, so IPv4 entries match them', () => {
    expect(canonicalIp('::ffff:10.0.0.1')).toBe('10.0.0.1')
    expect(clientIpOf(request('::ffff:10.0.0.1', '198.51.100.3'), trusted)).toBe('198.51.100.3')
  })
})
