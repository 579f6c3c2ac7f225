import { describe, expect, it } from 'vitest'
import { KNOWN_REGISTRY_STATUSES, readRegistryStatus } from './registry-status.js'

describe('readRegistryStatus (RFC-ACDP-0004 §4.1)', () => {
  it.each(KNOWN_REGISTRY_STATUSES)('reads %s as defined', (status) => {
    expect(readRegistryStatus(status)).toEqual({ kind: 'known', status })
  })

  it.each(['paused_x', 'archived', 'a', 'z9_', 'a'.repeat(64)])('tolerates the well-formed unknown %s', (status) => {
    expect(readRegistryStatus(status)).toEqual({ kind: 'unknown', status })
  })

  it.each(['ACTIVE', 'in progress', '', '_active', '1active', 'active\n', 'activé', 'a'.repeat(65), 'a-b'])(
    'rejects %j as malformed, naming the pattern',
    (status) => {
      const reading = readRegistryStatus(status)
      expect(reading.kind).toBe('malformed')
      if (reading.kind === 'malformed') expect(reading.problem).toContain('^[a-z][a-z0-9_]*$')
    },
  )

  it.each([undefined, null, 1, ['active'], { status: 'active' }])('rejects the non-string %j', (value) => {
    expect(readRegistryStatus(value)).toEqual({ kind: 'malformed', problem: 'registry_state.status is not a string' })
  })
})
