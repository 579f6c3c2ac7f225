/**
 * 0870: the log leaf of each held publication, as the log reconciliation found it. `log_leaf_matches` holds, per
 * (tenant, registry, ctx_id), the log id and leaf index of the leaf whose `ctx_id` the reconciler matched to a
 * publication the control plane holds (already ingested, or recovered from that leaf). The receipt-audit summary
 * joins it with the witness's retained head to count the publications whose leaf lies under a verified checkpoint.
 *
 * Starts empty: the reconciler's cursors have already passed the leaves of the publications ingested before this
 * migration (and pre-0810 enrollments started at their log size), so only leaves read from now on are recorded;
 * re-walking the logs would re-read every context of every registry. One row per publication at most, keyed like
 * the ingest's publication key (one `context_published` per ctx_id).
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0870LogLeafMatches: Migration = {
  name: '0870_log_leaf_matches',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema
      .createTable('log_leaf_matches')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addColumn('ctx_id', 'text', (c) => c.notNull())
      .addColumn('log_id', 'text', (c) => c.notNull())
      .addColumn('leaf_index', int, (c) => c.notNull())
      .addColumn('matched_at', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('log_leaf_matches_pkey', ['tenant_id', 'registry_authority', 'ctx_id'])
      .execute()
  },
}
