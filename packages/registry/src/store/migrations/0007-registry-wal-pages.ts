/**
 * 0007: fewer B-tree pages written per publish (docs/performance/journal.md, "WAL pages per publish (session 5)"). Each
 * B-tree page a commit dirties is one more page in SQLite's WAL; at one publish per transaction a logged
 * publish wrote ≈ 21.6 pages (≈ 87 KiB), which paces the WAL checkpoints.
 *
 * - `log_node` is keyed by the node's post-order position (store/log-node-position.ts) instead of
 *   `(level, idx)`. The nodes one append completes get consecutive keys at the end of the tree, so they share a
 *   page; under `(level, idx)` each level's newest node sat on that level's own tail page (≈ 2.7 pages per
 *   append). Proofs still read O(log n) rows by primary key: the reader computes each address's position.
 *   Existing rows are converted by one INSERT … SELECT (the position is pure bit arithmetic on level and idx).
 * - SQLite keeps no `log_state` row: its only appender, the group-commit writer, holds the tree size in memory
 *   and derives it at start from the leaves (`max(leaf_index) + 1`, one rowid-index probe), so the size no
 *   longer costs a page per commit. PostgreSQL keeps the row: its lock is what serializes concurrent appenders.
 * - `context_expires` holds only contexts that have an `expires_at`: most publishes have none and now add no
 *   entry. Every query on the column compares it (`<`, `>`), which implies IS NOT NULL, so both planners still
 *   use the partial index for those filters.
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'
import { logNodePositionSql } from '../log-node-position.js'

export const migration0007RegistryWalPages: Migration = {
  name: '0007_registry_wal_pages',
  async up(db, kind) {
    const bytes = kind === 'sqlite' ? sql`blob` : sql`bytea`
    // SQLite: INTEGER PRIMARY KEY is the rowid itself (one B-tree, no separate key index).
    const position = kind === 'sqlite' ? 'integer' : 'bigint'
    await db.schema.alterTable('log_node').renameTo('log_node_0002').execute()
    await db.schema
      .createTable('log_node')
      .addColumn('pos', position, (c) => c.primaryKey())
      .addColumn('hash', bytes, (c) => c.notNull())
      .execute()
    await sql`insert into log_node (pos, hash)
      select ${sql.raw(logNodePositionSql('level', 'idx'))}, hash from log_node_0002 order by 1`.execute(db)
    await db.schema.dropTable('log_node_0002').execute()

    if (kind === 'sqlite') await db.schema.dropTable('log_state').execute()

    await db.schema.dropIndex('context_expires').execute()
    await db.schema
      .createIndex('context_expires')
      .on('context')
      .column('expires_at_ms')
      .where('expires_at_ms', 'is not', null)
      .execute()
  },
}
