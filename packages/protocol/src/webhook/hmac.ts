/**
 * Webhook body signature: `sha256=<hex of HMAC-SHA256(secret, raw body)>`.
 *
 * Product spec registry.md "Webhooks" rule 1 and control-plane.md "Ingest request headers" / "Outbound
 * webhooks": the registry signs every delivery with this header (`X-ACDP-Signature`), the control plane
 * verifies it on ingest and signs its own outbound deliveries the same way. The MAC covers the exact raw
 * bytes on the wire, never a re-serialisation, so receivers must verify before parsing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** Prefix of the signature header value; the only algorithm the product spec defines. */
export const WEBHOOK_SIGNATURE_PREFIX = 'sha256='

const SHA256_BYTES = 32
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/

/**
 * Signs a webhook body: returns `sha256=<64 lowercase hex>` of HMAC-SHA256 over `rawBody`'s exact bytes
 * (a string body is UTF-8 encoded first). A string secret is used as its UTF-8 bytes.
 *
 * @throws TypeError when the secret is empty: an empty key would produce a MAC anyone can forge, and the
 *   control plane's "empty secret skips verification" development mode is the caller's decision, not ours.
 */
export function signWebhookBody(secret: string | Uint8Array, rawBody: Uint8Array | string): string {
  return WEBHOOK_SIGNATURE_PREFIX + computeWebhookMac(secret, [rawBody]).toString('hex')
}

/**
 * Verifies a webhook signature header against the raw body, in constant time over the MAC bytes.
 *
 * Accepted header forms (the control plane's ingest accepts what the reference registries send): `sha256=<hex>`
 * or bare `<hex>`, exactly 64 hex digits of either case (case carries no information once decoded to bytes),
 * surrounding whitespace ignored. Anything else, including a missing header, a truncated or over-long digest, or
 * another algorithm prefix, returns `false`; this never throws on the header.
 *
 * @param header attacker-controlled: the `X-ACDP-Signature` request header value.
 * @param rawBody attacker-controlled: the request body bytes exactly as received.
 * @throws TypeError when the secret is empty (see {@link signWebhookBody}).
 */
export function verifyWebhookSignature(
  secret: string | Uint8Array,
  rawBody: Uint8Array | string,
  header: string | undefined,
): boolean {
  const expected = computeWebhookMac(secret, [rawBody])
  return matchesSignatureHeader(expected, header)
}

/**
 * HMAC-SHA256 over the concatenation of `parts`. Shared by the plain and timestamped forms so both feed the
 * MAC from the same byte conversion.
 */
export function computeWebhookMac(secret: string | Uint8Array, parts: ReadonlyArray<Uint8Array | string>): Buffer {
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array)) {
    throw new TypeError('webhook secret must be a string or Uint8Array')
  }
  if ((typeof secret === 'string' ? secret.length : secret.byteLength) === 0) {
    throw new TypeError('webhook secret must not be empty')
  }
  // A string key is handed over as is (Node keys the MAC with its UTF-8 bytes, the same bytes as
  // Buffer.from(secret)): a Uint8Array key takes a slower key-preparation path, ≈ 14 µs against ≈ 3 µs of CPU per
  // MAC on Node 24, paid by every ingest.
  const mac = createHmac('sha256', secret)
  for (const part of parts) {
    if (typeof part === 'string') mac.update(part, 'utf8')
    else if (part instanceof Uint8Array) mac.update(part)
    else throw new TypeError('webhook body must be a string or Uint8Array')
  }
  return mac.digest()
}

/** Parses a `sha256=<hex>` / `<hex>` header and compares it with `expected` in constant time. */
export function matchesSignatureHeader(expected: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string') return false
  let value = header.trim()
  if (value.startsWith(WEBHOOK_SIGNATURE_PREFIX)) value = value.slice(WEBHOOK_SIGNATURE_PREFIX.length)
  // Length and alphabet are checked before decoding: Buffer.from(hex) silently stops at the first bad pair,
  // which would let `<valid prefix>zz` decode to a shorter buffer.
  if (!HEX_DIGEST.test(value)) return false
  const presented = Buffer.from(value, 'hex')
  if (presented.byteLength !== SHA256_BYTES || expected.byteLength !== SHA256_BYTES) return false
  return timingSafeEqual(presented, expected)
}
