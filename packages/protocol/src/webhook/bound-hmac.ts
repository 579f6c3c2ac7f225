/**
 * Header-bound webhook signature (ours, beyond the product spec's plain scheme): the timestamped MAC also covers
 * the routing headers a receiver acts on, so a captured delivery cannot be replayed into another tenant, run or
 * idempotency key by rewriting headers that the plain and timestamped forms leave outside the MAC.
 *
 *   X-ACDP-Timestamp: <unix seconds, decimal>
 *   X-ACDP-Signature-V2: sha256=<hex of HMAC-SHA256(secret, "acdp-v2\n<ts>\n<tenant>\n<run>\n<event id>\n" ‖ raw body)>
 *
 * `<tenant>`, `<run>` and `<event id>` are the exact X-Tenant-Id, X-Run-Id and X-ACDP-Event-Id values, or empty
 * when the header is absent (receivers refuse those headers empty, so absent and empty cannot be confused).
 * Newlines separate the fields because HTTP header values cannot contain one: no two header combinations give the
 * same MAC input, which a `.` separator would not guarantee (run ids may contain dots).
 */
import { computeWebhookMac, WEBHOOK_SIGNATURE_PREFIX } from './hmac.js'
import { assertTimestampSeconds, type TimestampedWebhookCheck, verifyStampedMac } from './timestamped-hmac.js'

/** The headers bound into {@link signWebhookV2}; undefined = header absent. */
export interface BoundWebhookHeaders {
  tenantId: string | undefined
  runId: string | undefined
  eventId: string | undefined
}

const DOMAIN = 'acdp-v2\n'

function macPrefix(stamp: string, bound: BoundWebhookHeaders): string {
  return `${DOMAIN}${stamp}\n${bound.tenantId ?? ''}\n${bound.runId ?? ''}\n${bound.eventId ?? ''}\n`
}

/**
 * Signs a delivery with its routing headers; returns the `X-ACDP-Signature-V2` value. The caller sends
 * `String(timestampSeconds)` as X-ACDP-Timestamp and exactly the bound header values.
 *
 * @throws TypeError when the secret is empty, `timestampSeconds` is not a non-negative safe integer, or a bound
 *   value contains a line break (it could not travel in a header, and would make the MAC input ambiguous).
 */
export function signWebhookV2(
  secret: string | Uint8Array,
  timestampSeconds: number,
  bound: BoundWebhookHeaders,
  rawBody: Uint8Array | string,
): string {
  assertTimestampSeconds(timestampSeconds)
  for (const value of [bound.tenantId, bound.runId, bound.eventId]) {
    if (value !== undefined && /[\r\n]/.test(value)) throw new TypeError('bound header values cannot contain CR or LF')
  }
  return (
    WEBHOOK_SIGNATURE_PREFIX +
    computeWebhookMac(secret, [macPrefix(String(timestampSeconds), bound), rawBody]).toString('hex')
  )
}

/**
 * Verifies an `X-ACDP-Signature-V2` header: same freshness rule and accepted header forms as
 * `verifyTimestampedWebhook`, over the bound headers as received. Never throws on attacker input.
 *
 * @param header attacker-controlled: the X-ACDP-Signature-V2 value.
 * @param bound attacker-controlled: the X-Tenant-Id / X-Run-Id / X-ACDP-Event-Id values as received.
 * @throws TypeError on caller misuse (empty secret, non-finite clock or tolerance).
 */
export function verifyWebhookV2(
  secret: string | Uint8Array,
  rawBody: Uint8Array | string,
  header: string | undefined,
  bound: BoundWebhookHeaders,
  check: TimestampedWebhookCheck,
): boolean {
  return verifyStampedMac(secret, header, check, (stamp) => [macPrefix(stamp, bound), rawBody])
}
