/**
 * Persistence of outbound webhook subscriptions and of the delivery outbox, over Kysely for both dialects.
 *
 * Claiming (the only concurrency-sensitive part): `claimDueDeliveries` stamps a batch of due pending rows with a
 * claim token in ONE statement and moves their `next_attempt_at` to the lease expiry. On PostgreSQL the candidate
 * rows are selected `FOR UPDATE SKIP LOCKED`, so concurrent workers on several instances take disjoint batches
 * without waiting on each other; on SQLite the single writer serialises the statement. Settling a row requires
 * the claim token (`lease_owner`), so a worker whose lease expired cannot overwrite the outcome of the worker that
 * re-claimed the row. A worker that dies mid-delivery leaves its rows due again at the lease expiry.
 *
 * Attempts are counted by the claim, not by the settlement: a worker that dies after sending (its outcome never
 * recorded) has still used up an attempt, so the row's next claim carries the next number and the receiver sees
 * `X-ACDP-Delivery-Attempt: 2` on the repeat rather than a second `1` (and `maxAttempts` bounds crash loops too).
 */
import type { DatabaseKind } from '@acdp/storage'
import type { Kysely } from 'kysely'
import type { StoreTransaction } from '../store/store.js'
import type { DeliveryStatus, WebhookDeliveriesTable, WebhooksTable, WebhookTables } from './webhook-schema.js'

/** A subscription as stored. */
export interface SubscriptionRecord {
  id: string
  tenantId: string
  url: string
  /** Event types; empty means every type. */
  events: string[]
  secretSealed: string
  active: boolean
  createdAt: number
  updatedAt: number
}

/** A delivery as listed to its subscriber's tenant (no body). */
export interface DeliveryRecord {
  id: string
  webhookId: string
  tenantId: string
  eventSeq: number
  eventType: string
  runId: string | null
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: number
  lastAttemptAt: number | null
  responseStatus: number | null
  errorMessage: string | null
  createdAt: number
  deliveredAt: number | null
}

/** A claimed delivery, ready to send. */
export interface ClaimedDelivery {
  id: string
  webhookId: string
  tenantId: string
  eventType: string
  body: string
  /** This attempt's 1-based number: the claim counted it (attempts interrupted by a crash included). */
  attempt: number
  /** The claim token; pass it back when settling. */
  leaseOwner: string
}

/** An outbox row to write in the ingest transaction. */
export interface NewDelivery {
  id: string
  webhookId: string
  tenantId: string
  eventSeq: number
  eventType: string
  runId: string | null
  body: string
  nextAttemptAt: number
  createdAt: number
}

/** How one attempt ended. `pending` schedules another attempt at `nextAttemptAt`. */
export type DeliveryOutcome =
  | { status: 'delivered'; responseStatus: number }
  | { status: 'pending'; nextAttemptAt: number; responseStatus: number | null; errorMessage: string }
  | { status: 'failed'; responseStatus: number | null; errorMessage: string }

/** Persistence of the webhook feature. Every method is safe to call concurrently. */
export interface WebhookStore {
  insertSubscription(record: SubscriptionRecord): Promise<void>
  listSubscriptions(tenantId: string): Promise<SubscriptionRecord[]>
  getSubscription(tenantId: string, id: string): Promise<SubscriptionRecord | undefined>
  /** Subscriptions by id across tenants (the delivery worker's lookup of claimed rows). */
  getSubscriptionsByIds(ids: readonly string[]): Promise<SubscriptionRecord[]>
  /** Applies the given members; `undefined` members are left unchanged. Undefined when absent. */
  updateSubscription(
    tenantId: string,
    id: string,
    patch: { url?: string; events?: string[]; secretSealed?: string; active?: boolean; updatedAt: number },
  ): Promise<SubscriptionRecord | undefined>
  /** Deletes the subscription and (cascade) its deliveries. False when absent. */
  deleteSubscription(tenantId: string, id: string): Promise<boolean>
  /** Active subscriptions of a tenant, read inside `tx` (the ingest transaction) when given. */
  listActiveSubscriptions(tenantId: string, tx?: StoreTransaction): Promise<SubscriptionRecord[]>
  /** Every subscription, all tenants (key rotation re-seals them). */
  listAllSubscriptions(): Promise<SubscriptionRecord[]>
  /** Replaces a sealed secret only if it still equals `expected`. */
  replaceSealedSecret(id: string, expected: string, sealed: string): Promise<boolean>

