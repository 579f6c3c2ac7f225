import { describe, expect, it } from 'vitest'
import { bearerMatches } from './bearer-check.js'

describe('bearerMatches', () => {
  const token = 'a-long-enough-secret-token'
  it('accepts exactly the token, case-insensitive scheme', () => {
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true)
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true)
  })
  it('refuses a wrong, a prefix, a missing and a malformed header', () => {
    expect(bearerMatches('Bearer a-long-enough-secret-tokex', token)).toBe(false)
    expect(bearerMatches('Bearer a-long', token)).toBe(false)
    expect(bearerMatches(undefined, token)).toBe(false)
    expect(bearerMatches(token, token)).toBe(false)
    expect(bearerMatches(`Basic ${token}`, token)).toBe(false)
  })
})
