import { describe, expect, it } from 'vitest'
import { cappedExponentialMs, jitterFraction } from './exponential-backoff.js'

describe('cappedExponentialMs', () => {
  it('doubles per step from the base and stops at the cap', () => {
    expect([0, 1, 2, 5, 6, 7].map((step) => cappedExponentialMs(250, step, 15_000))).toEqual([
      250, 500, 1000, 8000, 15_000, 15_000,
    ])
  })

  it('stays at the cap for any large step', () => {
    expect(cappedExponentialMs(10, 10_000, 86_400_000)).toBe(86_400_000)
    expect(cappedExponentialMs(1000, 2 ** 40, 600_000)).toBe(600_000)
  })
})

describe('jitterFraction', () => {
  it('reads two bytes, big-endian, as a fraction in [0, 1)', () => {
    const bytes =
      (...values: number[]) =>
      () =>
        Uint8Array.from(values)
    expect(jitterFraction(bytes(0, 0))).toBe(0)
    expect(jitterFraction(bytes(128, 0))).toBe(0.5)
    expect(jitterFraction(bytes(255, 255))).toBe(65535 / 65536)
    expect(jitterFraction(bytes(1, 2))).toBe(258 / 65536)
  })

  it('asks the source for exactly two bytes', () => {
    const asked: number[] = []
    jitterFraction((n) => {
      asked.push(n)
      return new Uint8Array(n)
    })
    expect(asked).toEqual([2])
  })
})
