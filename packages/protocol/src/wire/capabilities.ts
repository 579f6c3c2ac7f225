/**
 * `acdp-capabilities.schema.json` (RFC-ACDP-0007 §3): served at `/.well-known/acdp.json`. The top level is
 * OPEN (caps-006, schema-004); `limits` is CLOSED with four known keys (schema-010, caps-007); advertising
 * `supports_idempotency_key: true` requires `limits.idempotency_key_ttl_seconds` (caps-004).
 *
 * Cross-field rules JSON Schema cannot state (registry_did vs authority, profile prerequisites, idempotency
 * REQUIRED at acdp_version ≥ 0.3.0 — idem-007) are checked by `checkCapabilitiesConsistency`.
 */
import { type Static, Type } from 'typebox'
import { Did, ifThen } from './common.js'

export const CapabilitiesLimits = Type.Object(
  {
    max_payload_bytes: Type.Integer({ minimum: 1024 }),
    max_embedded_bytes: Type.Literal(65536),
    idempotency_key_ttl_seconds: Type.Optional(Type.Integer({ minimum: 86400, maximum: 604800 })),
    max_publish_per_minute: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
)

export const CapabilitiesDocument = Type.Object(
  {
    acdp_version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' }),
    registry_did: Did,
    supported_signature_algorithms: Type.Array(
      Type.String({ pattern: '^[a-z][a-z0-9-]*$', minLength: 2, maxLength: 64 }),
      { minItems: 1, uniqueItems: true, contains: { const: 'ed25519' } },
    ),
    read_authentication_methods: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_]*$', minLength: 2, maxLength: 64 }), { uniqueItems: true }),
    ),
    anonymous_public_reads: Type.Optional(Type.Boolean()),
    supported_did_methods: Type.Array(Type.String(), {
      minItems: 1,
      uniqueItems: true,
      contains: { const: 'did:web' },
    }),
    supports_idempotency_key: Type.Optional(Type.Boolean()),
    profiles: Type.Array(Type.String({ pattern: '^acdp-[a-z][a-z0-9-]*$', minLength: 6, maxLength: 64 }), {
      minItems: 1,
      uniqueItems: true,
      contains: { const: 'acdp-registry-core' },
    }),
    limits: CapabilitiesLimits,
  },
  {
    additionalProperties: true,
    allOf: [
      ifThen(
        { properties: { supports_idempotency_key: { const: true } }, required: ['supports_idempotency_key'] },
        { properties: { limits: { required: ['idempotency_key_ttl_seconds'] } } },
      ),
    ],
  },
)
export type CapabilitiesDocument = Static<typeof CapabilitiesDocument>

/** Compares dotted `major.minor.patch` versions numerically; both must match `^\d+\.\d+\.\d+$`. */
export function compareAcdpVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return d < 0 ? -1 : 1
  }
  return 0
}

/**
 * RFC-ACDP-0007 §3.5 cross-field checks a schema cannot express. Returns human-readable failures
 * (empty when consistent); the document must already be schema-valid.
 */
export function checkCapabilitiesConsistency(document: CapabilitiesDocument): string[] {
  const failures: string[] = []
  if (!document.registry_did.startsWith('did:web:')) failures.push('registry_did must be did:web:<authority>')
  // idem-007: idempotency is REQUIRED at 0.3.0 and later.
  if (compareAcdpVersions(document.acdp_version, '0.3.0') >= 0 && document.supports_idempotency_key !== true) {
    failures.push('acdp_version >= 0.3.0 requires supports_idempotency_key: true')
  }
  const profiles = new Set(document.profiles)
  const needsReceipts = ['acdp-registry-head-receipts', 'acdp-registry-transparency-log']
  for (const p of needsReceipts) {
    if (profiles.has(p) && !profiles.has('acdp-registry-receipts'))
      failures.push(`${p} requires acdp-registry-receipts`)
  }
  return failures
}
