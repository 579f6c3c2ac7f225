/**
 * The registry's one error type, its code → HTTP status table (product spec "Errors"; RFC-ACDP-0007 §5),
 * the translation of protocol and framework errors, and the only writer of the wire envelope
 * `{ "error": { "code", "message", "details"? } }` (RFC-ACDP-0007 §4; `details` omitted, never null).
 */
import { isProtocolError, type RegistryErrorCode } from '@acdp/protocol'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** HTTP status of each wire code. `superseded_target` is 400 unless the caller passes 409 (race reasons). */
export const REGISTRY_ERROR_STATUS = {
  invalid_signature: 400,
  hash_mismatch: 400,
  data_ref_hash_mismatch: 400,
  schema_violation: 400,
  not_authorized: 403,
  not_found: 404,
  superseded_target: 400,
  unsupported_algorithm: 400,
  rate_limited: 429,
  payload_too_large: 413,
  embedded_too_large: 413,
  unsupported_media_type: 415,
  key_resolution_failed: 400,
  key_resolution_unreachable: 502,
  key_not_authorized: 403,
  not_implemented: 501,
  cursor_expired: 400,
  invalid_cursor: 400,
  duplicate_publish: 409,
  cross_registry_resolution_failed: 502,
  invalid_receipt: 502,
  immutable_field: 400,
  invalid_lifecycle_transition: 409,
  invalid_log_proof: 502,
  invalid_witness_cosignature: 502,
  internal_error: 500,
} as const satisfies Record<RegistryErrorCode, number>

export type RegistryCode = keyof typeof REGISTRY_ERROR_STATUS

/** The fixed, non-leaking message of every 500 (fixture err-001). */
export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred.'

/** The ACDP media type of every registry response, success and failure (RFC-ACDP-0001 §5.1). */
export const ACDP_MEDIA_TYPE = 'application/acdp+json'

export interface RegistryErrorOptions {
  /** Open object sent as `error.details`; omitted when absent. Never put secrets or raw input here. */
  details?: Record<string, unknown>
  /** Only where the spec gives one code two statuses (superseded_target 409 on races). */
  status?: number
  /** `Retry-After` seconds for `rate_limited` (RFC-ACDP-0008 §4.3: always present on 429). */
  retryAfterSeconds?: number
  cause?: unknown
}

/** A deliberate, client-visible failure. `message` goes on the wire: keep it generic and free of input echoes. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError'
  readonly status: number
  readonly details: Record<string, unknown> | undefined
  readonly retryAfterSeconds: number | undefined

  constructor(
    readonly code: RegistryCode,
    message: string,
    options: RegistryErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = options.status ?? REGISTRY_ERROR_STATUS[code]
    this.details = options.details
    this.retryAfterSeconds = options.retryAfterSeconds
  }
}

/** True for a RegistryError from any copy of this module. */
export function isRegistryError(error: unknown): error is RegistryError {
  return error instanceof Error && error.name === 'RegistryError' && typeof (error as RegistryError).code === 'string'
}

/**
 * Serializes the wire envelope. `details` is included only when it has members, so `null` or `{}` never
 * reach the wire (schema-013).
 */
export function renderErrorEnvelope(code: RegistryCode, message: string, details?: Record<string, unknown>): string {
  const error: { code: string; message: string; details?: Record<string, unknown> } = { code, message }
  if (details !== undefined && Object.keys(details).length > 0) error.details = details
  return JSON.stringify({ error })
}

/**
 * Translates a ProtocolError raised while processing attacker-controlled input into the registry's wire code.
 * Every protocol code a request path can raise is mapped here once; unknown codes are internal errors.
 */
