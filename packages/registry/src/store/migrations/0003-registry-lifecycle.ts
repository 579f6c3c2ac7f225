/**
 * 0003: lifecycle state (RFC-ACDP-0013) on the `context` row. See ../schema.ts for the meaning of each column.
 *
 * The events live on the row they belong to, so one conditional UPDATE appends an event and flips the retraction
 * flag atomically on both dialects (no multi-statement transaction, which the SQLite group-commit writer forbids
 * outside itself). `lifecycle_event_count` is the compare-and-swap guard of that UPDATE.
 *
 * The partial index holds only contexts that ever had a lifecycle event: the startup check "does the store hold
 * lifecycle state?" reads one entry of it instead of scanning every context, and it costs nothing on publish.
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'

export const migration0003RegistryLifecycle: Migration = {
  name: '0003_registry_lifecycle',
  async up(db) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time. Constant defaults keep it O(1).
    await db.schema.alterTable('context').addColumn('lifecycle_events_json', 'text').execute()
    await db.schema
      .alterTable('context')
      .addColumn('lifecycle_event_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .alterTable('context')
      .addColumn('retracted', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .createIndex('context_lifecycle')
      .on('context')
      .column('ctx_id')
      .where(sql<boolean>`lifecycle_event_count > 0`)
      .execute()
  },
}
