/**
 * Webhook header names (product spec registry.md "Webhooks" rule 1, control-plane.md "Ingest request headers";
 * the spec's `X-PROTO-*` reads `X-ACDP-*`). Lowercase, as Node exposes incoming header names; HTTP header names
 * are case-insensitive on the wire.
 */
export const WEBHOOK_HEADERS = {
  /** `sha256=<hex>` of HMAC-SHA256(secret, raw body). */
  signature: 'x-acdp-signature',
  /** Unix seconds bound into {@link WEBHOOK_HEADERS.signatureTimestamped}. */
  timestamp: 'x-acdp-timestamp',
  /** `sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>." ‖ raw body). */
  signatureTimestamped: 'x-acdp-signature-timestamped',
  /** `sha256=<hex>` over the timestamp, X-Tenant-Id, X-Run-Id, X-ACDP-Event-Id and raw body (bound-hmac.ts). */
  signatureV2: 'x-acdp-signature-v2',
  /** Event type (registry: dotted `context.published`; control plane outbound: snake_case). */
  event: 'x-acdp-event',
  /** Delivery id, stable across retries; outside the plain and timestamped MACs (covered by the V2 one). */
  eventId: 'x-acdp-event-id',
} as const
