import { describe, expect, it } from 'vitest'
import type { SharedRateLimitStore } from './rate-limit-store.js'
import { isBackendTimeout, SharedBackendTimeout, SharedRateBudget } from './shared-rate-budget.js'

describe('isBackendTimeout', () => {
  it('counts our deadline, the database timeouts and the pool connect timeout as one outcome', () => {
    expect(isBackendTimeout(new SharedBackendTimeout('no answer within 100 ms'))).toBe(true)
    expect(
      isBackendTimeout(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toBe(true)
    expect(
      isBackendTimeout(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' })),
    ).toBe(true)
    expect(isBackendTimeout(new Error('timeout exceeded when trying to connect'))).toBe(true)
    expect(isBackendTimeout(new Error('Connection terminated due to connection timeout'))).toBe(true)
  })

  it('leaves every other failure an error', () => {
    expect(isBackendTimeout(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBe(false)
    expect(isBackendTimeout(Object.assign(new Error('relation does not exist'), { code: '42P01' }))).toBe(false)
    expect(isBackendTimeout('timeout')).toBe(false)
    expect(isBackendTimeout(undefined)).toBe(false)
  })
})

describe('SharedRateBudget when the database is down and backend_unavailable = "allow"', () => {
  it('admits concurrent takes of one key on the memory pre-filter alone, never more than its budget', async () => {
    const down = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'))
    const store = { take: down, peek: down, charge: down } as unknown as SharedRateLimitStore
    const budget = new SharedRateBudget({
      store,
      timeoutMs: 50,
      unavailable: 'allow',
      scope: 'agent_write',
      perMinute: 3,
    })
    // All ten look at the pre-filter before any of them hears back from the database.
    const waits = await Promise.all(Array.from({ length: 10 }, () => budget.take('did:key:z6Mk', 0)))
    expect(waits.filter((w) => w === 0)).toHaveLength(3)
    expect(waits.filter((w) => w > 0)).toHaveLength(7)
  })
})
