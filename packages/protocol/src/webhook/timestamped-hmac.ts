/**
 * Timestamped webhook signature, the registry's replay-bounding form: the timestamp is signed with the body, so a
 * captured delivery cannot be replayed outside the receiver's time window:
 *
 *   X-ACDP-Timestamp: <unix seconds, decimal>
 *   X-ACDP-Signature-Timestamped: sha256=<hex of HMAC-SHA256(secret, "<ts>." ‖ raw body)>
 *
 * The timestamp travels in its own header and is bound into the MAC, so a captured delivery cannot be replayed
 * outside the receiver's tolerance window by rewriting the timestamp header.
 */
import { computeWebhookMac, matchesSignatureHeader, WEBHOOK_SIGNATURE_PREFIX } from './hmac.js'

/** Canonical decimal seconds: no sign, no leading zeros, at most 16 digits (well inside 2^53). */
const TIMESTAMP_SECONDS = /^(0|[1-9][0-9]{0,15})$/

/** Options for {@link verifyTimestampedWebhook}. */
export interface TimestampedWebhookCheck {
  /** attacker-controlled: the `X-ACDP-Timestamp` header value exactly as received (unix seconds). */
  timestamp: string | undefined
  /** The receiver's clock in unix seconds (injected; never read from the wall clock here). */
  nowSeconds: number
  /** Largest accepted |now − timestamp| in seconds, inclusive. */
  toleranceSeconds: number
}

/**
 * Signs `"<timestampSeconds>." ‖ rawBody` and returns the `X-ACDP-Signature-Timestamped` value
 * `sha256=<64 lowercase hex>`. The caller sends `String(timestampSeconds)` as `X-ACDP-Timestamp`.
 *
 * @throws TypeError when the secret is empty or `timestampSeconds` is not a non-negative safe integer.
 */
export function signTimestampedWebhook(
  secret: string | Uint8Array,
  timestampSeconds: number,
  rawBody: Uint8Array | string,
): string {
  assertTimestampSeconds(timestampSeconds)
  return WEBHOOK_SIGNATURE_PREFIX + computeWebhookMac(secret, [`${timestampSeconds}.`, rawBody]).toString('hex')
}

/**
 * Verifies a timestamped webhook signature and its freshness. Returns `true` only when the timestamp header is
 * canonical decimal seconds, lies within `toleranceSeconds` of `nowSeconds` (either direction, inclusive), and the
 * signature header (same accepted forms as {@link verifyWebhookSignature}) matches the MAC over
 * `"<timestamp>." ‖ rawBody` in constant time. Malformed or missing headers return `false`; never throws on them.
 *
 * The MAC is computed over the timestamp header's exact text, so a sender must not pad it (`"0170…"` fails).
 *
 * @param header attacker-controlled: the `X-ACDP-Signature-Timestamped` header value.
 * @param rawBody attacker-controlled: the request body bytes exactly as received.
 * @throws TypeError when the secret is empty, or `nowSeconds` / `toleranceSeconds` are not finite
 *   non-negative numbers (caller misuse).
 */
export function verifyTimestampedWebhook(
  secret: string | Uint8Array,
  rawBody: Uint8Array | string,
  header: string | undefined,
  check: TimestampedWebhookCheck,
): boolean {
  return verifyStampedMac(secret, header, check, (stamp) => [`${stamp}.`, rawBody])
}

/**
 * Freshness and MAC check shared by every timestamped form: `partsFor(stamp)` gives the MAC input for the
 * timestamp header's exact text ('' when it is malformed, so the MAC is computed whatever the input).
 *
 * @throws TypeError as {@link verifyTimestampedWebhook}.
 */
export function verifyStampedMac(
  secret: string | Uint8Array,
  header: string | undefined,
  check: TimestampedWebhookCheck,
  partsFor: (stamp: string) => ReadonlyArray<Uint8Array | string>,
): boolean {
  const { timestamp, nowSeconds, toleranceSeconds } = check
  if (!Number.isFinite(nowSeconds) || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('nowSeconds and toleranceSeconds must be finite, toleranceSeconds non-negative')
  }
  // Computing the MAC even when the timestamp is bad keeps the secret check (TypeError) independent of input.
  const stamp = typeof timestamp === 'string' ? timestamp.trim() : ''
  const isWellFormed = TIMESTAMP_SECONDS.test(stamp)
  const expected = computeWebhookMac(secret, partsFor(isWellFormed ? stamp : ''))
  if (!isWellFormed) return false
  if (Math.abs(nowSeconds - Number(stamp)) > toleranceSeconds) return false
  return matchesSignatureHeader(expected, header)
}

/** @throws TypeError unless `timestampSeconds` is a non-negative safe integer. */
export function assertTimestampSeconds(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError('timestampSeconds must be a non-negative safe integer')
  }
}
