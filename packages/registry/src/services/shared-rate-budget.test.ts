import { describe, expect, it } from 'vitest'
import { isBackendTimeout, SharedBackendTimeout } from './shared-rate-budget.js'

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