  /** Writes outbox rows inside the ingest transaction; a (subscription, event) pair already present is skipped. */
  insertDeliveries(tx: StoreTransaction, rows: readonly NewDelivery[]): Promise<void>
  /** Claims up to `limit` due pending rows for `leaseOwner` until `leaseUntil`, counting one attempt on each. */
  claimDueDeliveries(input: {
    now: number
    limit: number
    leaseOwner: string
    leaseUntil: number
  }): Promise<ClaimedDelivery[]>
  /**
   * Records the outcome of the attempt on a claimed row (the attempt itself was counted by the claim). False when
   * the claim was lost (lease expired and retaken).
   */
  settleDelivery(input: { id: string; leaseOwner: string; now: number; outcome: DeliveryOutcome }): Promise<boolean>
  /** Earliest `next_attempt_at` among pending rows, or undefined when none is pending. */
  nextDueAt(): Promise<number | undefined>
  countPending(): Promise<number>
  /** Most recent deliveries of one subscription, newest first. */
  listDeliveries(tenantId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>
  /** Makes a delivery pending and due at `now` again (manual redelivery). Undefined when absent. */
  requeueDelivery(
    tenantId: string,
    webhookId: string,
    deliveryId: string,
    now: number,
  ): Promise<DeliveryRecord | undefined>
  /** Deletes up to `limit` delivered rows delivered before `cutoff`; returns how many. */
  deleteDeliveredBefore(cutoff: number, limit: number): Promise<number>
}

/** Creates the store over `db` (the same database as the core store; migration 0100 applied). */
export function createWebhookStore(database: { db: Kysely<unknown>; kind: DatabaseKind }): WebhookStore {
  const db = database.db as unknown as Kysely<WebhookTables>
  const isPostgres = database.kind === 'postgres'

  return {
    async insertSubscription(record) {
      await db.insertInto('webhooks').values(toSubscriptionRow(record)).execute()
    },

    async listSubscriptions(tenantId) {
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute()
      return rows.map(toSubscriptionRecord)
    },

    async getSubscription(tenantId, id) {
      const row = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst()
      return row ? toSubscriptionRecord(row) : undefined
    },

    async getSubscriptionsByIds(ids) {
      if (ids.length === 0) return []
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', 'in', [...ids])
        .execute()
      return rows.map(toSubscriptionRecord)
    },

    async updateSubscription(tenantId, id, patch) {
      const set: Partial<WebhooksTable> = { updated_at: patch.updatedAt }
      if (patch.url !== undefined) set.url = patch.url
      if (patch.events !== undefined) set.events = JSON.stringify(patch.events)
      if (patch.secretSealed !== undefined) set.secret_sealed = patch.secretSealed
      if (patch.active !== undefined) set.active = patch.active ? 1 : 0
      const row = await db
        .updateTable('webhooks')
        .set(set)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
      return row ? toSubscriptionRecord(row) : undefined
    },

    async deleteSubscription(tenantId, id) {
      const result = await db
        .deleteFrom('webhooks')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },

    async listActiveSubscriptions(tenantId, tx) {
      const executor = tx ? (tx.withTables<WebhookTables>() as unknown as Kysely<WebhookTables>) : db
      const rows = await executor
        .selectFrom('webhooks')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('active', '=', 1)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute()
      return rows.map(toSubscriptionRecord)
    },

    async listAllSubscriptions() {
      return (await db.selectFrom('webhooks').selectAll().execute()).map(toSubscriptionRecord)
    },

    async replaceSealedSecret(id, expected, sealed) {
      const result = await db
        .updateTable('webhooks')
        .set({ secret_sealed: sealed })
        .where('id', '=', id)
        .where('secret_sealed', '=', expected)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async insertDeliveries(tx, rows) {
      if (rows.length === 0) return
      await tx
        .withTables<WebhookTables>()
        .insertInto('webhook_deliveries')
        .values(
          rows.map((r) => ({
            id: r.id,
            webhook_id: r.webhookId,
            tenant_id: r.tenantId,
            event_seq: r.eventSeq,
            event_type: r.eventType,
            run_id: r.runId,
            body: r.body,
            status: 'pending' as const,
            attempts: 0,
            next_attempt_at: r.nextAttemptAt,
            lease_owner: null,
            lease_until: null,
            last_attempt_at: null,
            response_status: null,
            error_message: null,
            created_at: r.createdAt,
            delivered_at: null,
          })),
        )
        .onConflict((oc) => oc.columns(['webhook_id', 'event_seq']).doNothing())
        .execute()
    },

    async claimDueDeliveries({ now, limit, leaseOwner, leaseUntil }) {
      const rows = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          lease_owner: leaseOwner,
          lease_until: leaseUntil,
          next_attempt_at: leaseUntil,
          attempts: eb('attempts', '+', 1),
        }))
        .where('id', 'in', (eb) => {
          const due = eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', now)
            .orderBy('next_attempt_at', 'asc')
            .limit(limit)
          return isPostgres ? due.forUpdate().skipLocked() : due
        })
        .where('status', '=', 'pending')
        .returning(['id', 'webhook_id', 'tenant_id', 'event_type', 'body', 'attempts', 'lease_owner'])
        .execute()
      return rows.map((r) => ({
        id: r.id,
        webhookId: r.webhook_id,
        tenantId: r.tenant_id,
        eventType: r.event_type,
        body: r.body,
        attempt: Number(r.attempts),
        leaseOwner: r.lease_owner as string,
      }))
    },

