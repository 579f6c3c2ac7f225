/**
 * Outbound policy refusals (RFC-ACDP-0006 §7.1–7.2, RFC-ACDP-0008 §4.8–4.9): every blocked address class via DNS
 * answers and via IP-literal URLs, numeric IPv4 spellings, mixed answers, schemes, credentials, config errors.
 * Nothing here should ever reach a socket; the one real server proves a refused mixed answer never connects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient, type OutboundClient } from '../src/outbound/index.js'
import { createFakeDns } from './support/fake-dns.js'
import { expectOutboundError } from './support/outbound-errors.js'
import { createTestPki, type TestPki } from './support/test-ca.js'
import { startHttpsTestServer, type TestServer } from './support/test-servers.js'

// Blocked classes: [address, reason, via?]
const BLOCKED: Array<[string, string, string?]> = [
  ['127.0.0.1', 'loopback'],
  ['127.9.9.9', 'loopback'],
  ['::1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['fd00::1', 'unique_local'],
  ['169.254.169.254', 'cloud_metadata'],
  ['169.254.10.10', 'link_local'],
  ['fe80::1', 'link_local'],
  ['100.64.0.1', 'carrier_grade_nat'],
  ['224.0.0.251', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.1', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['240.0.0.1', 'reserved'],
  ['::ffff:127.0.0.1', 'loopback', 'ipv4_mapped'],
  ['::ffff:169.254.169.254', 'cloud_metadata', 'ipv4_mapped'],
  ['::7f00:1', 'loopback', 'ipv4_compatible'],
  ['64:ff9b::a00:1', 'private', 'nat64'],
  ['2002:c0a8:101::1', 'private', '6to4'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private', 'teredo'],
]

const PUBLIC_V4 = '8.8.8.8'
const PUBLIC_V6 = '2606:4700:4700::1111'

function literalUrl(ip: string): string {
  return ip.includes(':') ? `https://[${ip}]/x` : `https://${ip}/x`
}

describe('outbound policy: address classes', () => {
  it.each(BLOCKED)('refuses a DNS answer %s (%s)', async (ip, reason, via) => {
    const dns = createFakeDns({ 'victim.test': [ip] })
    const client = createOutboundClient({ allowCidrs: [], lookup: dns.lookup, totalTimeoutMs: 2000 })
    const expected = { reason, address: ip, host: 'victim.test', ...(via ? { via } : {}) }
    await expectOutboundError(client.request('https://victim.test/x'), 'outbound_refused', expected)
    await expectOutboundError(client.checkUrl('https://victim.test/x'), 'outbound_refused', expected)
    await client.close()
  })

  it.each(BLOCKED)('refuses the IP literal URL for %s (%s) without a DNS lookup', async (ip, reason) => {
    const dns = createFakeDns({})
    const client = createOutboundClient({ allowCidrs: [], lookup: dns.lookup, totalTimeoutMs: 2000 })
    await expectOutboundError(client.request(literalUrl(ip)), 'outbound_refused', { reason })
    await expectOutboundError(client.checkUrl(literalUrl(ip)), 'outbound_refused', { reason })
    expect(dns.calls).toEqual([])
    await client.close()
  })

  it.each([
    ['decimal', 'https://2130706433/', 'loopback'],
    ['hex', 'https://0x7f000001/', 'loopback'],
    ['octal', 'https://0177.0.0.1/', 'loopback'],
    ['short', 'https://127.1/', 'loopback'],
    ['mixed radix', 'https://0x7f.0.0.1/', 'loopback'],
    ['decimal private', 'https://3232235777/', 'private'],
    ['decimal metadata', 'https://2852039166/', 'cloud_metadata'],
    ['trailing dot', 'https://127.0.0.1./', 'loopback'],
    ['IPv4-mapped hex', 'https://[::ffff:7f00:1]/', 'loopback'],
    ['uppercase IPv6', 'https://[FE80::1]/', 'link_local'],
  ])('refuses a %s IPv4/IPv6 spelling (%s) after URL normalisation', async (_name, url, reason) => {
    const dns = createFakeDns({})
    const client = createOutboundClient({ allowCidrs: [], lookup: dns.lookup })
    await expectOutboundError(client.request(url), 'outbound_refused', { reason })
    expect(dns.calls).toEqual([])
    await client.close()
  })

  it.each([
    ['public v4', [PUBLIC_V4]],
    ['public v6', [PUBLIC_V6]],
    ['public v4 and v6', [PUBLIC_V4, PUBLIC_V6]],
    ['NAT64 of a public v4', ['64:ff9b::808:808']],
  ])('checkUrl accepts a host resolving to %s', async (_name, addresses) => {
    const client = createOutboundClient({ allowCidrs: [], lookup: createFakeDns({ 'pub.test': addresses }).lookup })
    await expect(client.checkUrl('https://pub.test/hook')).resolves.toBeUndefined()
    await client.close()
  })
})

describe('outbound policy: mixed DNS answers are refused whole', () => {
  let pki: TestPki
  let server: TestServer

  beforeAll(async () => {
    pki = createTestPki({ dnsNames: ['mixed.test'], ipAddresses: ['127.0.0.1'] })
    server = await startHttpsTestServer(pki)
  })
  afterAll(async () => {
    await server.close()
  })

  it.each([
    ['public then private', [PUBLIC_V4, '10.0.0.1'], '10.0.0.1', 'private'],
    ['private then public', ['10.0.0.1', PUBLIC_V4], '10.0.0.1', 'private'],
    ['public v6 then loopback v6', [PUBLIC_V6, '::1'], '::1', 'loopback'],
    ['public then metadata', [PUBLIC_V4, '169.254.169.254'], '169.254.169.254', 'cloud_metadata'],
  ])('%s', async (_name, addresses, address, reason) => {
    const client = createOutboundClient({ allowCidrs: [], lookup: createFakeDns({ 'mixed.test': addresses }).lookup })
    await expectOutboundError(client.checkUrl('https://mixed.test/'), 'outbound_refused', {
      reason,
      address,
      mixed_answer: true,
    })
    await client.close()
  })

  it('never connects to the allowlisted half of a mixed answer', async () => {
    const client = createOutboundClient({
      allowCidrs: ['127.0.0.1/32'],
      trustedCaCertificates: [pki.caPem],
      lookup: createFakeDns({ 'mixed.test': ['127.0.0.1', '10.0.0.1'] }).lookup,
    })
    await expectOutboundError(client.request(`https://mixed.test:${server.port}/ok`), 'outbound_refused', {
      reason: 'private',
      address: '10.0.0.1',
      mixed_answer: true,
    })
    expect(server.connections).toEqual([])
    await client.close()
  })
})

describe('outbound policy: URL shape', () => {
  const dns = createFakeDns({ 'pub.test': [PUBLIC_V4], 'loop.test': ['127.0.0.1'] })

  it.each([
    ['http', 'http://pub.test/'],
    ['ftp', 'ftp://pub.test/'],
    ['file', 'file:///etc/passwd'],
    ['data', 'data:text/plain,hi'],
    ['ws', 'ws://pub.test/'],
    ['gopher', 'gopher://pub.test:70/'],
  ])('refuses the %s scheme without resolving', async (_name, url) => {
    const local = createFakeDns({})
    const client = createOutboundClient({ allowCidrs: [], lookup: local.lookup })
    await expectOutboundError(client.request(url), 'outbound_refused', { reason: 'scheme' })
    expect(local.calls).toEqual([])
    await client.close()
  })

  it('refuses http to a public address even when http is enabled for allowlisted addresses', async () => {
    const client = createOutboundClient({
      allowCidrs: ['127.0.0.1/32'],
      allowHttpForAllowlisted: true,
      lookup: dns.lookup,
    })
    await expectOutboundError(client.checkUrl('http://pub.test/'), 'outbound_refused', {
      reason: 'http_not_allowlisted',
      address: PUBLIC_V4,
    })
    await client.close()
  })

  it('refuses http to a blocked address outside the allowlist with its address class', async () => {
    const client = createOutboundClient({ allowCidrs: [], allowHttpForAllowlisted: true, lookup: dns.lookup })
    await expectOutboundError(client.checkUrl('http://loop.test/'), 'outbound_refused', { reason: 'loopback' })
    await expectOutboundError(client.checkUrl('http://2130706433/'), 'outbound_refused', { reason: 'loopback' })
    await client.close()
  })

  it.each([
    ['user and password', 'https://user:pw@pub.test/'],
    ['user only', 'https://user@pub.test/'],
  ])('refuses credentials in the URL (%s)', async (_name, url) => {
    const client = createOutboundClient({ allowCidrs: [], lookup: dns.lookup })
    await expectOutboundError(client.request(url), 'outbound_refused', { reason: 'credentials_in_url' })
    await client.close()
  })

  it('refuses an unparseable URL as outbound_refused invalid_url', async () => {
    const client = createOutboundClient({ allowCidrs: [], lookup: dns.lookup })
    await expectOutboundError(client.request('not a url'), 'outbound_refused', { reason: 'invalid_url' })
    await expectOutboundError(client.checkUrl('https://[::1'), 'outbound_refused', { reason: 'invalid_url' })
    await client.close()
  })

  it('reports a name that does not resolve as outbound_failed dns', async () => {
    const client = createOutboundClient({ allowCidrs: [], lookup: createFakeDns({ 'empty.test': [] }).lookup })
    await expectOutboundError(client.checkUrl('https://missing.test/'), 'outbound_failed', {
      reason: 'dns',
      code: 'ENOTFOUND',
    })
    await expectOutboundError(client.checkUrl('https://empty.test/'), 'outbound_failed', { reason: 'dns' })
    await client.close()
  })

  it('refuses a malformed answer from a custom resolver as invalid_address', async () => {
    const client = createOutboundClient({
      allowCidrs: ['0.0.0.0/0'],
      lookup: async () => [{ address: '0x7f.1', family: 4 }],
    })
    await expectOutboundError(client.checkUrl('https://odd.test/'), 'outbound_refused', { reason: 'invalid_address' })
    await client.close()
  })
})

describe('outbound policy: configuration', () => {
  it.each([
    ['malformed CIDR', { allowCidrs: ['127.0.0.1'] }],
    ['CIDR with host bits', { allowCidrs: ['127.0.0.1/8'] }],
    ['non-PEM CA', { allowCidrs: [], trustedCaCertificates: ['not a certificate'] }],
    ['negative body cap', { allowCidrs: [], maxBodyBytes: -1 }],
    ['fractional timeout', { allowCidrs: [], totalTimeoutMs: 1.5 }],
    ['zero connect timeout', { allowCidrs: [], connectTimeoutMs: 0 }],
    ['negative redirects', { allowCidrs: [], maxRedirects: -1 }],
  ])('createOutboundClient throws TypeError on a %s', (_name, policy) => {
    expect(() => createOutboundClient(policy)).toThrow(TypeError)
  })

  it('request throws TypeError on a forbidden header or a bad per-request limit', async () => {
    const client: OutboundClient = createOutboundClient({ allowCidrs: [], lookup: createFakeDns({}).lookup })
    await expect(client.request('https://pub.test/', { headers: { Host: 'evil.test' } })).rejects.toThrow(TypeError)
    await expect(client.request('https://pub.test/', { headers: { 'Proxy-Authorization': 'x' } })).rejects.toThrow(
      TypeError,
    )
    await expect(client.request('https://pub.test/', { maxBodyBytes: Number.NaN })).rejects.toThrow(TypeError)
    await client.close()
  })
})
