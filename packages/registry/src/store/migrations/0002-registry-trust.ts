/**
 * 0002: the trust layer (RFC-ACDP-0010 receipts, RFC-ACDP-0012 transparency log). See ../schema.ts for every
 * column's meaning.
 *
 * - The receipt and the leaf index are two nullable columns of `context`, written by the same INSERT as the body:
 *   retrieval reads them with the row it already reads, and a publish adds no B-tree for them.
 * - `log_state` is a single row holding the tree size. Appenders increment it as the LAST step before the log
 *   rows are inserted, so on PostgreSQL its row lock serializes appends (dense, gap-free leaf indexes in commit
 *   order) without ever being held while waiting for another lock.
 * - `log_node` keeps the hash of every complete perfect subtree (docs/protocol/log.md, "Stored-node layout"):
 *   amortized two rows per leaf, and any proof or root reads O(log n) rows by primary key.
 * - `log_checkpoint` keeps every checkpoint the registry signed, the anchor of the startup self-check.
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'

export const migration0002RegistryTrust: Migration = {
  name: '0002_registry_trust',
  async up(db, kind) {
    const bytes = kind === 'sqlite' ? sql`blob` : sql`bytea`
    // SQLite: INTEGER PRIMARY KEY is the rowid itself (no separate key index); PostgreSQL needs 64 bits.
    const position = kind === 'sqlite' ? 'integer' : 'bigint'
    await db.schema.alterTable('context').addColumn('registry_receipt', 'text').execute()
    await db.schema.alterTable('context').addColumn('leaf_index', 'bigint').execute()

    await db.schema
      .createTable('log_state')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('tree_size', 'bigint', (c) => c.notNull())
      .execute()
    await db
      .insertInto('log_state' as never)
      .values({ id: 1, tree_size: 0 } as never)
      .execute()

    await db.schema
      .createTable('log_leaf')
      .addColumn('leaf_index', position, (c) => c.primaryKey())
      .addColumn('ctx_id', 'text', (c) => c.notNull())
      .addColumn('leaf_json', 'text', (c) => c.notNull())
      .execute()

    let nodes = db.schema
      .createTable('log_node')
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('idx', 'bigint', (c) => c.notNull())
      .addColumn('hash', bytes, (c) => c.notNull())
      .addPrimaryKeyConstraint('log_node_pk', ['level', 'idx'])
    // Rows are small and read by their key only: cluster them on it (one B-tree instead of two).
    if (kind === 'sqlite') nodes = nodes.modifyEnd(sql`without rowid`)
    await nodes.execute()

    await db.schema
      .createTable('log_checkpoint')
      .addColumn('tree_size', position, (c) => c.primaryKey())
      .addColumn('checkpoint_json', 'text', (c) => c.notNull())
      .execute()
  },
}
