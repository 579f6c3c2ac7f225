/**
 * `acdp-publish-response.schema.json` (RFC-ACDP-0003 §4, fixture pub-007): CLOSED — exactly `ctx_id`,
 * `lineage_id`, `version`, `created_at` and `status`, plus `registry_receipt` only on registries that
 * advertise `acdp-registry-receipts`. Never echoes `content_hash` or any other body field (schema-002).
 */
import { type Static, Type } from 'typebox'
import { CtxId, LineageId, Status, Timestamp } from './common.js'

export const PublishResponse = Type.Object(
  {
    ctx_id: CtxId,
    lineage_id: LineageId,
    version: Type.Integer({ minimum: 1 }),
    created_at: Timestamp,
    status: Status,
    registry_receipt: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)
export type PublishResponse = Static<typeof PublishResponse>
