/**
 * 0500: the index GET /runs pages along, (tenant_id, started_at DESC, run_id) — exactly the listing's order
 * (newest first, run id as the tie-breaker).
 *
 * Why: the 0400 index (tenant_id, started_at, scenario_id) orders a tenant's runs by start time but not by run id
 * within one start time, so every page sorted the whole tenant's runs in a temporary B-tree before applying
 * LIMIT/OFFSET (SQLite's plan said "USE TEMP B-TREE FOR LAST TERM OF ORDER BY"); runs started by events of one
 * burst often share a millisecond. With this index a page reads its rows in index order and stops after
 * offset + limit, and the page's total (count of the tenant's runs) is answered from the same index without
 * touching the table. Ingest's run upserts change counters and `updated_at`, never these columns, so the index is
 * written when a run is created (or its start time moved by a start notification), not on every event.
 *
 * On PostgreSQL the build blocks writes to `runs` while it runs (one row per run: seconds for large deployments).
 */
import type { Migration } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'

export const migration0500ListIndexes: Migration = {
  name: '0500_list_indexes',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>) {
    await db.schema
      .createIndex('runs_tenant_listing_idx')
      .on('runs')
      .expression(sql`tenant_id, started_at DESC, run_id`)
      .execute()
  },
}
