import { describe, expect, it } from 'vitest'
import { nextPollAfter } from './witness-schedule.js'

const INTERVAL = 10_000
const TICK = 1000

describe('nextPollAfter', () => {
  it('keeps a fixed rate when the poll was claimed within a tick of being due, however long it took', () => {
    expect(nextPollAfter({ dueAt: 50_000, claimedAt: 50_900, settledAt: 52_500 }, INTERVAL, TICK)).toBe(60_000)
    expect(nextPollAfter({ dueAt: 50_000, claimedAt: 50_000, settledAt: 50_010 }, INTERVAL, TICK)).toBe(60_000)
  })

  it('spreads a backlog: a registry claimed late is next due one interval after its claim, less the tolerance', () => {
    // Three registries due at one instant, claimed as slots freed: their next polls no longer coincide.
    const next = [50_000, 52_000, 54_000].map((claimedAt) =>
      nextPollAfter({ dueAt: 50_000, claimedAt, settledAt: claimedAt + 100 }, INTERVAL, TICK),
    )
    expect(next).toEqual([60_000, 61_000, 63_000])
  })

  it('never schedules a registry back to back when the poll itself took about an interval', () => {
    expect(nextPollAfter({ dueAt: 50_000, claimedAt: 50_000, settledAt: 61_000 }, INTERVAL, TICK)).toBe(71_000)
    expect(nextPollAfter({ dueAt: 50_000, claimedAt: 50_000, settledAt: 60_000 }, INTERVAL, TICK)).toBe(70_000)
  })
})
