import { describe, expect, it } from 'vitest'
import { isInsideAllowCidrs, parseAllowCidrs, validateAllowCidrs } from './allow-cidrs.js'

describe('validateAllowCidrs', () => {
  it('accepts an empty list and canonical IPv4/IPv6 CIDRs', () => {
    expect(() => validateAllowCidrs([])).not.toThrow()
    expect(() =>
      validateAllowCidrs(['127.0.0.1/32', '127.0.0.0/8', '10.0.0.0/8', '::1/128', 'fd00::/8', '0.0.0.0/0']),
    ).not.toThrow()
  })

  it.each([
    ['no prefix', '127.0.0.1'],
    ['prefix too long (v4)', '10.0.0.0/33'],
    ['prefix too long (v6)', '::1/129'],
    ['leading-zero prefix', '10.0.0.0/08'],
    ['empty prefix', '10.0.0.0/'],
    ['host bits set', '127.0.0.1/8'],
    ['short IPv4', '127.1/32'],
    ['decimal IPv4', '2130706433/32'],
    ['hostname', 'localhost/32'],
    ['zone id', 'fe80::1%eth0/128'],
    ['empty string', ''],
  ])('throws TypeError on a malformed CIDR: %s', (_name, cidr) => {
    expect(() => validateAllowCidrs([cidr])).toThrow(TypeError)
  })

  it('throws TypeError on a non-array and a non-string entry', () => {
    expect(() => validateAllowCidrs('127.0.0.1/32' as unknown as string[])).toThrow(TypeError)
    expect(() => validateAllowCidrs([42 as unknown as string])).toThrow(TypeError)
  })
})

describe('isInsideAllowCidrs', () => {
  const cidrs = parseAllowCidrs(['127.0.0.1/32', '10.1.0.0/16', '::1/128'])

  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', false],
    ['10.1.255.255', true],
    ['10.2.0.0', false],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:127.0.0.2', false],
    ['64:ff9b::7f00:1', false],
    ['0x7f.0.0.1', false],
    ['not-an-ip', false],
  ])('%s inside → %s', (ip, expected) => {
    expect(isInsideAllowCidrs(ip, cidrs)).toBe(expected)
  })

  it('matches nothing with an empty allowlist', () => {
    expect(isInsideAllowCidrs('127.0.0.1', [])).toBe(false)
  })
})
