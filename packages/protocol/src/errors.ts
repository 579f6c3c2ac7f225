/**
 * The one error type this package throws for bad *data* (caller misuse throws `TypeError`).
 *
 * A code names what failed, never an HTTP status. Each server maps these codes to its own wire
 * envelope in one place (registry `errors.ts`, control plane `errors.ts`).
 */
export const PROTOCOL_ERROR_CODES = [
  /** Input is not valid JSON or not the JSON shape an operation needs. Servers: 400 schema_violation / malformed. */
  'malformed_input',
  /** JSON nesting deeper than allowed. Servers: 400. */
  'too_deep',
  /** A value cannot be canonicalized (non-finite number, lone surrogate…). Servers: 400 schema_violation. */
  'not_canonicalizable',
  /** A `sha256:<hex>` string is malformed. Servers: 400 schema_violation. */
  'invalid_hash_format',
  /** Signature bytes have the wrong encoding or length. Servers: 400 invalid_signature. */
  'invalid_signature_encoding',
  /** Algorithm identifier not supported. Servers: 400 unsupported_algorithm. */
  'unsupported_algorithm',
  /** Public key bytes are malformed, off-curve, or of small order. Servers: 400 invalid_signature / key_resolution_failed. */
  'invalid_public_key',
  /** A DID string is malformed or uses an unsupported method/multicodec. Servers: 400 key_resolution_failed. */
  'invalid_did',
  /** DID resolution failed permanently (404, bad document, key absent). Servers: 400 key_resolution_failed. */
  'key_resolution_failed',
  /** DID resolution failed transiently (network, timeout, 5xx). Servers: 502/503 key_resolution_unreachable. */
  'key_resolution_unreachable',
  /** The outbound policy refused a destination (scheme, address class, redirect). Servers: map per feature. */
  'outbound_refused',
  /** An outbound request failed in transport, exceeded a deadline, or returned an unusable answer. */
  'outbound_failed',
  /** An outbound response body exceeded its cap. */
  'outbound_too_large',
  /** A Merkle proof, checkpoint, receipt or cosignature does not verify. */
  'verification_failed',
  /** A structure (checkpoint, receipt, lifecycle event, revocation body) violates its RFC shape rules. */
  'invalid_structure',
  /** SDK client: a server answered with an error envelope; `details` carries `status` and the server's `code`. */
  'request_rejected',
  /**
   * SDK consumer: a `derived_from` walk was aborted as a whole (RFC-ACDP-0006 §4.1 step 7: total-node cap, walk
   * timeout, refused fanout, cycle); `details.reason` names the control. Servers: 502 cross_registry_resolution_failed.
   */
  'cross_registry_resolution_failed',
] as const

export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number]

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError'
  readonly code: ProtocolErrorCode
  readonly details: Record<string, unknown> | undefined

  constructor(
    code: ProtocolErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.details = options.details
  }
}

/** Narrowing guard usable across package boundaries (no `instanceof` reliance on one module copy). */
export function isProtocolError(error: unknown): error is ProtocolError {
  return error instanceof Error && error.name === 'ProtocolError' && typeof (error as ProtocolError).code === 'string'
}
