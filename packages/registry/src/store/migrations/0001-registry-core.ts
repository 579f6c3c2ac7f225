/**
 * 0001: contexts, their search/visibility side tables, and idempotency records. See ../schema.ts for the
 * meaning of every column. Portable DDL: text, integer and bigint only.
 *
 * Every B-tree is written on every publish, so the schema keeps only the ones a query or a constraint needs
 * (measured in docs/performance/registry.md; how it works: docs/performance/journal.md "Registry"):
 * - the side tables are clustered on their (ctx_id, value) primary key (SQLite `WITHOUT ROWID`): one B-tree
 *   each instead of a rowid table plus a primary-key index, and all rows of one context land on one page. The
 *   search's `EXISTS` probes bind both columns; no query looks rows up by value alone, so there is no value index;
 * - `idempotency_record` stays a rowid table: its rows are large (the stored response and signature), and
 *   clustering them on a random key splits pages so often that it writes more pages than the extra index;
 * - `UNIQUE(supersedes)` is a partial index over non-null values: first versions (most publishes) add no entry,
 *   and "at most one successor" stays a database fact on both dialects;
 * - the `context` indexes are each chosen by the search planner for one filter (agent, type, expiry range) or
 *   for the result order (created), and `(lineage_id, version)` serves lineage reads and guards linearity.
 */
import type { Migration } from '@acdp/storage'
import { type CreateTableBuilder, sql } from 'kysely'

export const migration0001RegistryCore: Migration = {
  name: '0001_registry_core',
  async up(db, kind) {
    // PostgreSQL has no rowid; its heap plus primary-key index is the only layout it offers.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table being built
    const clustered = <T extends CreateTableBuilder<any, any>>(table: T): T =>
      kind === 'sqlite' ? (table.modifyEnd(sql`without rowid`) as T) : table

    await db.schema
      .createTable('context')
      .addColumn('ctx_id', 'text', (c) => c.primaryKey())
      .addColumn('lineage_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('supersedes', 'text')
      .addColumn('superseded_by', 'text')
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('context_type', 'text', (c) => c.notNull())
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('audience_json', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('summary', 'text')
      .addColumn('description', 'text')
      .addColumn('domain', 'text')
      .addColumn('schema_uri', 'text')
      .addColumn('search_text', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint')
      .addColumn('data_period_start_ms', 'bigint')
      .addColumn('data_period_end_ms', 'bigint')
      .addColumn('body_text', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('context_supersedes')
      .on('context')
      .column('supersedes')
      .unique()
      .where('supersedes', 'is not', null)
      .execute()
    await db.schema
      .createIndex('context_lineage_version')
      .on('context')
      .columns(['lineage_id', 'version'])
      .unique()
      .execute()
    await db.schema.createIndex('context_agent').on('context').column('agent_id').execute()
    await db.schema.createIndex('context_created').on('context').columns(['created_at_ms', 'ctx_id']).execute()
    await db.schema.createIndex('context_type_idx').on('context').column('context_type').execute()
    await db.schema.createIndex('context_expires').on('context').column('expires_at_ms').execute()

    await clustered(
      db.schema
        .createTable('context_audience')
        .addColumn('ctx_id', 'text', (c) => c.notNull().references('context.ctx_id'))
        .addColumn('did', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('context_audience_pk', ['ctx_id', 'did']),
    ).execute()

    await clustered(
      db.schema
        .createTable('context_tag')
        .addColumn('ctx_id', 'text', (c) => c.notNull().references('context.ctx_id'))
        .addColumn('tag', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('context_tag_pk', ['ctx_id', 'tag']),
    ).execute()

    await clustered(
      db.schema
        .createTable('context_derived_from')
        .addColumn('ctx_id', 'text', (c) => c.notNull().references('context.ctx_id'))
        .addColumn('source_ctx_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('context_derived_from_pk', ['ctx_id', 'source_ctx_id']),
    ).execute()

    await db.schema
      .createTable('idempotency_record')
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('signature_algorithm', 'text', (c) => c.notNull())
      .addColumn('signature_key_id', 'text', (c) => c.notNull())
      .addColumn('signature_value', 'text', (c) => c.notNull())
      .addColumn('ctx_id', 'text', (c) => c.notNull())
      .addColumn('response_json', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_record_pk', ['agent_id', 'idempotency_key'])
      .execute()
    // The sweep and /admin/status read records by expiry.
    await db.schema.createIndex('idempotency_record_expires').on('idempotency_record').column('expires_at_ms').execute()
  },
}
