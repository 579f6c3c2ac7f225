import { describe, expect, it } from 'vitest'
import { createIpThrottle } from './ip-throttle.js'

describe('per-IP throttle', () => {
  it('allows `limit` hits per window and says how long to wait', () => {
    const throttle = createIpThrottle({ limit: 2, windowMs: 60_000 })
    expect(throttle.hit('10.0.0.1', 0)).toBe(0)
    expect(throttle.hit('10.0.0.1', 1000)).toBe(0)
    expect(throttle.hit('10.0.0.1', 15_000)).toBe(45)
    expect(throttle.hit('10.0.0.2', 15_000)).toBe(0)
    expect(throttle.hit('10.0.0.1', 60_000)).toBe(0)
  })

  it('buckets IPv6 by /64 and IPv4-mapped addresses as IPv4', () => {
    const throttle = createIpThrottle({ limit: 1, windowMs: 60_000 })
    expect(throttle.hit('2001:db8:1:2::1', 0)).toBe(0)
    expect(throttle.hit('2001:db8:1:2:ffff::9', 0)).toBeGreaterThan(0)
    expect(throttle.hit('2001:db8:1:3::1', 0)).toBe(0)
    expect(throttle.hit('::ffff:10.0.0.1', 0)).toBe(0)
    expect(throttle.hit('10.0.0.1', 0)).toBeGreaterThan(0)
  })

  it('stays bounded: past maxBuckets, new addresses are refused until windows end', () => {
    const throttle = createIpThrottle({ limit: 5, windowMs: 1000, maxBuckets: 2 })
    expect(throttle.hit('10.0.0.1', 0)).toBe(0)
    expect(throttle.hit('10.0.0.2', 0)).toBe(0)
    expect(throttle.hit('10.0.0.3', 10)).toBeGreaterThan(0)
    expect(throttle.hit('10.0.0.3', 1000)).toBe(0)
  })
})
