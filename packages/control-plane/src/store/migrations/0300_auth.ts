/**
 * 0300: token authentication, capabilities and shared quota counters (product
 * spec "Authentication").
 *
 * - `auth_challenges`: one row per outstanding nonce; /auth/token consumes it with one DELETE … RETURNING, so a
 *   nonce is single-use across every instance sharing the database.
 * - `revoked_tokens`: keyed by (iss, jti) (reference #232). `revoked_at_ms` orders the feed and drives each
 *   instance's incremental reload; rows are purged once their token expired.
 * - `revocation_cursors`: the durable cursor of each polled peer feed.
 * - `agent_capabilities`: keyed by (tenant, agent, capability URI); `declared_at` keeps the text that was signed.
 * - `quota_counters`: fixed-window counters shared by instances (QUOTA_STORE=database).
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0300Auth: Migration = {
  name: '0300_auth',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'

    await db.schema
      .createTable('auth_challenges')
      .addColumn('nonce', 'text', (c) => c.primaryKey())
      .addColumn('agent_did', 'text', (c) => c.notNull())
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addColumn('expires_at', int, (c) => c.notNull())
      .addColumn('created_at', int, (c) => c.notNull())
      .execute()
    await db.schema.createIndex('auth_challenges_expires_idx').on('auth_challenges').column('expires_at').execute()

    await db.schema
      .createTable('revoked_tokens')
      .addColumn('iss', 'text', (c) => c.notNull())
      .addColumn('jti', 'text', (c) => c.notNull())
      .addColumn('sub', 'text', (c) => c.notNull())
      .addColumn('exp', int, (c) => c.notNull())
      .addColumn('revoked_at_ms', int, (c) => c.notNull())
      .addColumn('revoked_by', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('revoked_tokens_pkey', ['iss', 'jti'])
      .execute()
    await db.schema
      .createIndex('revoked_tokens_revoked_at_idx')
      .on('revoked_tokens')
      .columns(['revoked_at_ms', 'iss', 'jti'])
      .execute()
    await db.schema.createIndex('revoked_tokens_exp_idx').on('revoked_tokens').column('exp').execute()

    await db.schema
      .createTable('revocation_cursors')
      .addColumn('issuer', 'text', (c) => c.primaryKey())
      .addColumn('cursor_ms', int, (c) => c.notNull())
      .addColumn('updated_at', int, (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('agent_capabilities')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('agent_did', 'text', (c) => c.notNull())
      .addColumn('capability_uri', 'text', (c) => c.notNull())
      .addColumn('declared_at', 'text', (c) => c.notNull())
      .addColumn('signed_by', 'text', (c) => c.notNull())
      .addColumn('algorithm', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('created_at', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('agent_capabilities_pkey', ['tenant_id', 'agent_did', 'capability_uri'])
      .execute()
    await db.schema
      .createIndex('agent_capabilities_tenant_uri_idx')
      .on('agent_capabilities')
      .columns(['tenant_id', 'capability_uri'])
      .execute()

    await db.schema
      .createTable('quota_counters')
      .addColumn('bucket', 'text', (c) => c.notNull())
      .addColumn('window_start', int, (c) => c.notNull())
      .addColumn('count', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('quota_counters_pkey', ['bucket', 'window_start'])
      .execute()
    await db.schema.createIndex('quota_counters_window_idx').on('quota_counters').column('window_start').execute()
  },
}
