import { describe, expect, it } from 'vitest'
import {
  CHECKPOINT_MODES,
  CHECKPOINT_OUTCOMES,
  CheckpointPolicy,
  checkpointOutcome,
  RestartPolicy,
  counterSlot,
  STAT_SLOTS,
} from './wal-checkpoint-worker.js'

describe('CheckpointPolicy', () => {
  const options = {
    truncateThresholdBytes: 1000,
    intervalMs: 250,
    truncateWaitMs: 200,
    maxTruncateWaitMs: 1000,
    maxRetryDelayMs: 2000,
    restartThresholdBytes: 100,
    restartWaitMs: 50,
    restartCatchUpMs: 40,
  }

  /** Ticks without a TRUNCATE before the next one, and the wait that one gets. */
  function nextAttempt(policy: CheckpointPolicy): { skipped: number; waitMs: number } {
    let skipped = 0
    for (;;) {
      const waitMs = policy.truncateWait(5000)
      if (waitMs !== undefined) return { skipped, waitMs }
      skipped++
    }
  }

  it('truncates only above the threshold', () => {
    const policy = new CheckpointPolicy(options)
    expect(policy.truncateWait(1000)).toBeUndefined()
    expect(policy.truncateWait(1001)).toBe(200)
    policy.afterTruncate('complete')
    expect(policy.truncateWait(5000)).toBe(200)
  })

  it('after failed attempts waits a doubling number of ticks, capped; a busy attempt doubles the next wait, capped', () => {
    const policy = new CheckpointPolicy(options)
    const attempts = ['busy', 'error', 'busy', 'busy', 'busy', 'busy'].map((outcome) => {
      policy.afterTruncate(outcome === 'busy' ? 'busy' : 'error')
      return nextAttempt(policy)
    })
    // 2000 ms / 250 ms = at most 8 ticks between attempts; waits 200 → 400 → (error keeps it) → 800 → 1000.
    expect(attempts).toEqual([
      { skipped: 1, waitMs: 400 },
      { skipped: 2, waitMs: 400 },
      { skipped: 4, waitMs: 800 },
      { skipped: 8, waitMs: 1000 },
      { skipped: 8, waitMs: 1000 },
      { skipped: 8, waitMs: 1000 },
    ])
  })

  it('starts the next round from the wait that last succeeded and retries at once after a success', () => {
    const policy = new CheckpointPolicy(options)
    policy.afterTruncate('busy')
    expect(nextAttempt(policy)).toEqual({ skipped: 1, waitMs: 400 })
    policy.afterTruncate('complete')
    policy.settle()
    expect(nextAttempt(policy)).toEqual({ skipped: 0, waitMs: 400 })
    policy.afterTruncate('busy')
    expect(nextAttempt(policy)).toEqual({ skipped: 1, waitMs: 800 })
    policy.settle()
    expect(nextAttempt(policy)).toEqual({ skipped: 0, waitMs: 400 })
  })
})

describe('RestartPolicy', () => {
  const options = { restartThresholdBytes: 100, intervalMs: 250, maxRetryDelayMs: 2000 }

  /** Ticks (with the WAL over the threshold) without a RESTART before the next one. */
  function ticksSkipped(policy: RestartPolicy): number {
    let skipped = 0
    while (!policy.due(5000)) skipped++
    return skipped
  }

  it('restarts whenever the WAL holds more than the threshold, tick after tick while attempts succeed', () => {
    const policy = new RestartPolicy(options)
    expect(policy.due(100)).toBe(false)
    expect(policy.due(101)).toBe(true)
    policy.afterRestart('complete')
    expect(policy.due(101)).toBe(true)
    policy.afterRestart('complete')
    expect(policy.due(0)).toBe(false)
  })

  it('after failed attempts skips a doubling number of ticks, capped, and retries at once after a success', () => {
    const policy = new RestartPolicy(options)
    const skipped = ['busy', 'error', 'busy', 'busy', 'partial', 'busy'].map((outcome) => {
      policy.afterRestart(outcome as 'busy' | 'error' | 'partial')
      return ticksSkipped(policy)
    })
    // 2000 ms / 250 ms = at most 8 ticks between attempts.
    expect(skipped).toEqual([1, 2, 4, 8, 8, 8])
    policy.afterRestart('complete')
    expect(ticksSkipped(policy)).toBe(0)
    policy.afterRestart('busy')
    expect(ticksSkipped(policy)).toBe(1)
  })
})

describe('checkpointOutcome', () => {
  it('reads the PRAGMA wal_checkpoint row', () => {
    expect(checkpointOutcome({ busy: 0, log: 10, checkpointed: 10 })).toBe('complete')
    expect(checkpointOutcome({ busy: 0, log: 0, checkpointed: 0 })).toBe('complete')
    expect(checkpointOutcome({ busy: 0, log: 10, checkpointed: 4 })).toBe('partial')
    expect(checkpointOutcome({ busy: 1, log: 10, checkpointed: 10 })).toBe('busy')
  })
})

describe('shared statistics layout', () => {
  it('gives every mode and outcome its own slot inside the array', () => {
    const slots = CHECKPOINT_MODES.flatMap((mode) => CHECKPOINT_OUTCOMES.map((outcome) => counterSlot(mode, outcome)))
    expect(new Set(slots).size).toBe(slots.length)
    expect(Math.max(...slots)).toBe(STAT_SLOTS - 1)
    expect(Math.min(...slots)).toBeGreaterThan(2)
  })
})
