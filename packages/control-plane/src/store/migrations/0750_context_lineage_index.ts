/**
 * 0750: an index on context events by (tenant_id, lineage_id, version).
 *
 * Why: a run lineage node's `status` is `superseded` when a later version of its lineage was published in the
 * tenant (RFC-ACDP-0004 §4), which the lineage read asks per node; without this index each question walks all of
 * the tenant's events.
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0750ContextLineageIndex: Migration = {
  name: '0750_context_lineage_index',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>) {
    await db.schema
      .createIndex('ce_tenant_lineage_version_idx')
      .on('context_events')
      .columns(['tenant_id', 'lineage_id', 'version'])
      .execute()
  },
}
