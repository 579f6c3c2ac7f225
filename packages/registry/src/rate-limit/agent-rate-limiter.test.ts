import { describe, expect, it } from 'vitest'
import { AgentRateLimiter } from './agent-rate-limiter.js'

describe('AgentRateLimiter', () => {
  it('allows a full minute of budget, then answers the wait for the next token', () => {
    const limiter = new AgentRateLimiter({ perMinute: 2 })
    expect(limiter.retryAfterSeconds('a', 0)).toBe(0)
    limiter.charge('a', 0)
    limiter.charge('a', 0)
    expect(limiter.retryAfterSeconds('a', 0)).toBe(30)
    expect(limiter.retryAfterSeconds('b', 0)).toBe(0)
    // Refills continuously: one token after 30 s at 2/min.
    expect(limiter.retryAfterSeconds('a', 30_000)).toBe(0)
  })

  it('never goes below zero and never above the capacity', () => {
    const limiter = new AgentRateLimiter({ perMinute: 1 })
    for (let i = 0; i < 5; i++) limiter.charge('a', 0)
    expect(limiter.retryAfterSeconds('a', 59_000)).toBe(1)
    expect(limiter.retryAfterSeconds('a', 60_000)).toBe(0)
    limiter.charge('a', 10 * 60_000)
    expect(limiter.retryAfterSeconds('a', 10 * 60_000)).toBe(60)
  })

  it('is off at 0 per minute and forgets the longest-idle agent past its bound', () => {
    const off = new AgentRateLimiter({ perMinute: 0 })
    off.charge('a', 0)
    expect(off.retryAfterSeconds('a', 0)).toBe(0)
    const small = new AgentRateLimiter({ perMinute: 1, maxAgents: 2 })
    small.charge('a', 0)
    small.charge('b', 0)
    small.charge('c', 0)
    expect(small.retryAfterSeconds('a', 0)).toBe(0)
    expect(small.retryAfterSeconds('c', 0)).toBe(60)
  })
})
