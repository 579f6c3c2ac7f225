import { describe, expect, it } from 'vitest'
import type { DashboardOverview } from './dashboard.js'
import { createDashboardCache } from './dashboard-cache.js'

/** A distinguishable overview: only `totalRuns` matters to these tests. */
function overview(totalRuns: number): DashboardOverview {
  return { totalRuns } as DashboardOverview
}

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let now = 1_000_000
  let computations = 0
  const cache = createDashboardCache({
    ttlMs: options.ttlMs ?? 1000,
    maxEntries: options.maxEntries ?? 8,
    now: () => now,
  })
  const compute = (value: number) => () => {
    computations += 1
    return Promise.resolve(overview(value))
  }
  return {
    cache,
    compute,
    computations: () => computations,
    advance(ms: number) {
      now += ms
    },
  }
}

describe('createDashboardCache', () => {
  it('computes concurrent misses of one tenant and window once', async () => {
    const s = setup()
    const results = await Promise.all(Array.from({ length: 20 }, () => s.cache.get('acme', '24h', s.compute(1))))
    expect(results.every((r) => r.totalRuns === 1)).toBe(true)
    expect(s.computations()).toBe(1)
  })

  it('keys by tenant and window, so one tenant never gets another tenant’s numbers', async () => {
    const s = setup()
    expect((await s.cache.get('acme', '24h', s.compute(1))).totalRuns).toBe(1)
    expect((await s.cache.get('globex', '24h', s.compute(2))).totalRuns).toBe(2)
    expect((await s.cache.get('acme', '7d', s.compute(3))).totalRuns).toBe(3)
    expect((await s.cache.get('acme', '24h', s.compute(4))).totalRuns).toBe(1)
    expect(s.computations()).toBe(3)
  })

  it.each([
    ['one ms before the TTL, the cached overview is served', 999, 1],
    ['at the TTL, it is recomputed', 1000, 2],
    ['after the TTL, it is recomputed', 1001, 2],
    ['with the clock moved backwards, it is recomputed', -1, 2],
  ])('%s', async (_name, elapsed, expected) => {
    const s = setup()
    await s.cache.get('acme', '24h', s.compute(1))
    s.advance(elapsed)
    expect((await s.cache.get('acme', '24h', s.compute(2))).totalRuns).toBe(expected)
  })

  it('does not keep a failed computation', async () => {
    const s = setup()
    await expect(s.cache.get('acme', '24h', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down')
    expect((await s.cache.get('acme', '24h', s.compute(5))).totalRuns).toBe(5)
    expect(s.cache.size).toBe(1)
  })

  it('holds at most maxEntries, evicting the least recently used', async () => {
    const s = setup({ maxEntries: 2 })
    await s.cache.get('a', '24h', s.compute(1))
    await s.cache.get('b', '24h', s.compute(2))
    await s.cache.get('a', '24h', s.compute(9)) // a is now the most recent
    await s.cache.get('c', '24h', s.compute(3)) // evicts b
    expect(s.cache.size).toBe(2)
    expect((await s.cache.get('a', '24h', s.compute(10))).totalRuns).toBe(1)
    expect((await s.cache.get('b', '24h', s.compute(20))).totalRuns).toBe(20)
  })

  it('computes every time with a TTL of 0 and holds nothing', async () => {
    const s = setup({ ttlMs: 0 })
    await s.cache.get('acme', '24h', s.compute(1))
    await s.cache.get('acme', '24h', s.compute(2))
    expect(s.computations()).toBe(2)
    expect(s.cache.size).toBe(0)
  })
})
