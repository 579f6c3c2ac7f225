/**
 * The registry error envelope (`acdp-error.schema.json`, RFC-ACDP-0007 §4): `{ "error": { code, message,
 * details? } }`, closed at both levels; `details` is an open object and is omitted, never `null` (schema-013).
 */
import { type Static, Type } from 'typebox'

/**
 * Every code a registry may put on the wire: the RFC-ACDP-0007 §5 vocabulary plus the product's
 * `unsupported_media_type` (415), which the protocol enum lacks. `visibility_denied` is log-only and
 * `unsupported_embedding_model` is reserved; neither is here.
 */
export const REGISTRY_ERROR_CODES = [
  'invalid_signature',
  'hash_mismatch',
  'data_ref_hash_mismatch',
  'schema_violation',
  'not_authorized',
  'not_found',
  'superseded_target',
  'unsupported_algorithm',
  'rate_limited',
  'payload_too_large',
  'embedded_too_large',
  'unsupported_media_type',
  'key_resolution_failed',
  'key_resolution_unreachable',
  'key_not_authorized',
  'not_implemented',
  'cursor_expired',
  'invalid_cursor',
  'duplicate_publish',
  'cross_registry_resolution_failed',
  'invalid_receipt',
  'immutable_field',
  'invalid_lifecycle_transition',
  'invalid_log_proof',
  'invalid_witness_cosignature',
  'internal_error',
] as const

export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number]

/** `superseded_target` `details.reason` values (RFC-ACDP-0003 §5, plus the product's `revocation_type_mismatch`). */
export const SUPERSEDED_TARGET_REASONS = [
  'not_found',
  'lineage_mismatch',
  'version_mismatch',
  'already_superseded',
  'cross_registry_supersession_unsupported',
  'lineage_walk_failed',
  'revocation_type_mismatch',
] as const

export type SupersededTargetReason = (typeof SUPERSEDED_TARGET_REASONS)[number]

export const RegistryErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Union(REGISTRY_ERROR_CODES.map((code) => Type.Literal(code))),
        message: Type.String(),
        details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
export type RegistryErrorEnvelope = Static<typeof RegistryErrorEnvelope>
