import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyAddress } from './address-class.js'

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['fc00::1', 'unique_local'],
    ['fdff:ffff::1', 'unique_local'],
    ['169.254.169.254', 'cloud_metadata'],
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fec0::1', 'site_local'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['100.127.255.255', 'carrier_grade_nat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.10', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['2001:2::1', 'benchmarking'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['100::1', 'reserved'],
    ['64:ff9b:1::a', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['::2:0:0:1', 'reserved'],
  ])('refuses %s as %s', (ip, reason) => {
    expect(classifyAddress(ip)).toEqual({ blocked: true, reason })
  })

  it.each([
    ['::ffff:127.0.0.1', 'loopback', 'ipv4_mapped'],
    ['::ffff:7f00:1', 'loopback', 'ipv4_mapped'],
    ['::ffff:169.254.169.254', 'cloud_metadata', 'ipv4_mapped'],
    ['::ffff:10.1.2.3', 'private', 'ipv4_mapped'],
    ['::127.0.0.1', 'loopback', 'ipv4_compatible'],
    ['::a00:1', 'private', 'ipv4_compatible'],
    ['64:ff9b::10.0.0.1', 'private', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'cloud_metadata', 'nat64'],
    ['2002:c0a8:0101::1', 'private', '6to4'],
    ['2002:7f00:1::', 'loopback', '6to4'],
    // RFC 4380 §4: client 10.0.0.1 stored inverted (f5ff:fffe) behind a public server 65.54.227.120.
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private', 'teredo'],
    ['2001:0:a00:1::', 'private', 'teredo'],
  ])('looks through %s to the embedded IPv4 (%s via %s)', (ip, reason, via) => {
    expect(classifyAddress(ip)).toEqual({ blocked: true, reason, via })
  })

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows public unicast %s', (ip) => {
    expect(classifyAddress(ip)).toEqual({ blocked: false })
  })

  it.each([
    ['hostname', 'example.com'],
    ['decimal IPv4', '2130706433'],
    ['hex IPv4', '0x7f.0.0.1'],
    ['octal IPv4', '0177.0.0.1'],
    ['short IPv4', '127.1'],
    ['bracketed IPv6', '[::1]'],
    ['zone id', 'fe80::1%eth0'],
    ['empty', ''],
    ['CIDR', '10.0.0.0/8'],
  ])('refuses a non-canonical or non-address string (%s) as invalid_address', (_name, ip) => {
    expect(classifyAddress(ip)).toEqual({ blocked: true, reason: 'invalid_address' })
  })

  it('gives an IPv4 address and its IPv4-mapped IPv6 form the same verdict (property)', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const plain = classifyAddress(ip)
        const mapped = classifyAddress(`::ffff:${ip}`)
        expect(mapped.blocked).toBe(plain.blocked)
        expect(mapped.reason).toBe(plain.reason)
      }),
      { numRuns: 2000 },
    )
  })
})
