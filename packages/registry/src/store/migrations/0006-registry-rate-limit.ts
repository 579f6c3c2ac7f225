/**
 * 0006: state shared by instances on one database for the rate limits and the revocation feeds.
 *
 * - `rate_limit_bucket`: one token bucket per (scope, key) for `rate_limit.backend = "postgres"`; each check is
 *   one atomic upsert on the database clock (rate-limit/rate-limit-store.ts). UNLOGGED on PostgreSQL: buckets are
 *   soft state, a crash that empties them only gives everyone a fresh budget, and skipping the WAL keeps the
 *   per-request write cheap. Created on SQLite too (unused there) so both dialects share one schema.
 * - `auth_revocation_feed_cursor`: per `[[auth.revocation_feeds]]` entry (keyed by its feed_url), the unix-ms
 *   cursor of the last page applied whole.
 * - `auth_peer_revoked_token`: revocations learnt from peers' feeds, keyed by (issuer, jti) so one issuer can
 *   never revoke another's tokens; swept at their expiry like our own.
 * - `auth_revoked_token_revoked_at`: our own feed (GET /auth/revocations) pages by revoked_at_ms.
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'

export const migration0006RegistryRateLimit: Migration = {
  name: '0006_registry_rate_limit',
  async up(db, kind) {
    let buckets = db.schema
      .createTable('rate_limit_bucket')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('bucket_key', 'text', (c) => c.notNull())
      .addColumn('tokens', 'double precision', (c) => c.notNull())
      .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('admitted', 'boolean', (c) => c.notNull())
      .addPrimaryKeyConstraint('rate_limit_bucket_pk', ['scope', 'bucket_key'])
    buckets = kind === 'postgres' ? buckets.modifyFront(sql`unlogged`) : buckets.modifyEnd(sql`without rowid`)
    await buckets.execute()
    await db.schema.createIndex('rate_limit_bucket_updated').on('rate_limit_bucket').column('updated_at_ms').execute()

    let cursors = db.schema
      .createTable('auth_revocation_feed_cursor')
      .addColumn('feed_url', 'text', (c) => c.primaryKey())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('cursor_ms', 'bigint', (c) => c.notNull())
      .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    if (kind === 'sqlite') cursors = cursors.modifyEnd(sql`without rowid`)
    await cursors.execute()

    let peers = db.schema
      .createTable('auth_peer_revoked_token')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('jti', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('revoked_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('auth_peer_revoked_token_pk', ['issuer', 'jti'])
    if (kind === 'sqlite') peers = peers.modifyEnd(sql`without rowid`)
    await peers.execute()
    await db.schema
      .createIndex('auth_peer_revoked_token_expires')
      .on('auth_peer_revoked_token')
      .column('expires_at_ms')
      .execute()

    await db.schema
      .createIndex('auth_revoked_token_revoked_at')
      .on('auth_revoked_token')
      .columns(['revoked_at_ms', 'jti'])
      .execute()
  },
}
