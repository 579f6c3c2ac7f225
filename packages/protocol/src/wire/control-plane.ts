/**
 * The control plane's error envelope (product spec control-plane.md "Errors"): every non-2xx answer is
 * `{ statusCode, errorCode, message }`. Probe endpoints may add their own members (`ok`, `database`…) next to
 * these, so the schema is open; clients rely on the three members only.
 */
import { type Static, Type } from 'typebox'

export const ControlPlaneErrorEnvelope = Type.Object({
  /** The HTTP status, repeated in the body. */
  statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
  /** Stable UPPER_SNAKE code (e.g. RUN_NOT_FOUND, INVALID_SIGNATURE, VALIDATION_ERROR). */
  errorCode: Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }),
  /** Human-readable; never a stack trace or internal detail. */
  message: Type.String(),
})
export type ControlPlaneErrorEnvelope = Static<typeof ControlPlaneErrorEnvelope>
