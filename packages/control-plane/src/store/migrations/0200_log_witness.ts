/**
 * 0200: the transparency-log witness (RFC-ACDP-0012 §9, RFC-ACDP-0015 §7).
 *
 * - `log_witness_cursors`: one row per witnessed registry: the retained head (never moved by a failed check),
 *   health counters, the poll schedule and the poll lease. A lease is taken and released by single statements
 *   (no session-level advisory lock), so it cannot leak across pooled connections, and an instance that dies
 *   mid-poll leaves a lease that simply expires.
 * - `log_witness_checkpoints`: the verified heads kept as evidence, one row per (tenant, log, size, root), with the
 *   quorum verdict of the latest observation.
 * - `log_witness_alerts`: the alert worklist, written in the same transaction as the detection. A partial unique
 *   index keeps at most one active (uncleared) alert per registry.
 * - `log_witness_cosignatures`: our own cosignatures, verbatim, one per observation (pruned per log).
 */
import type { Migration } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'

export const migration0200LogWitness: Migration = {
  name: '0200_log_witness',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    const serial = kind === 'postgres' ? 'bigserial' : 'integer'
    // An auto-incrementing primary key on both dialects.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- column builder type differs per call site
    const serialKey = (c: any) => (kind === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())

    await db.schema
      .createTable('log_witness_cursors')
      .addColumn('authority', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('log_id', 'text')
      .addColumn('tree_size', int)
      .addColumn('root_hash', 'text')
      .addColumn('head_checkpoint', 'text')
      .addColumn('last_success_at', int)
      .addColumn('last_attempt_at', int)
      .addColumn('consecutive_failures', int, (c) => c.notNull().defaultTo(0))
      .addColumn('last_failure', 'text')
      .addColumn('next_poll_at', int, (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', int, (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', int, (c) => c.notNull())
      .addColumn('updated_at', int, (c) => c.notNull())
      .execute()
    await db.schema.createIndex('lwc_due_idx').on('log_witness_cursors').columns(['next_poll_at']).execute()
    await db.schema
      .createIndex('lwc_tenant_idx')
      .on('log_witness_cursors')
      .columns(['tenant_id', 'authority'])
      .execute()

    await db.schema
      .createTable('log_witness_checkpoints')
      .addColumn('id', serial, serialKey)
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('authority', 'text', (c) => c.notNull())
      .addColumn('log_id', 'text', (c) => c.notNull())
      .addColumn('tree_size', int, (c) => c.notNull())
      .addColumn('root_hash', 'text', (c) => c.notNull())
      .addColumn('checkpoint_timestamp', int, (c) => c.notNull())
      .addColumn('raw_checkpoint', 'text', (c) => c.notNull())
      .addColumn('consistency_ok', int)
      .addColumn('witnessed_count', int)
      .addColumn('meets_quorum', int)
      .addColumn('first_witnessed_at', int, (c) => c.notNull())
      .addColumn('last_witnessed_at', int, (c) => c.notNull())
      .addUniqueConstraint('log_witness_checkpoints_tenant_head_key', ['tenant_id', 'log_id', 'tree_size', 'root_hash'])
      .execute()
    await db.schema
      .createIndex('lwcp_tenant_authority_idx')
      .on('log_witness_checkpoints')
      .columns(['tenant_id', 'authority', 'id'])
      .execute()

    await db.schema
      .createTable('log_witness_alerts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('authority', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('raised_at', int, (c) => c.notNull())
      .addColumn('last_seen_at', int, (c) => c.notNull())
      .addColumn('acknowledged_at', int)
      .addColumn('acknowledged_by', 'text')
      .addColumn('cleared_at', int)
      .addColumn('event_seq', int)
      .execute()
    await db.schema
      .createIndex('lwa_one_active_per_registry')
      .on('log_witness_alerts')
      .column('authority')
      .unique()
      .where(sql.ref('cleared_at'), 'is', null)
      .execute()
    await db.schema
      .createIndex('lwa_tenant_raised_idx')
      .on('log_witness_alerts')
      .columns(['tenant_id', 'raised_at'])
      .execute()

    await db.schema
      .createTable('log_witness_cosignatures')
      .addColumn('id', serial, serialKey)
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('authority', 'text', (c) => c.notNull())
      .addColumn('log_id', 'text', (c) => c.notNull())
      .addColumn('tree_size', int, (c) => c.notNull())
      .addColumn('root_hash', 'text', (c) => c.notNull())
      .addColumn('witnessed_at', int, (c) => c.notNull())
      .addColumn('cosignature', 'text', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('lwcs_log_idx').on('log_witness_cosignatures').columns(['log_id', 'id']).execute()
  },
}
