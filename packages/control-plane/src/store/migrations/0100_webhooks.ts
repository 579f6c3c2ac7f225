/**
 * 0100: outbound webhook subscriptions and their durable delivery outbox (product
 * spec "Outbound webhooks").
 *
 * - `webhooks.secret_sealed` holds the subscription secret sealed with AES-256-GCM (core/secret-box.ts),
 *   never plaintext.
 * - `webhook_deliveries` is the outbox: one row per (subscription, event), written in the ingest transaction, so
 *   an acknowledged event is never lost to a crash. `(webhook_id, event_seq)` is unique: enqueueing the same event
 *   twice is a no-op.
 * - Claiming uses `lease_owner`/`lease_until`: a worker takes a batch of due rows (PostgreSQL: `FOR UPDATE SKIP
 *   LOCKED`) and stamps them with its claim token; only the holder of the token may settle the row, and a row
 *   whose lease expired (the worker died) becomes claimable again.
 * - The partial index on pending rows keeps the sweep's "what is due" query independent of delivered history.
 */
import type { Migration } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'

export const migration0100Webhooks: Migration = {
  name: '0100_webhooks',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'

    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('active', int, (c) => c.notNull())
      .addColumn('created_at', int, (c) => c.notNull())
      .addColumn('updated_at', int, (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('webhooks_tenant_created_idx')
      .on('webhooks')
      .columns(['tenant_id', 'created_at'])
      .execute()

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('event_seq', int, (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', int, (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', int, (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', int)
      .addColumn('last_attempt_at', int)
      .addColumn('response_status', int)
      .addColumn('error_message', 'text')
      .addColumn('created_at', int, (c) => c.notNull())
      .addColumn('delivered_at', int)
      .addUniqueConstraint('webhook_deliveries_webhook_event_key', ['webhook_id', 'event_seq'])
      .execute()
    await db.schema
      .createIndex('wd_pending_due_idx')
      .on('webhook_deliveries')
      .columns(['next_attempt_at'])
      .where(sql.ref('status'), '=', 'pending')
      .execute()
    await db.schema
      .createIndex('wd_tenant_webhook_created_idx')
      .on('webhook_deliveries')
      .columns(['tenant_id', 'webhook_id', 'created_at'])
      .execute()
    await db.schema
      .createIndex('wd_delivered_at_idx')
      .on('webhook_deliveries')
      .columns(['delivered_at'])
      .where(sql.ref('status'), '=', 'delivered')
      .execute()
  },
}
