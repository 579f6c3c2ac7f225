/**
 * A fixed-window request throttle keyed by client address (product spec "Authentication" rule 9: /auth/challenge
 * and /auth/token get a per-IP limit). IPv6 clients are bucketed by their /64, since one host usually owns a whole
 * /64. Memory is bounded: windows are dropped as soon as they end, and past `maxBuckets` live buckets the table is
 * swept first and new addresses are then refused rather than tracked.
 */
import { isIPv6 } from 'node:net'

export interface IpThrottle {
  /** Counts one request from `ip`; returns the seconds to wait when over the limit, else 0. */
  hit(ip: string, now: number): number
}

export function createIpThrottle(options: { limit: number; windowMs: number; maxBuckets?: number }): IpThrottle {
  const maxBuckets = options.maxBuckets ?? 100_000
  const buckets = new Map<string, { start: number; count: number }>()
  const sweep = (now: number): void => {
    for (const [key, bucket] of buckets) if (now - bucket.start >= options.windowMs) buckets.delete(key)
  }
  return {
    hit(ip, now) {
      const key = bucketOf(ip)
      let bucket = buckets.get(key)
      if (bucket === undefined || now - bucket.start >= options.windowMs) {
        if (bucket === undefined && buckets.size >= maxBuckets) {
          sweep(now)
          if (buckets.size >= maxBuckets) return Math.ceil(options.windowMs / 1000)
        }
        bucket = { start: now, count: 0 }
        buckets.set(key, bucket)
      }
      bucket.count += 1
      if (bucket.count <= options.limit) return 0
      return Math.max(1, Math.ceil((bucket.start + options.windowMs - now) / 1000))
    },
  }
}

/** The throttle key of an address: IPv4 as is, IPv6 by its first four groups (/64). */
function bucketOf(ip: string): string {
  const address = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip
  if (!isIPv6(address)) return address
  const [head = '', tail = ''] = address.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === '' ? [] : tail.split(':')
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}
