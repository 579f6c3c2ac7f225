import { describe, expect, it } from 'vitest'
import type { BusEvent } from '../events/event-bus.js'
import { EventSequencer, type SequencerSource } from './event-sequencer.js'

const event = (id: number): BusEvent => ({ id: String(id), tenantId: 't', runId: null, type: 'e', data: `{"n":${id}}` })

/** A sequencer over an in-memory "store" of committed ids; records what it releases. */
function setup(options: { latest?: number; committed?: number[]; gapTimeoutMs?: number; maxHeld?: number } = {}) {
  const committed = new Set(options.committed ?? [])
  const released: Array<{ id: string; late: boolean }> = []
  const waiters = new Set<() => void>()
  const source: SequencerSource = {
    latestId: async () => options.latest ?? 0,
    readRange: async (afterId, beforeId, limit) =>
      [...committed]
        .filter((id) => id > afterId && id < beforeId)
        .sort((a, b) => a - b)
        .slice(0, limit)
        .map(event),
  }
  const sequencer = new EventSequencer({
    source,
    gapTimeoutMs: options.gapTimeoutMs ?? 30,
    maxHeld: options.maxHeld ?? 10_000,
    onRelease(released_, late) {
      released.push({ id: released_.id, late })
      for (const waiter of [...waiters]) waiter()
    },
  })
  const push = (id: number) => {
    committed.add(id)
    sequencer.push(event(id))
  }
  /** Resolves once `id` has been released (5 s limit). */
  const released_ = (id: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (released.some((r) => r.id === String(id))) {
          waiters.delete(check)
          clearTimeout(timer)
          resolve()
        }
      }
      const timer = setTimeout(() => reject(new Error(`not released: ${id}; got ${JSON.stringify(released)}`)), 5000)
      waiters.add(check)
      check()
    })
  return { sequencer, committed, released, push, waitReleased: released_ }
}

describe('EventSequencer', () => {
  it('releases events in id order whatever order they arrive in, and moves the watermark with them', async () => {
    const s = setup({ latest: 10 })
    await s.sequencer.ready
    expect(s.sequencer.watermark).toBe(10)
    s.push(13)
    s.push(12)
    expect(s.released).toEqual([])
    expect(s.sequencer.watermark).toBe(10)
    s.push(11)
    expect(s.released.map((r) => r.id)).toEqual(['11', '12', '13'])
    expect(s.sequencer.watermark).toBe(13)
    s.sequencer.close()
  })

  it('holds events published before the start point is read, and releases them once it is', async () => {
    const s = setup({ latest: 2 })
    s.push(2)
    s.push(3)
    expect(s.released).toEqual([])
    await s.sequencer.ready
    expect(s.released.map((r) => r.id)).toEqual(['2', '3'])
    s.sequencer.close()
  })

  it('skips a hole the store does not have after the gap timeout, and delivers it late and once if it commits after all', async () => {
    const s = setup({ latest: 0 })
    await s.sequencer.ready
    s.push(2)
    await s.waitReleased(2)
    expect(s.released).toEqual([{ id: '2', late: false }])
    expect(s.sequencer.watermark).toBe(2)
    s.push(1)
    expect(s.released).toEqual([
      { id: '2', late: false },
      { id: '1', late: true },
    ])
    s.sequencer.close()
  })

  it('fills a gap from the store when the bus never delivers it, in order, and drops the bus copy arriving later', async () => {
    const s = setup({ latest: 0, committed: [1] })
    await s.sequencer.ready
    s.push(2)
    await s.waitReleased(2)
    expect(s.released).toEqual([
      { id: '1', late: false },
      { id: '2', late: false },
    ])
    s.sequencer.push(event(1))
    s.push(3)
    expect(s.released.map((r) => r.id)).toEqual(['1', '2', '3'])
    s.sequencer.close()
  })

  it('reads the store after the watermark on catchUp, without waiting for a later event', async () => {
    const s = setup({ latest: 5, committed: [6, 7] })
    await s.sequencer.ready
    s.sequencer.catchUp()
    await s.waitReleased(7)
    expect(s.released.map((r) => r.id)).toEqual(['6', '7'])
    s.sequencer.close()
  })

  it('resolves the oldest gap at once when more than maxHeld events wait behind it', async () => {
    const s = setup({ latest: 0, gapTimeoutMs: 60_000, maxHeld: 3 })
    await s.sequencer.ready
    for (const id of [2, 3, 4, 5]) s.push(id)
    await s.waitReleased(5)
    expect(s.released.map((r) => r.id)).toEqual(['2', '3', '4', '5'])
    s.sequencer.close()
  })
})
