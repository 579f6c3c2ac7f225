import { describe, expect, it } from 'vitest'
import { challengeSigningInput } from './challenge-signing-input.js'

describe('challengeSigningInput', () => {
  it('joins the fields in the documented order, expiry as sent', () => {
    expect(challengeSigningInput('n0', 'did:key:z6Mk', 'reg.example', '2026-12-04T19:00:00Z')).toBe(
      'acdp-registry-auth:v1:n0:did:key:z6Mk:reg.example:2026-12-04T19:00:00Z',
    )
    expect(challengeSigningInput('n1', 'did:web:a.example', 'cp.example', 1796410800)).toBe(
      'acdp-registry-auth:v1:n1:did:web:a.example:cp.example:1796410800',
    )
  })
})
