import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { isAdminBearer } from './admin-bearer.js'

const digests = ['s3cret-admin-token', 'second-token'].map((t) => createHash('sha256').update(t).digest())

describe('isAdminBearer', () => {
  it.each([
    ['Bearer s3cret-admin-token', true],
    ['bearer second-token', true],
    ['Bearer s3cret-admin-tokeN', false],
    ['Bearer s3cret-admin-token-longer', false],
    ['Basic s3cret-admin-token', false],
    ['s3cret-admin-token', false],
    ['Bearer ', false],
    [undefined, false],
  ])('%s → %s', (header, expected) => {
    expect(isAdminBearer(header, digests)).toBe(expected)
  })

  it('admits nobody when no token is configured, not even an empty bearer', () => {
    expect(isAdminBearer('Bearer x', [])).toBe(false)
    expect(isAdminBearer(undefined, [createHash('sha256').update('').digest()])).toBe(false)
  })
})
