/**
 * 0008: the visibility facts of a leaf's context on the leaf row. `GET /log/proof?leaf_index=` echoes the leaf
 * only to a reader of the same tenant who may retrieve its context (log/transparency-log.ts); reading those
 * facts through a join cost every inclusion proof two random descents into `context` (its ctx_id key, then the
 * row) and one into `log_node`: 19–24 µs per lookup at 1,000,000 leaves with a context row each, 7–8 µs from the
 * leaf row alone (bench/log-proof-parts.ts; docs/performance/journal.md, session 5).
 *
 * - `log_leaf.tenant_id`, `visibility`, `agent_id`, `audience_json`: copies of the context's columns, written by
 *   the same publish transaction as the leaf. A context's tenant, visibility, agent and audience never change
 *   after publish and contexts are never deleted, so the copies cannot go stale.
 * - Nullable: NULL means "no context row" (a leaf written without one, as the benchmarks' bulk loader does),
 *   answered like the inner join answered it before, i.e. the leaf is never echoed.
 * - Existing leaves are backfilled from `context` in this migration (one pass over the log: 4.2 s for 1,000,000
 *   leaves on SQLite on the benchmark machine, bench/log-proof-parts.ts).
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'

export const migration0008RegistryLogLeafFacts: Migration = {
  name: '0008_registry_log_leaf_facts',
  async up(db) {
    for (const column of ['tenant_id', 'visibility', 'agent_id', 'audience_json']) {
      await db.schema.alterTable('log_leaf').addColumn(column, 'text').execute()
    }
    // UPDATE … FROM: SQLite ≥ 3.33 and PostgreSQL both take this form (target columns unqualified in SET).
    await sql`update log_leaf set tenant_id = c.tenant_id, visibility = c.visibility, agent_id = c.agent_id,
      audience_json = c.audience_json from context as c where c.ctx_id = log_leaf.ctx_id`.execute(db)
  },
}
