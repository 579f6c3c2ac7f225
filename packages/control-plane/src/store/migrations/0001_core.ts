/**
 * 0001: the core control plane schema (product spec control-plane.md "Resources and their fields"), with
 * tenant-first composite indexes, a race-free dedup key, a run-registry set table instead of a read-modify-write
 * JSON array, and incremental dashboard rollups. Written once for both dialects; only column types differ.
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0001Core: Migration = {
  name: '0001_core',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    // Epoch milliseconds and counters need 64 bits on PostgreSQL; SQLite integers are 64-bit already.
    const int = kind === 'postgres' ? 'bigint' : 'integer'

    await db.schema
      .createTable('context_events')
      .addColumn('id', kind === 'postgres' ? 'bigserial' : 'integer', (c) =>
        kind === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('dedup_key', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text')
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('event_ts', int, (c) => c.notNull())
      .addColumn('received_at', int, (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('ctx_id', 'text')
      .addColumn('lineage_id', 'text')
      .addColumn('agent_id', 'text')
      .addColumn('context_type', 'text')
      .addColumn('visibility', 'text')
      .addColumn('version', int)
      .addColumn('derived_from', 'text', (c) => c.notNull())
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addColumn('scenario_id', 'text')
      .addColumn('key_fingerprint', 'text')
      .addColumn('receipt_present', int, (c) => c.notNull().defaultTo(0))
      .addColumn('raw_payload', 'text', (c) => c.notNull())
      .addUniqueConstraint('context_events_tenant_dedup_key', ['tenant_id', 'dedup_key'])
      .execute()
    // Keyset pagination and every filter of GET /events walk (tenant, filter, event_ts, id) in index order.
    await db.schema
      .createIndex('ce_tenant_ts_idx')
      .on('context_events')
      .columns(['tenant_id', 'event_ts', 'id'])
      .execute()
    await db.schema
      .createIndex('ce_tenant_run_ts_idx')
      .on('context_events')
      .columns(['tenant_id', 'run_id', 'event_ts', 'id'])
      .execute()
    await db.schema
      .createIndex('ce_tenant_agent_ts_idx')
      .on('context_events')
      .columns(['tenant_id', 'agent_id', 'event_ts', 'id'])
      .execute()
    await db.schema
      .createIndex('ce_tenant_registry_ts_idx')
      .on('context_events')
      .columns(['tenant_id', 'registry_authority', 'event_ts', 'id'])
      .execute()
    await db.schema
      .createIndex('ce_tenant_type_ts_idx')
      .on('context_events')
      .columns(['tenant_id', 'event_type', 'event_ts', 'id'])
      .execute()

    await db.schema
      .createTable('runs')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('scenario_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('started_at', int, (c) => c.notNull())
      .addColumn('completed_at', int)
      .addColumn('inputs', 'text')
      .addColumn('result', 'text')
      .addColumn('events_count', int, (c) => c.notNull().defaultTo(0))
      .addColumn('contexts_count', int, (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', int, (c) => c.notNull())
      .addColumn('updated_at', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('runs_pkey', ['tenant_id', 'run_id'])
      .execute()
    await db.schema.createIndex('runs_tenant_started_idx').on('runs').columns(['tenant_id', 'started_at']).execute()
    await db.schema
      .createIndex('runs_tenant_status_started_idx')
      .on('runs')
      .columns(['tenant_id', 'status', 'started_at'])
      .execute()
    await db.schema
      .createIndex('runs_tenant_scenario_started_idx')
      .on('runs')
      .columns(['tenant_id', 'scenario_id', 'started_at'])
      .execute()

    await db.schema
      .createTable('run_registries')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('run_registries_pkey', ['tenant_id', 'run_id', 'registry_authority'])
      .execute()

    await db.schema
      .createTable('lineage_edges')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('from_ctx_id', 'text', (c) => c.notNull())
      .addColumn('to_ctx_id', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('created_at', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('lineage_edges_pkey', ['tenant_id', 'from_ctx_id', 'to_ctx_id'])
      .execute()
    await db.schema.createIndex('le_tenant_run_idx').on('lineage_edges').columns(['tenant_id', 'run_id']).execute()
    await db.schema.createIndex('le_tenant_to_idx').on('lineage_edges').columns(['tenant_id', 'to_ctx_id']).execute()

    await db.schema
      .createTable('context_lifecycle')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('ctx_id', 'text', (c) => c.notNull())
      .addColumn('lineage_id', 'text')
      .addColumn('retracted', int, (c) => c.notNull())
      .addColumn('retracted_at', int)
      .addColumn('republished_at', int)
      .addColumn('actor', 'text')
      .addColumn('reason', 'text')
      .addColumn('last_event_at', int, (c) => c.notNull())
      .addColumn('updated_at', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('context_lifecycle_pkey', ['tenant_id', 'ctx_id'])
      .execute()
    await db.schema
      .createIndex('cl_tenant_retracted_idx')
      .on('context_lifecycle')
      .columns(['tenant_id', 'retracted', 'retracted_at'])
      .execute()

    await db.schema
      .createTable('agents')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('agent_did', 'text', (c) => c.notNull())
      .addColumn('first_seen', int, (c) => c.notNull())
      .addColumn('last_seen', int, (c) => c.notNull())
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addColumn('event_count', int, (c) => c.notNull().defaultTo(0))
      .addColumn('context_count', int, (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('agents_pkey', ['tenant_id', 'agent_did'])
      .execute()
    await db.schema
      .createIndex('agents_tenant_last_seen_idx')
      .on('agents')
      .columns(['tenant_id', 'last_seen'])
      .execute()

    await db.schema
      .createTable('registries')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('authority', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text')
      .addColumn('first_seen', int, (c) => c.notNull())
      .addColumn('last_seen', int, (c) => c.notNull())
      .addColumn('event_count', int, (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('registries_pkey', ['tenant_id', 'authority'])
      .execute()

    await db.schema
      .createTable('registry_enrollments')
      .addColumn('authority', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text')
      .addColumn('registry_did', 'text')
      .addColumn('webhook_secret_sealed', 'text')
      .addColumn('enabled', int, (c) => c.notNull())
      .addColumn('created_at', int, (c) => c.notNull())
      .addColumn('updated_at', int, (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('re_tenant_authority_idx')
      .on('registry_enrollments')
      .columns(['tenant_id', 'authority'])
      .execute()

    await db.schema
      .createTable('registry_activity')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('bucket_start', int, (c) => c.notNull())
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addColumn('event_count', int, (c) => c.notNull())
      .addColumn('publish_count', int, (c) => c.notNull())
      .addColumn('receipt_count', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('registry_activity_pkey', ['tenant_id', 'bucket_start', 'registry_authority'])
      .execute()

    await db.schema
      .createTable('did_method_activity')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('bucket_start', int, (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('publish_count', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('did_method_activity_pkey', ['tenant_id', 'bucket_start', 'method'])
      .execute()
  },
}
