/**
 * 0840: the lifecycle part of the log reconciliation. `lifecycle_after` is, per enrolled registry, the
 * `context_events.id` of the last publication whose served `registry_state.lifecycle_events` were re-checked
 * (0: start over from the oldest); the re-check walks the registry's publications round-robin, a page per sweep.
 * Two indexes keep each step bounded: the page of a registry's publications after an id, and the lifecycle
 * events held for one context.
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0840LifecycleReconciliation: Migration = {
  name: '0840_lifecycle_reconciliation',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema
      .alterTable('log_reconcile_cursors')
      .addColumn('lifecycle_after', int, (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .createIndex('ce_tenant_registry_type_id_idx')
      .on('context_events')
      .columns(['tenant_id', 'registry_authority', 'event_type', 'id'])
      .execute()
    await db.schema
      .createIndex('ce_tenant_ctx_type_idx')
      .on('context_events')
      .columns(['tenant_id', 'ctx_id', 'event_type'])
      .execute()
  },
}
