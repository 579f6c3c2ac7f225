/** The revocation-feed store (migration 0006) on SQLite and, with ACDP_TEST_DATABASE_URL, PostgreSQL. */
import { type Database, testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { type AuthStore, createAuthStore } from '../src/auth/auth-store.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import { createRevocationFeedStore, type RevocationFeedStore } from '../src/auth/revocation-feed-store.js'
import type { RegistryDatabase } from '../src/store/schema.js'

const FEED = 'https://peer.example/auth/revocations'
const PEER = 'did:web:peer.example'
const US = 'did:web:registry.example.com'

describe.each(testDatabaseTargets())('revocation feed store on $name', (target) => {
  let database: Database<RegistryDatabase> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })
  async function open(): Promise<{ feeds: RevocationFeedStore; auth: AuthStore }> {
    database = (await target.open()) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    return { feeds: createRevocationFeedStore(database), auth: createAuthStore(database) }
  }

  it('moves a feed cursor only forward', async () => {
    const { feeds } = await open()
    expect(await feeds.getFeedCursor(FEED)).toBeUndefined()
    await feeds.setFeedCursor(FEED, PEER, 20, 1)
    await feeds.setFeedCursor(FEED, PEER, 10, 2)
    expect(await feeds.getFeedCursor(FEED)).toBe(20)
    await feeds.setFeedCursor(FEED, PEER, 30, 3)
    expect(await feeds.getFeedCursor(FEED)).toBe(30)
    expect(await feeds.getFeedCursor('https://other.example/auth/revocations')).toBeUndefined()
  })

  it('records a page of peer revocations once, keyed by issuer, and sweeps them at expiry', async () => {
    const { feeds, auth } = await open()
    const page = [
      { issuer: PEER, jti: 'p1', subject: 'did:key:z6Mka', revokedAtMs: 10, expiresAtMs: 1000 },
      { issuer: PEER, jti: 'p2', subject: '', revokedAtMs: 11, expiresAtMs: 5000 },
    ]
    expect(await feeds.applyPeerRevocations(page)).toBe(2)
    expect(await feeds.applyPeerRevocations(page)).toBe(0)
    expect(await feeds.applyPeerRevocations([])).toBe(0)
    expect(await auth.isTokenRevoked('p1', PEER)).toBe(true)
    // Another issuer's token with the same jti is not touched.
    expect(await auth.isTokenRevoked('p1', US)).toBe(false)
    expect(await auth.sweepExpired(2000)).toBe(1)
    expect(await auth.isTokenRevoked('p1', PEER)).toBe(false)
    expect(await auth.isTokenRevoked('p2', PEER)).toBe(true)
  })

  it('lists our own revocations after a cursor and up to a bound, in (revoked_at_ms, jti) order', async () => {
    const { feeds, auth } = await open()
    for (const [jti, at] of [
      ['b', 5],
      ['a', 5],
      ['c', 7],
      ['d', 9],
    ] as const) {
      await auth.revokeToken({ jti, subject: 's', reason: 'user_logout', revokedAtMs: at, expiresAtMs: 100 })
    }
    const jtis = (rows: { jti: string }[]) => rows.map((r) => r.jti)
    expect(jtis(await feeds.listOwnRevocations(0, 100, 10))).toEqual(['a', 'b', 'c', 'd'])
    expect(jtis(await feeds.listOwnRevocations(5, 8, 10))).toEqual(['c'])
    expect(jtis(await feeds.listOwnRevocations(0, 100, 2))).toEqual(['a', 'b'])
    expect(jtis(await feeds.listOwnRevocationsAt(5, 10))).toEqual(['a', 'b'])
    expect(await feeds.listOwnRevocations(9, 100, 10)).toEqual([])
  })
})
