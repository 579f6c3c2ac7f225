import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { throttle } from './throttle.js'

describe('throttle', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('runs the first call at once and collapses a burst into one trailing call', () => {
    const run = vi.fn()
    const throttled = throttle(run, 1000)
    throttled()
    expect(run).toHaveBeenCalledTimes(1)
    for (let i = 0; i < 20; i++) throttled()
    expect(run).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(999)
    expect(run).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(1)
    expect(run).toHaveBeenCalledTimes(2)
  })

  it('runs at once again after a quiet interval', () => {
    const run = vi.fn()
    const throttled = throttle(run, 1000)
    throttled()
    vi.advanceTimersByTime(5000)
    throttled()
    expect(run).toHaveBeenCalledTimes(2)
  })

  it('cancel drops the pending trailing call', () => {
    const run = vi.fn()
    const throttled = throttle(run, 1000)
    throttled()
    throttled()
    throttled.cancel()
    vi.advanceTimersByTime(5000)
    expect(run).toHaveBeenCalledTimes(1)
  })
})
