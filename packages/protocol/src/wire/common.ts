/**
 * Shared wire types of `acdp-common.schema.json` (RFC-ACDP-0001 §5, RFC-ACDP-0002 §3) as TypeBox schemas.
 * Patterns are copied from the spec's schema text so validators and the spec agree byte for byte.
 */
import { type Static, Type } from 'typebox'

/** RFC-ACDP-0001 §5.4: plain DID (no fragment). Loose on purpose; method rules are enforced in code. */
export const DID_PATTERN = '^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$'
/** DID URL as used by `signature.key_id`. */
export const DID_URL_PATTERN = '^did:[a-z0-9]+:[A-Za-z0-9._:#/?=&%-]+$'
/** RFC-ACDP-0002 §3.1: bare lowercase LDH hostname; never a DID. */
export const HOSTNAME_PATTERN = '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$'
/** RFC-ACDP-0001 §5.5: `acdp://<hostname>/<lowercase uuid v4>`. */
export const CTX_ID_PATTERN =
  '^acdp://[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
/** RFC-ACDP-0001 §5.6. */
export const LINEAGE_ID_PATTERN = '^lin:sha256:[0-9a-f]{64}$'
/** RFC-ACDP-0001 §5.2. */
export const CONTENT_HASH_PATTERN = '^sha256:[0-9a-f]{64}$'
/** RFC-ACDP-0001 §5.3: any precision on input; registries emit exactly milliseconds. */
export const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$'
/** RFC-ACDP-0004 §4.1: open status vocabulary. */
export const STATUS_PATTERN = '^[a-z][a-z0-9_]*$'
/** RFC-0016 anchor scheme and DataRef structured-locator scheme: dotted namespace. */
export const DOTTED_SCHEME_PATTERN = '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$'

export const Did = Type.String({ pattern: DID_PATTERN, minLength: 7, maxLength: 2048 })
export const DidUrl = Type.String({ pattern: DID_URL_PATTERN, minLength: 7, maxLength: 2048 })
export const Hostname = Type.String({ pattern: HOSTNAME_PATTERN, minLength: 1, maxLength: 253 })
export const CtxId = Type.String({ pattern: CTX_ID_PATTERN })
export const LineageId = Type.String({ pattern: LINEAGE_ID_PATTERN })
export const ContentHash = Type.String({ pattern: CONTENT_HASH_PATTERN })
export const Timestamp = Type.String({ format: 'date-time', pattern: TIMESTAMP_PATTERN })
export const Status = Type.String({ pattern: STATUS_PATTERN, minLength: 1, maxLength: 64 })
export const Visibility = Type.Union([Type.Literal('public'), Type.Literal('restricted'), Type.Literal('private')])
export type Visibility = Static<typeof Visibility>

/**
 * RFC-ACDP-0001 §5.8 detached signature (closed). The spec schema also pins `value` to 88 characters for
 * ed25519/ecdsa-p256; that rule is deliberately left to signature verification, because RFC-ACDP-0001 §5.8
 * and the schema's own description require a length mismatch to be answered with `invalid_signature`,
 * not `schema_violation` (fixtures pub-006/pub-009 carry 96-character values and expect the key-binding code).
 */
export const Signature = Type.Object(
  {
    algorithm: Type.String({ pattern: '^[a-z][a-z0-9-]*$', minLength: 2, maxLength: 64 }),
    key_id: DidUrl,
    value: Type.String({ pattern: '^[A-Za-z0-9+/]+=*$', minLength: 8, maxLength: 8192 }),
  },
  { additionalProperties: false },
)
export type Signature = Static<typeof Signature>

/** RFC-ACDP-0002 §3: free-form tag. */
export const Tag = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', minLength: 1, maxLength: 100 })

/** Closed `{start, end}`; `start ≤ end` is a runtime check. */
export const DataPeriod = Type.Object({ start: Timestamp, end: Timestamp }, { additionalProperties: false })

/** Standard types (plus `key-revocation`, RFC-ACDP-0014 §4) or a namespaced custom type. */
export const ContextType = Type.Union([
  Type.Literal('data_snapshot'),
  Type.Literal('analysis'),
  Type.Literal('prediction'),
  Type.Literal('alert'),
  Type.Literal('key-revocation'),
  Type.String({ pattern: '^[a-z][a-z0-9_]*:[a-z][a-z0-9_-]*$' }),
])

/**
 * RFC-ACDP-0016 (acdp 0.5.0) typed external anchor: open object, unknown members kept and signed.
 * `uri` is advisory and never dereferenced.
 */
export const Anchor = Type.Object(
  {
    scheme: Type.String({ pattern: DOTTED_SCHEME_PATTERN }),
    content_hash: ContentHash,
    uri: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
)

/** `anchors`: 1..100 unique items; absent when empty (`[]` is a schema violation). */
export const Anchors = Type.Array(Anchor, { minItems: 1, maxItems: 100, uniqueItems: true })

/**
 * Builds a JSON Schema `if`/`then` pair. Written through entries because a literal `then` member makes an
 * object thenable-looking to linters and to `await`; the schema keyword itself is what the spec uses.
 */
export function ifThen(
  condition: Record<string, unknown>,
  consequence: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries([
    ['if', condition],
    ['then', consequence],
  ])
}
