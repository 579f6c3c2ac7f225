/**
 * `acdp-publish-request.schema.json` (RFC-ACDP-0003 §2): the CLOSED body of `POST /contexts`, plus the
 * RFC-ACDP-0016 `anchors` member (acdp 0.5.0). Registry-assigned fields (`ctx_id`, `origin_registry`,
 * `created_at`, and `lineage_id` on a first version) are rejected by the closed shape (pub-012..014, pub-004).
 *
 * What JSON Schema cannot say is checked at runtime by the registry: metadata depth and canonical size
 * (RFC-ACDP-0002 §3.3), embedded decoded size and hash, `data_period` order, DID-method rules, anchors vs
 * the body's `acdp_version`, key-revocation metadata, and the signature value length (→ `invalid_signature`).
 */
import { type Static, Type } from 'typebox'
import { ifThen, LineageId } from './common.js'
import {
  authorshipFields,
  contentFields,
  laterVersionSupersedes,
  protocolVersionFields,
  publicHasNoAudience,
  restrictedNeedsAudience,
} from './context-fields.js'

export const PublishRequest = Type.Object(
  {
    ...authorshipFields,
    ...contentFields,
    lineage_id: Type.Optional(LineageId),
    ...protocolVersionFields,
  },
  {
    additionalProperties: false,
    allOf: [
      // RFC-ACDP-0003 §2.1 step 11 and RFC-ACDP-0002 §7.
      restrictedNeedsAudience,
      publicHasNoAudience,
      // A private context's audience is optional, but never present-and-empty (RFC-ACDP-0002 §7).
      ifThen({ properties: { visibility: { const: 'private' } } }, { properties: { audience: { minItems: 1 } } }),
      // Version 1 starts a lineage: `supersedes` is null and `lineage_id` absent (pub-004).
      ifThen(
        { properties: { version: { const: 1 } } },
        { properties: { supersedes: { type: 'null' } }, not: { required: ['lineage_id'] } },
      ),
      laterVersionSupersedes,
    ],
  },
)

/** A schema-valid publish request. Unknown members are impossible here; DataRef and anchor extras are kept. */
export type PublishRequest = Static<typeof PublishRequest>
