import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startWorkDeadline } from './work-deadline.js'

describe('startWorkDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('aborts with a TimeoutError once the time has passed, and not before', () => {
    const parent = new AbortController()
    const deadline = startWorkDeadline(parent.signal, 1000)
    vi.advanceTimersByTime(999)
    expect(deadline.signal.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(deadline.signal.aborted).toBe(true)
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError')
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
  })

  it("aborts with the parent's reason when the parent aborts first, and clears its timer", () => {
    const parent = new AbortController()
    const deadline = startWorkDeadline(parent.signal, 1000)
    const reason = new Error('closing')
    parent.abort(reason)
    expect(deadline.signal.aborted).toBe(true)
    expect(deadline.signal.reason).toBe(reason)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('starts aborted under a parent that already is', () => {
    const parent = new AbortController()
    parent.abort(new Error('closed'))
    const deadline = startWorkDeadline(parent.signal, 1000)
    expect(deadline.signal.aborted).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
  })

  it('leaves nothing on a long-lived parent once released, however many units of work it served', () => {
    const parent = new AbortController()
    const deadlines = Array.from({ length: 1000 }, () => startWorkDeadline(parent.signal, 30_000))
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1000)
    expect(vi.getTimerCount()).toBe(1000)
    for (const deadline of deadlines) deadline.release()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
    expect(vi.getTimerCount()).toBe(0)
    // A released deadline no longer follows the parent or the clock.
    parent.abort()
    vi.advanceTimersByTime(60_000)
    expect(deadlines.some((deadline) => deadline.signal.aborted)).toBe(false)
  })

  it('can be released twice', () => {
    const parent = new AbortController()
    const deadline = startWorkDeadline(parent.signal, 1000)
    deadline.release()
    deadline.release()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
  })
})
