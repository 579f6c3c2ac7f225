import { describe, expect, it } from 'vitest'
import { RevocationSigners } from './revoked-keys.js'

describe('RevocationSigners', () => {
  it('is exact on SQLite: only loaded or added signers may have revoked a key', async () => {
    const filter = await RevocationSigners.load({ kind: 'sqlite', listKeyRevocationSigners: async () => ['did:web:a'] })
    expect(filter.mayHaveRevoked(['did:web:b'])).toBe(false)
    expect(filter.mayHaveRevoked(['did:web:b', 'did:web:a'])).toBe(true)
    filter.add('did:web:b')
    expect(filter.mayHaveRevoked(['did:web:b'])).toBe(true)
  })

  it('answers "maybe" for everyone on a shared store and never reads the signers there', async () => {
    const filter = await RevocationSigners.load({
      kind: 'postgres',
      listKeyRevocationSigners: async () => {
        throw new Error('must not be read')
      },
    })
    expect(filter.mayHaveRevoked(['did:web:nobody'])).toBe(true)
  })
})
