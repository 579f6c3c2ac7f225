/**
 * 0800: the receipt audit (RFC-ACDP-0010 §8 run by the control plane over the publications it ingested).
 *
 * - `receipt_audits`: one verdict per audited `context_published` event (keyed by its store id), tenant-scoped,
 *   with the run it belongs to so a run's trust summary is one grouped read. `error` verdicts carry a retry time
 *   and an attempt count; every other verdict is final.
 * - `receipt_audit_cursor`: one row, the sweep's position in `context_events` and its lease. The lease is taken
 *   and released by single statements, so several instances on one PostgreSQL run one sweep at a time and an
 *   instance that dies leaves a lease that simply expires.
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0800ReceiptAudit: Migration = {
  name: '0800_receipt_audit',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema
      .createTable('receipt_audits')
      .addColumn('event_seq', int, (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('ctx_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text')
      .addColumn('registry_authority', 'text', (c) => c.notNull())
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('discrepancies', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('detail', 'text')
      .addColumn('attempts', int, (c) => c.notNull().defaultTo(1))
      .addColumn('audited_at', int, (c) => c.notNull())
      .addColumn('retry_at', int)
      .addColumn('acknowledged_at', int)
      .addColumn('acknowledged_by', 'text')
      .execute()
    await db.schema
      .createIndex('ra_tenant_run_idx')
      .on('receipt_audits')
      .columns(['tenant_id', 'run_id', 'verdict'])
      .execute()
    await db.schema
      .createIndex('ra_tenant_verdict_idx')
      .on('receipt_audits')
      .columns(['tenant_id', 'verdict', 'event_seq'])
      .execute()
    await db.schema.createIndex('ra_retry_idx').on('receipt_audits').columns(['retry_at']).execute()

    await db.schema
      .createTable('receipt_audit_cursor')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('last_event_seq', int, (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', int, (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', int, (c) => c.notNull())
      .execute()
  },
}
