import { describe, expect, it } from 'vitest'
import { sampleBeta, selectArm, type Uniform } from './thompson.js'

/** A small seeded PRNG (mulberry32) so the statistics below are deterministic. */
function seeded(seed: number): Uniform {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296
  }
}

describe('thompson sampling', () => {
  it('draws Beta samples whose mean approaches alpha / (alpha + beta)', () => {
    const uniform = seeded(1)
    for (const [alpha, beta] of [
      [1, 1],
      [3, 1],
      [2, 30],
      [0.5, 0.5],
    ] as const) {
      let sum = 0
      for (let i = 0; i < 20_000; i++) {
        const x = sampleBeta(alpha, beta, uniform)
        expect(x).toBeGreaterThanOrEqual(0)
        expect(x).toBeLessThanOrEqual(1)
        sum += x
      }
      expect(sum / 20_000).toBeCloseTo(alpha / (alpha + beta), 2)
    }
  })

  it('prefers the arm with the better record, explores at the configured fraction', () => {
    const uniform = seeded(7)
    const arms = [
      { agentDid: 'good', alpha: 30, beta: 2 },
      { agentDid: 'bad', alpha: 2, beta: 30 },
    ]
    const counts = { good: 0, bad: 0, explore: 0 }
    for (let i = 0; i < 2000; i++) {
      const pick = selectArm(arms, 0.1, uniform)
      if (pick?.reason === 'explore') counts.explore += 1
      else if (pick !== null) counts[pick.agentDid as 'good' | 'bad'] += 1
    }
    expect(counts.good).toBeGreaterThan(1700)
    expect(counts.bad).toBeLessThan(20)
    expect(counts.explore).toBeGreaterThan(150)
    expect(counts.explore).toBeLessThan(250)
  })

  it('returns null without arms and forces a single candidate', () => {
    expect(selectArm([], 0.05, seeded(1))).toBeNull()
    expect(selectArm([{ agentDid: 'only', alpha: 1, beta: 9 }], 1, seeded(1))).toEqual({
      agentDid: 'only',
      reason: 'forced_only_candidate',
    })
  })
})
