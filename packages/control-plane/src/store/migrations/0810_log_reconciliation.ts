/**
 * 0810: the log reconciliation (the registry's transparency log as the change feed of its publications).
 *
 * `log_reconcile_cursors`: per enrolled registry, the next log index to reconcile and the sweep lease. Registries
 * enrolled when this migration runs get `next_index` NULL: their cursor starts at the log size first read, since
 * their earlier publications were ingested under registry event ids the reconciliation cannot match (publications
 * ingested from now on are keyed by ctx_id). Registries enrolled later start at index 0.
 */
import type { Migration } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'

export const migration0810LogReconciliation: Migration = {
  name: '0810_log_reconciliation',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema
      .createTable('log_reconcile_cursors')
      .addColumn('authority', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('next_index', int)
      .addColumn('next_run_at', int, (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', int, (c) => c.notNull().defaultTo(0))
      .addColumn('recovered', int, (c) => c.notNull().defaultTo(0))
      .addColumn('last_failure', 'text')
      .addColumn('updated_at', int, (c) => c.notNull())
      .execute()
    await db.schema.createIndex('lrc_due_idx').on('log_reconcile_cursors').columns(['next_run_at']).execute()
    await sql`INSERT INTO log_reconcile_cursors (authority, tenant_id, next_index, updated_at)
      SELECT authority, tenant_id, NULL, 0 FROM registry_enrollments`.execute(db)
  },
}
