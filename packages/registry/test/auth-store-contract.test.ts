/** The auth store (migration 0004) on SQLite and, with ACDP_TEST_DATABASE_URL, PostgreSQL. */
import { type Database, testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { type AuthStore, createAuthStore } from '../src/auth/auth-store.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import type { RegistryDatabase } from '../src/store/schema.js'

const ISSUER = 'did:web:registry.example.com'

describe.each(testDatabaseTargets())('auth store on $name', (target) => {
  let database: Database<RegistryDatabase> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })
  async function open(): Promise<AuthStore> {
    database = (await target.open()) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    return createAuthStore(database)
  }

  it('hands a challenge out exactly once, even to concurrent takers', async () => {
    const store = await open()
    const challenge = { nonce: 'n1', agentId: 'did:web:a.example', expiresAt: '2026-05-01T12:05:00Z', expiresAtMs: 5 }
    await store.saveChallenge(challenge)
    const taken = await Promise.all([store.takeChallenge('n1'), store.takeChallenge('n1'), store.takeChallenge('n1')])
    expect(taken.filter((t) => t !== undefined)).toEqual([challenge])
    expect(await store.takeChallenge('missing')).toBeUndefined()
  })

  it('keeps the first revocation of a jti and sweeps what expired', async () => {
    const store = await open()
    const revocation = {
      jti: 'j1',
      subject: 'did:web:a.example',
      reason: 'user_logout',
      revokedAtMs: 1,
      expiresAtMs: 100,
    }
    await store.revokeToken(revocation)
    await store.revokeToken({ ...revocation, reason: 'admin_revoke' })
    expect(await store.isTokenRevoked('j1', ISSUER)).toBe(true)
    expect(await store.isTokenRevoked('j2', ISSUER)).toBe(false)
    await store.saveChallenge({ nonce: 'old', agentId: 'did:web:a.example', expiresAt: 'x', expiresAtMs: 50 })
    await store.saveChallenge({ nonce: 'live', agentId: 'did:web:a.example', expiresAt: 'y', expiresAtMs: 500 })
    expect(await store.sweepExpired(200)).toBe(2)
    expect(await store.isTokenRevoked('j1', ISSUER)).toBe(false)
    expect(await store.takeChallenge('old')).toBeUndefined()
    expect((await store.takeChallenge('live'))?.expiresAtMs).toBe(500)
  })
})
