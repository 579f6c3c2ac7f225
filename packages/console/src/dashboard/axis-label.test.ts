import { describe, expect, it } from 'vitest'
import { axisLabel } from './axis-label.js'

describe('axisLabel', () => {
  const at = '2026-12-03T09:30:00.000Z'
  const local = new Date(at)

  it('gives sub-day buckets a date and a time', () => {
    const label = axisLabel(at, 3_600_000, 'en-US')
    expect(label).toContain(String(local.getDate()))
    expect(label).toContain(local.toLocaleString('en-US', { month: 'short' }))
    expect(label).toMatch(/\d{2}:\d{2}/)
  })

  it('gives day buckets the date with its year and no time', () => {
    const label = axisLabel(at, 86_400_000, 'en-US')
    expect(label).toContain(String(local.getFullYear()))
    expect(label).not.toMatch(/\d{2}:\d{2}/)
  })

  it('returns an unparseable value as served', () => {
    expect(axisLabel('not-a-date', 3_600_000)).toBe('not-a-date')
  })
})
