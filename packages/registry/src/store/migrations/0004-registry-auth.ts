/**
 * 0004: bearer authentication state shared by every instance on one database (product spec "Authentication").
 *
 * - `auth_challenge`: one row per outstanding challenge nonce. Redeeming deletes the row (DELETE … RETURNING),
 *   so a nonce is single-use even when two instances race on it; expired rows are swept.
 * - `auth_revoked_token`: one row per revoked token id (`jti`), kept until the token would have expired anyway.
 *
 * Both are keyed by random identifiers, so SQLite clusters them on the key (`without rowid`).
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'

export const migration0004RegistryAuth: Migration = {
  name: '0004_registry_auth',
  async up(db, kind) {
    let challenges = db.schema
      .createTable('auth_challenge')
      .addColumn('nonce', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    if (kind === 'sqlite') challenges = challenges.modifyEnd(sql`without rowid`)
    await challenges.execute()
    await db.schema.createIndex('auth_challenge_expires').on('auth_challenge').column('expires_at_ms').execute()

    let revoked = db.schema
      .createTable('auth_revoked_token')
      .addColumn('jti', 'text', (c) => c.primaryKey())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('revoked_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    if (kind === 'sqlite') revoked = revoked.modifyEnd(sql`without rowid`)
    await revoked.execute()
    await db.schema.createIndex('auth_revoked_token_expires').on('auth_revoked_token').column('expires_at_ms').execute()
  },
}
