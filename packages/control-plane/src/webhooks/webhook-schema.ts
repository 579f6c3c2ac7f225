/**
 * Table shapes of the outbound webhook feature (migration 0100). Same portable conventions as the core schema:
 * epoch-millisecond integers, 0/1 booleans, JSON as text.
 */

/** One outbound subscription. */
export type WebhooksTable = {
  /** UUID v4, minted by the service. */
  id: string
  tenant_id: string
  url: string
  /** JSON array of event types; `[]` means every type. */
  events: string
  /** The subscription secret, sealed (core/secret-box.ts); never plaintext. */
  secret_sealed: string
  active: number
  created_at: number
  updated_at: number
}

/** Delivery status: `pending` (due or waiting for its next attempt), `delivered`, `failed` (gave up). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/** The durable outbox: one row per (subscription, event). */
export type WebhookDeliveriesTable = {
  /** Delivery id (UUID v4), sent as X-ACDP-Event-Id and stable across retries. */
  id: string
  webhook_id: string
  tenant_id: string
  /** `context_events.id` of the event delivered. */
  event_seq: number
  event_type: string
  run_id: string | null
  /** The exact request body; signed afresh on every attempt (the timestamp changes). */
  body: string
  status: DeliveryStatus
  attempts: number
  next_attempt_at: number
  /** Claim token of the worker holding the row, or null. Only its holder may settle the row. */
  lease_owner: string | null
  /** The claim expires at this time; afterwards another worker may claim the row. */
  lease_until: number | null
  last_attempt_at: number | null
  response_status: number | null
  error_message: string | null
  created_at: number
  delivered_at: number | null
}

/** The tables of this feature, for `Kysely<WebhookTables>` and `tx.withTables<WebhookTables>()`. */
export type WebhookTables = {
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
}
