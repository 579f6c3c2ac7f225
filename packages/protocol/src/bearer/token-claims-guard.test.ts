import { describe, expect, it } from 'vitest'
import { findTokenGuardFault, type TokenGuardInput } from './token-claims-guard.js'

const NOW_MS = Date.parse('2026-05-01T12:00:00Z')
const NOW = NOW_MS / 1000

function check(overrides: Partial<TokenGuardInput>) {
  return findTokenGuardFault({
    header: { alg: 'HS256' },
    claims: { iat: NOW, exp: NOW + 60 },
    expectedKid: undefined,
    nowMs: NOW_MS,
    leewaySeconds: 10,
    ...overrides,
  })
}

describe('findTokenGuardFault', () => {
  it('passes a token issued now, and iat/nbf up to the leeway ahead', () => {
    expect(check({})).toBeNull()
    expect(check({ claims: { iat: NOW + 10, nbf: NOW + 10 } })).toBeNull()
  })

  it('refuses iat and nbf beyond the leeway', () => {
    expect(check({ claims: { iat: NOW + 11 } })).toBe('issued_in_future')
    expect(check({ claims: { iat: NOW + 3600 }, leewaySeconds: 0 })).toBe('issued_in_future')
    expect(check({ claims: { iat: NOW, nbf: NOW + 11 } })).toBe('not_yet_valid')
  })

  it('refuses a kid other than the expected one, and any kid when our key has no name', () => {
    expect(check({ header: { alg: 'EdDSA', kid: 'k1' }, expectedKid: 'k1' })).toBeNull()
    expect(check({ header: { alg: 'EdDSA', kid: 'k2' }, expectedKid: 'k1' })).toBe('unknown_kid')
    expect(check({ header: { alg: 'HS256', kid: 'k1' } })).toBe('unknown_kid')
  })

  it.each(['jku', 'x5u', 'jwk', 'x5c'])('refuses a %s header whatever its value', (name) => {
    expect(check({ header: { alg: 'HS256', [name]: 'http://127.0.0.1/keys' } })).toBe('key_reference_header')
  })
})
