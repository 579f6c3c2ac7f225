/**
 * `content_hash` over ProducerContent (RFC-ACDP-0001 §5.7, fixtures can-001..010).
 */
import { canonicalize } from '../jcs/canonicalize.js'
import { sha256String } from './sha256.js'

/**
 * The §5.7 exclusion-set registry for acdp_version 0.1.0–0.4.0: the body members that are not part
 * of ProducerContent. Membership is by name and regardless of value (can-009). §5.7 forbids
 * extending it without a protocol version change; every other member, known or unknown, is hashed
 * (can-008, can-010).
 */
export const PRODUCER_CONTENT_EXCLUSIONS: ReadonlySet<string> = new Set([
  'content_hash',
  'signature',
  'ctx_id',
  'lineage_id',
  'origin_registry',
  'created_at',
])

/**
 * Returns a shallow copy of a raw parsed body without the §5.7 exclusion-set members. Unknown
 * members are kept; nested values are shared, not copied. Pass the raw parsed JSON, never a typed
 * model that may have dropped unknown fields (§5.7 "Hash verification over raw JSON").
 *
 * @throws TypeError when `body` is not a non-array object (caller misuse).
 */
export function extractProducerContent(body: Record<string, unknown>): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TypeError('extractProducerContent expects a JSON object')
  }
  const content: Record<string, unknown> = {}
  for (const key of Object.keys(body)) {
    if (PRODUCER_CONTENT_EXCLUSIONS.has(key)) continue
    if (key === '__proto__') {
      // A parsed body may carry "__proto__" as an ordinary member; plain assignment would change the
      // copy's prototype instead of adding the member, silently dropping it from the hash.
      Object.defineProperty(content, key, { value: body[key], enumerable: true, writable: true, configurable: true })
    } else {
      content[key] = body[key]
    }
  }
  return content
}

/**
 * `content_hash` of a body or of ProducerContent: `sha256:` + hex(SHA-256(JCS(ProducerContent))).
 * Exclusion-set members present in `body` are removed first, so a full stored body and the bare
 * producer content give the same value.
 *
 * @throws ProtocolError `not_canonicalizable` when the content has no JCS form.
 */
export function computeContentHash(body: Record<string, unknown>): string {
  // Hashing the string lets the platform encode UTF-8 natively; canonicalize() has already refused
  // lone surrogates, so the bytes are exactly canonicalBytes().
  return sha256String(canonicalize(extractProducerContent(body)))
}