export function fromProtocolError(error: unknown): RegistryError {
  if (!isProtocolError(error)) {
    return new RegistryError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error })
  }
  switch (error.code) {
    case 'malformed_input':
    case 'too_deep':
    case 'not_canonicalizable':
    case 'invalid_hash_format':
    case 'invalid_structure':
      return new RegistryError('schema_violation', 'The request is not valid ACDP JSON.', { cause: error })
    case 'invalid_signature_encoding':
    case 'verification_failed':
      return new RegistryError('invalid_signature', 'The signature does not verify.', { cause: error })
    case 'unsupported_algorithm':
      return new RegistryError('unsupported_algorithm', 'The signature algorithm is not supported.', { cause: error })
    case 'invalid_did':
    case 'invalid_public_key':
    case 'key_resolution_failed':
      return new RegistryError('key_resolution_failed', 'The signing key could not be resolved.', { cause: error })
    case 'key_resolution_unreachable':
      return new RegistryError('key_resolution_unreachable', 'The signing key could not be fetched; retry later.', {
        cause: error,
      })
    case 'outbound_refused':
      return new RegistryError('key_resolution_failed', 'The signing key could not be resolved.', { cause: error })
    case 'outbound_failed':
    case 'outbound_too_large':
      return new RegistryError('key_resolution_unreachable', 'The signing key could not be fetched; retry later.', {
        cause: error,
      })
    default:
      return new RegistryError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error })
  }
}

interface ValidationIssue {
  instancePath?: string
  message?: string
  params?: Record<string, unknown>
}

/** Every failing path of a schema validation, in wire form (`/data_refs/0/type`, `(root)`). */
export function describeValidationIssues(issues: readonly ValidationIssue[]): Array<{ path: string; message: string }> {
  const seen = new Set<string>()
  const out: Array<{ path: string; message: string }> = []
  for (const issue of issues) {
    let path = issue.instancePath || ''
    const extra = issue.params?.additionalProperties
    if (Array.isArray(extra) && extra.length > 0) path = `${path}/${String(extra[0])}`
    const message = issue.message ?? 'is invalid'
    const key = `${path}\u0000${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ path: path === '' ? '(root)' : path, message })
  }
  return out
}

/** Maps framework errors (body parsing, content type, validation, routing) to registry errors. */
export function toRegistryError(error: unknown): RegistryError {
  if (isRegistryError(error)) return error
  if (isProtocolError(error)) return fromProtocolError(error)
  const fe = error as FastifyError & { validation?: ValidationIssue[] }
  if (Array.isArray(fe?.validation)) {
    return new RegistryError('schema_violation', 'The request does not match the schema.', {
      details: { errors: describeValidationIssues(fe.validation) },
      cause: error,
    })
  }
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RegistryError('payload_too_large', 'The request body is larger than this registry accepts.', {
        cause: error,
      })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new RegistryError('unsupported_media_type', 'The Content-Type is not accepted here.', { cause: error })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new RegistryError('schema_violation', 'The request body is not valid JSON.', { cause: error })
    default:
      break
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500
  if (status === 413) return new RegistryError('payload_too_large', 'The request body is too large.', { cause: error })
  if (status === 415)
    return new RegistryError('unsupported_media_type', 'The Content-Type is not accepted here.', { cause: error })
  if (status === 404) return new RegistryError('not_found', 'Not found.', { cause: error })
  if (status >= 400 && status < 500) {
    return new RegistryError('schema_violation', 'The request is malformed.', { cause: error })
  }
  return new RegistryError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error })
}

/** Sends one registry error as the ACDP envelope (with `Retry-After` on 429). */
export function sendRegistryError(reply: FastifyReply, error: RegistryError): FastifyReply {
  reply.code(error.status).header('content-type', ACDP_MEDIA_TYPE)
  if (error.code === 'rate_limited')
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 60))))
  if (error.code === 'not_authorized' && error.status === 403) reply.header('cache-control', 'no-store')
  // Sent as bytes so no hook or framework path can append a charset to the bare ACDP media type.
  return reply.send(Buffer.from(renderErrorEnvelope(error.code, error.message, error.details)))
}

/**
 * Installs the one root error handler and the not-found handler. Deliberate errors keep their code; a
 * 500 is logged with its cause and stack and answered with the fixed generic message only.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.decorateRequest('acdpErrorCode', null)
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const registryError = toRegistryError(error)
    request.acdpErrorCode = registryError.code
    if (registryError.code === 'internal_error') {
      request.log.error({ err: error }, 'internal error')
    } else {
      // At debug: the access log's one line per request already carries the code (access-log.ts).
      request.log.debug({ code: registryError.code, status: registryError.status }, 'request refused')
    }
    return sendRegistryError(reply, registryError)
  })
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    request.acdpErrorCode = 'not_found'
    return sendRegistryError(reply, new RegistryError('not_found', 'Not found.'))
  })
}
