import { describe, expect, it } from 'vitest'
import { formatTimestamp, isCanonicalTimestamp, parseTimestampMs } from './timestamps.js'

describe('timestamps', () => {
  it.each([
    ['2026-04-16T10:30:15Z', Date.parse('2026-04-16T10:30:15.000Z')],
    ['2026-04-16T10:30:15.1Z', Date.parse('2026-04-16T10:30:15.100Z')],
    ['2026-04-16T10:30:15.123Z', Date.parse('2026-04-16T10:30:15.123Z')],
    ['2026-04-16T10:30:15.123999999Z', Date.parse('2026-04-16T10:30:15.123Z')],
  ])('parses %s at any precision, flooring to the millisecond', (text, ms) => {
    expect(parseTimestampMs(text)).toBe(ms)
  })

  it.each([
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-04-16T10:30:15+00:00',
    '2026-04-16 10:30:15Z',
    'not a time',
    '',
  ])('refuses %s', (text) => {
    expect(parseTimestampMs(text)).toBeUndefined()
  })

  it('formats registry times in canonical millisecond form', () => {
    expect(formatTimestamp(new Date(Date.parse('2026-04-16T10:30:15.999Z')))).toBe('2026-04-16T10:30:15.999Z')
    expect(isCanonicalTimestamp('2026-04-16T10:30:15.999Z')).toBe(true)
    expect(isCanonicalTimestamp('2026-04-16T10:30:15Z')).toBe(false)
  })
})
