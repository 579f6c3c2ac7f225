import { describe, expect, it } from 'vitest'
import { formatTimestamp, parseTimestamp } from './wire-time.js'

describe('wire time', () => {
  it('formats epoch ms as RFC 3339 UTC with milliseconds', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02T03:04:05.006Z')
  })

  it('formats exactly as Date#toISOString across days, day boundaries, negative and expanded years', () => {
    // The formatter caches the last day it saw: walk times that stay in a day, cross midnight both ways, jump
    // between distant days, and leave the four-digit years (toISOString's ±YYYYYY form) and come back.
    const samples: number[] = [0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 8.64e15, -8.64e15]
    const start = Date.UTC(2026, 10, 24, 23, 59, 58, 990)
    for (let i = 0; i < 3_000; i++) samples.push(start + i * 7)
    for (let i = 0; i < 3_000; i++) samples.push(start - i * 7)
    let seed = 12345
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      samples.push(Math.round(((seed / 2 ** 31) * 2 - 1) * 4e14))
      samples.push(start + (seed % 200_000_000) - 100_000_000)
    }
    samples.push(Date.UTC(10_000, 0, 1), Date.UTC(9_999, 11, 31, 23, 59, 59, 999), Date.UTC(-1, 0, 1), start)
    for (const ms of samples) expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString())
  })

  it('throws on an invalid time, as Date#toISOString does, even after a cached day', () => {
    formatTimestamp(Date.UTC(2026, 0, 2))
    expect(() => formatTimestamp(Number.NaN)).toThrow(RangeError)
    expect(() => formatTimestamp(9e15)).toThrow(RangeError)
  })

  it.each([
    ['UTC with ms', '2026-01-02T03:04:05.006Z', Date.UTC(2026, 0, 2, 3, 4, 5, 6)],
    ['no fraction', '2026-01-02T03:04:05Z', Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['microseconds truncated', '2026-01-02T03:04:05.123456Z', Date.UTC(2026, 0, 2, 3, 4, 5, 123)],
    ['offset', '2026-01-02T05:04:05+02:00', Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['lowercase t and z', '2026-01-02t03:04:05z', Date.UTC(2026, 0, 2, 3, 4, 5)],
  ])('parses %s', (_name, text, expected) => {
    expect(parseTimestamp(text)).toBe(expected)
  })

  it.each([
    ['date only', '2026-01-02'],
    ['February 30', '2026-02-30T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['hour 24', '2026-01-01T24:00:00Z'],
    ['no offset', '2026-01-01T00:00:00'],
    ['space separator', '2026-01-01 00:00:00Z'],
    ['garbage', 'yesterday'],
    ['very long', `2026-01-01T00:00:00.${'1'.repeat(50)}Z`],
  ])('refuses %s', (_name, text) => {
    expect(parseTimestamp(text)).toBeUndefined()
  })
})
