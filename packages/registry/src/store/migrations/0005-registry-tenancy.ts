/**
 * 0005: tenancy (product spec "Authentication" 6). Every context belongs to one tenant; every context query names
 * it in SQL, so a row of another tenant is never read, counted or used as a cursor anchor. Contexts stored before
 * this migration belong to the reserved tenant `default` (the tenant of every request that names none).
 *
 * - `context.tenant_id`: constant default, so adding it is O(1) on both dialects. Lookups by ctx_id and lineage
 *   keep their indexes and add the tenant as a filter on the row they read.
 * - `context_tenant_created (tenant_id, created_at_ms, ctx_id)`: search and the admin listing walk one tenant's
 *   contexts in result order without visiting other tenants' rows. It replaces `context_created
 *   (created_at_ms, ctx_id)`, which no query uses any more (each names its tenant): an extra B-tree on every
 *   publish cost ≈ 10 % registry CPU per publish in an A/B (docs/performance/journal.md).
 * - `idempotency_record` is keyed by (tenant_id, agent_id, idempotency_key): an agent's key in one tenant neither
 *   replays nor blocks a publish in another. A primary key cannot be altered in SQLite, so the table is rebuilt
 *   (its rows live at most `limits.idempotency_key_ttl_seconds`, a few days); both dialects take the same path.
 *
 * The side tables (audience, tags, derived_from) and the transparency log stay keyed by ctx_id: they are read
 * only through a context row, which carries the tenant.
 */
import type { Migration } from '@acdp/storage'
import { sql } from 'kysely'

export const migration0005RegistryTenancy: Migration = {
  name: '0005_registry_tenancy',
  async up(db) {
    await db.schema
      .alterTable('context')
      .addColumn('tenant_id', 'text', (c) => c.notNull().defaultTo('default'))
      .execute()
    await db.schema
      .createIndex('context_tenant_created')
      .on('context')
      .columns(['tenant_id', 'created_at_ms', 'ctx_id'])
      .execute()
    // Every created-order query names a tenant now: the new index replaces the old one, so a publish still writes
    // the same number of B-trees.
    await db.schema.dropIndex('context_created').execute()

    await db.schema.dropIndex('idempotency_record_expires').execute()
    await db.schema.alterTable('idempotency_record').renameTo('idempotency_record_0004').execute()
    await db.schema
      .createTable('idempotency_record')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('signature_algorithm', 'text', (c) => c.notNull())
      .addColumn('signature_key_id', 'text', (c) => c.notNull())
      .addColumn('signature_value', 'text', (c) => c.notNull())
      .addColumn('ctx_id', 'text', (c) => c.notNull())
      .addColumn('response_json', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_record_tenant_pk', ['tenant_id', 'agent_id', 'idempotency_key'])
      .execute()
    await sql`
      insert into idempotency_record (tenant_id, agent_id, idempotency_key, content_hash, signature_algorithm,
        signature_key_id, signature_value, ctx_id, response_json, created_at_ms, expires_at_ms)
      select 'default', agent_id, idempotency_key, content_hash, signature_algorithm, signature_key_id,
        signature_value, ctx_id, response_json, created_at_ms, expires_at_ms
      from idempotency_record_0004`.execute(db)
    await db.schema.dropTable('idempotency_record_0004').execute()
    // The sweep and /admin/status read records by expiry.
    await db.schema.createIndex('idempotency_record_expires').on('idempotency_record').column('expires_at_ms').execute()
  },
}
