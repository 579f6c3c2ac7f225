/**
 * Persistence of the revocation feeds (migration 0006; product spec "Authentication" 5): the page of our own
 * revocations a peer reads from GET /auth/revocations, and for each `[[auth.revocation_feeds]]` entry its
 * durable unix-ms cursor and the revocations learnt from it. Every write is a single autocommit statement (a
 * whole page is one multi-row insert), so nothing here holds a transaction open beside the SQLite publish
 * writer. Idempotent throughout: re-applying a page after a crash changes nothing.
 */
import { createFeedCursorStore } from '@acdp/service-kit'
import type { Database } from '@acdp/storage'
import type { Kysely } from 'kysely'
import type { RegistryDatabase } from '../store/schema.js'

/** One of our revocations as the feed lists it. */
export interface OwnRevocationRow {
  jti: string
  subject: string
  revokedAtMs: number
  expiresAtMs: number
}

/** A revocation learnt from a peer's feed. */
export interface PeerRevocation {
  issuer: string
  jti: string
  subject: string
  revokedAtMs: number
  expiresAtMs: number
}

export interface RevocationFeedStore {
  /**
   * Our revocations with `sinceMs < revoked_at_ms <= untilMs`, ordered by (revoked_at_ms, jti), at most `limit`.
   */
  listOwnRevocations(sinceMs: number, untilMs: number, limit: number): Promise<OwnRevocationRow[]>
  /** Our revocations at exactly `atMs`, ordered by jti, at most `limit` (a page never splits a millisecond). */
  listOwnRevocationsAt(atMs: number, limit: number): Promise<OwnRevocationRow[]>
  /** The feed's cursor (unix ms), or undefined before its first page applied. */
  getFeedCursor(feedUrl: string): Promise<number | undefined>
  /** Records the peer revocations (one statement; already known ones are kept); resolves to how many were new. */
  applyPeerRevocations(revocations: readonly PeerRevocation[]): Promise<number>
  /** Moves the feed's cursor; only ever forward (a stale writer cannot move it back). */
  setFeedCursor(feedUrl: string, issuer: string, cursorMs: number, nowMs: number): Promise<void>
}

export function createRevocationFeedStore(database: Database<RegistryDatabase>): RevocationFeedStore {
  const db: Kysely<RegistryDatabase> = database.db
  const cursors = createFeedCursorStore(db, {
    table: 'auth_revocation_feed_cursor',
    keyColumn: 'feed_url',
    updatedAtColumn: 'updated_at_ms',
    forwardOnly: true,
  })
  const toRow = (row: { jti: string; subject: string; revoked_at_ms: number; expires_at_ms: number }) => ({
    jti: row.jti,
    subject: row.subject,
    revokedAtMs: Number(row.revoked_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
  })
  return {
    async listOwnRevocations(sinceMs, untilMs, limit) {
      const rows = await db
        .selectFrom('auth_revoked_token')
        .select(['jti', 'subject', 'revoked_at_ms', 'expires_at_ms'])
        .where('revoked_at_ms', '>', sinceMs)
        .where('revoked_at_ms', '<=', untilMs)
        .orderBy('revoked_at_ms')
        .orderBy('jti')
        .limit(limit)
        .execute()
      return rows.map(toRow)
    },

    async listOwnRevocationsAt(atMs, limit) {
      const rows = await db
        .selectFrom('auth_revoked_token')
        .select(['jti', 'subject', 'revoked_at_ms', 'expires_at_ms'])
        .where('revoked_at_ms', '=', atMs)
        .orderBy('jti')
        .limit(limit)
        .execute()
      return rows.map(toRow)
    },

    getFeedCursor: (feedUrl) => cursors.read(feedUrl),

    async applyPeerRevocations(revocations) {
      if (revocations.length === 0) return 0
      const result = await db
        .insertInto('auth_peer_revoked_token')
        .values(
          revocations.map((r) => ({
            issuer: r.issuer,
            jti: r.jti,
            subject: r.subject,
            revoked_at_ms: r.revokedAtMs,
            expires_at_ms: r.expiresAtMs,
          })),
        )
        .onConflict((oc) => oc.columns(['issuer', 'jti']).doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0)
    },

    setFeedCursor: (feedUrl, issuer, cursorMs, nowMs) => cursors.write(feedUrl, cursorMs, nowMs, { issuer }),
  }
}
