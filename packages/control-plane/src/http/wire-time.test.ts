import { describe, expect, it } from 'vitest'
import { formatTimestamp, parseTimestamp } from './wire-time.js'

describe('wire time', () => {
  it('formats epoch ms as RFC 3339 UTC with milliseconds', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02T03:04:05.006Z')
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