    async settleDelivery({ id, leaseOwner, now, outcome }) {
      const set: Partial<WebhookDeliveriesTable> = {
        status: outcome.status,
        lease_owner: null,
        lease_until: null,
        last_attempt_at: now,
        response_status: outcome.responseStatus,
      }
      if (outcome.status === 'delivered') {
        set.delivered_at = now
        set.error_message = null
      } else {
        set.error_message = outcome.errorMessage.slice(0, 500)
        if (outcome.status === 'pending') set.next_attempt_at = outcome.nextAttemptAt
      }
      const result = await db
        .updateTable('webhook_deliveries')
        .set(set)
        .where('id', '=', id)
        .where('lease_owner', '=', leaseOwner)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async nextDueAt() {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('due'))
        .where('status', '=', 'pending')
        .executeTakeFirst()
      return row?.due === null || row?.due === undefined ? undefined : Number(row.due)
    },

    async countPending() {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    async listDeliveries(tenantId, webhookId, limit) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .orderBy('created_at', 'desc')
        .orderBy('event_seq', 'desc')
        .limit(limit)
        .execute()
      return rows.map(toDeliveryRecord)
    },

    async requeueDelivery(tenantId, webhookId, deliveryId, now) {
      const row = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, lease_owner: null, lease_until: null, delivered_at: null })
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', deliveryId)
        .where('status', '<>', 'pending')
        .returningAll()
        .executeTakeFirst()
      if (row) return toDeliveryRecord(row)
      // Already pending: nothing to change, but the delivery exists.
      const existing = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', deliveryId)
        .executeTakeFirst()
      return existing ? toDeliveryRecord(existing) : undefined
    },

    async deleteDeliveredBefore(cutoff, limit) {
      const result = await db
        .deleteFrom('webhook_deliveries')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '=', 'delivered')
            .where('delivered_at', '<', cutoff)
            .limit(limit),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

function toSubscriptionRow(record: SubscriptionRecord): WebhooksTable {
  return {
    id: record.id,
    tenant_id: record.tenantId,
    url: record.url,
    events: JSON.stringify(record.events),
    secret_sealed: record.secretSealed,
    active: record.active ? 1 : 0,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  }
}

function toSubscriptionRecord(row: WebhooksTable): SubscriptionRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    secretSealed: row.secret_sealed,
    active: Number(row.active) === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}

function toDeliveryRecord(row: WebhookDeliveriesTable): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    tenantId: row.tenant_id,
    eventSeq: Number(row.event_seq),
    eventType: row.event_type,
    runId: row.run_id,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastAttemptAt: row.last_attempt_at === null ? null : Number(row.last_attempt_at),
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    errorMessage: row.error_message,
    createdAt: Number(row.created_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
  }
}
