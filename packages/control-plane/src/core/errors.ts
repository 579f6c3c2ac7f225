/**
 * The control plane's one error type, its code table, and the root error and not-found handlers.
 *
 * Wire envelope (product spec control-plane.md "Errors"): every non-2xx answer is
 * `{ statusCode, errorCode, message }`. This file is the only place that writes it. Nothing else reaches the
 * wire: no stack, no SQL, no driver or upstream text (a 500 always says "internal error").
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/**
 * errorCode → HTTP status. Codes named by the product spec keep its spelling and status; the others fill the
 * spec's "not shown" parts the way the reference's newer release does, so clients written for it keep working.
 */
export const ERROR_STATUS = {
  /** 404: the run does not exist in the caller's tenant. */
  RUN_NOT_FOUND: 404,
  /** 404: no such registry (observed or enrolled) in the caller's tenant. */
  REGISTRY_NOT_FOUND: 404,
  /** 404: the agent was never seen in the caller's tenant. */
  AGENT_NOT_FOUND: 404,
  /** 404: no such context. */
  CONTEXT_NOT_FOUND: 404,
  /** 404: CONSOLE_ENABLED=true but the console's static build is absent (run `npm run build`). */
  CONSOLE_NOT_BUILT: 404,
  /** 404: no such route, or another missing resource without a dedicated code. */
  NOT_FOUND: 404,
  /** 400: the body is not JSON, nests too deeply, or lacks a required member. */
  INVALID_PAYLOAD: 400,
  /** 400: a member, query parameter or header has the wrong shape. */
  VALIDATION_ERROR: 400,
  /** 400: ingest of a context_type that the active domain packs do not accept (metric reason pack_gate). */
  CONTEXT_TYPE_NOT_ACCEPTED: 400,
  /** 413 (400 on the HMAC routes, where the spec fixes 400): the body exceeds the configured limit. */
  PAYLOAD_TOO_LARGE: 413,
  /** 415: the body is not `application/json`. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** 401: a webhook HMAC signature is missing or wrong. */
  INVALID_SIGNATURE: 401,
  /** 401: a bearer credential is missing or not accepted. Never says which check failed. */
  UNAUTHORIZED: 401,
  /** 403: generic refusal. */
  FORBIDDEN: 403,
  /** 403: the route needs a key listed in AUTH_ADMIN_API_KEYS. */
  ADMIN_REQUIRED: 403,
  /** 403: the request asserts the reserved tenant `default`. */
  TENANT_RESERVED: 403,
  /** 403: X-Tenant-Id disagrees with the tenant bound to the credential or the enrollment. */
  TENANT_MISMATCH: 403,
  /** 403: AUTH_REQUIRE_TENANT=true and the request resolves only to `default`. */
  TENANT_REQUIRED: 403,
  /** 403: the sender may not assert a tenant at all (unenrolled registry under INGEST_STRICT_TENANT). */
  TENANT_HEADER_UNTRUSTED: 403,
  /** 403: INGEST_REQUIRE_ENROLLMENT=true and the authority is not enrolled. */
  REGISTRY_NOT_ENROLLED: 403,
  /** 403: the authority's enrollment has `enabled: false`. */
  REGISTRY_DISABLED: 403,
  /** 403: an ingested event names a ctx_id of another registry than the verified sender (metric authority_mismatch). */
  AUTHORITY_MISMATCH: 403,
  /** 403: a token of a TRUSTED_ISSUERS entry flagged read_only on a method that writes. */
  ISSUER_READ_ONLY: 403,
  /** 403: the policy engine denied the action (body also carries `code` and `reason`). */
  POLICY_DENIED: 403,
  /** 429: a per-tenant or per-agent quota is used up (Retry-After set). */
  QUOTA_EXCEEDED: 429,
  /** 502: the federation upstream served a context whose ctx_id is not the one asked for. */
  CONTEXT_ID_MISMATCH: 502,
  /** 502: FEDERATION_VERIFY_CONTEXTS is on and the relayed context's signature or receipt does not verify. */
  CONTEXT_BINDING_UNVERIFIABLE: 502,
  /** 429: a throttle refused the request (Retry-After set). */
  RATE_LIMITED: 429,
  /** 502: the federation upstream failed. */
  FEDERATION_UPSTREAM_ERROR: 502,
  /** 503: the federation upstream answered 429. */
  FEDERATION_UPSTREAM_RATE_LIMITED: 503,
  /** 503: the database (or another dependency) does not answer. */
  DEPENDENCY_UNAVAILABLE: 503,
  /** 503: the instance is shutting down. */
  SERVICE_DRAINING: 503,
  /**
   * 400: a malformed parameter of a witness endpoint (product spec "Witness endpoint schema failures use
   * `schema_violation` with 400"; the protocol's spelling, RFC-ACDP-0015 §6.2).
   */
  schema_violation: 400,
  /** 500: unexpected failure; details only in the log. */
  INTERNAL_ERROR: 500,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/** Options of {@link ControlPlaneError}. */
export interface ControlPlaneErrorOptions {
  /** Overrides the table's status where the spec gives one code two statuses (e.g. 400 oversize at ingest). */
  status?: number
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>
  /** Extra top-level members merged into the envelope (probes add `ok`, `service`…). Never secrets. */
  extra?: Record<string, unknown>
  /** Kept for the log only. */
  cause?: unknown
}

/**
 * A deliberate, client-facing failure. Throw it from routes and services; the root handler renders it.
 * The message goes on the wire, so it must not contain secrets or internal detail.
 */
export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError'
  readonly code: ErrorCode
  readonly statusCode: number
  readonly headers: Record<string, string> | undefined
  readonly extra: Record<string, unknown> | undefined

  constructor(code: ErrorCode, message: string, options: ControlPlaneErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.statusCode = options.status ?? ERROR_STATUS[code]
    this.headers = options.headers
    this.extra = options.extra
  }
}

/** Narrowing guard that does not rely on one module copy's `instanceof`. */
export function isControlPlaneError(error: unknown): error is ControlPlaneError {
  return (
    error instanceof Error &&
    error.name === 'ControlPlaneError' &&
    typeof (error as ControlPlaneError).code === 'string'
  )
}

/** The wire envelope. */
export interface ErrorEnvelope {
  statusCode: number
  errorCode: string
  message: string
}

/** Fastify's own errors a client can cause, mapped onto our codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_PAYLOAD',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_PAYLOAD',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_PAYLOAD',
  FST_ERR_BAD_URL: 'VALIDATION_ERROR',
  FST_ERR_ASYNC_CONSTRAINT: 'VALIDATION_ERROR',
}

/** Fallback code per 4xx status for client errors raised by plugins without one of ours. */
function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHORIZED'
  if (status === 403) return 'FORBIDDEN'
  if (status === 404) return 'NOT_FOUND'
  if (status === 413) return 'PAYLOAD_TOO_LARGE'
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE'
  if (status === 429) return 'RATE_LIMITED'
  return 'INVALID_PAYLOAD'
}

/** Summarises schema-validation failures as `path: problem` pairs, every failing path listed (STYLE rule 7). */
function describeValidation(error: FastifyError): string {
  const context = error.validationContext ?? 'request'
  const problems = (error.validation ?? []).map((issue) => {
    const path = issue.instancePath ? `${context}${issue.instancePath}` : context
    return `${path}: ${issue.message ?? 'is invalid'}`
  })
  return problems.length > 0 ? problems.slice(0, 20).join('; ') : 'request does not match the schema'
}

/** Converts any thrown value into a ControlPlaneError; unknown failures become INTERNAL_ERROR with the cause kept. */
export function toControlPlaneError(error: unknown): ControlPlaneError {
  if (isControlPlaneError(error)) return error
  const fastifyError = error as Partial<FastifyError> | undefined
  if (fastifyError && Array.isArray(fastifyError.validation)) {
    return new ControlPlaneError('VALIDATION_ERROR', describeValidation(fastifyError as FastifyError), { cause: error })
  }
  const mapped = typeof fastifyError?.code === 'string' ? FASTIFY_CODES[fastifyError.code] : undefined
  if (mapped) return new ControlPlaneError(mapped, fastifyError?.message ?? mapped, { cause: error })
  const status = fastifyError?.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ControlPlaneError(codeForStatus(status), 'request rejected', { status, cause: error })
  }
  return new ControlPlaneError('INTERNAL_ERROR', 'internal error', { cause: error })
}

/** Writes the envelope for `error` (already converted) on `reply`. */
export function sendError(reply: FastifyReply, error: ControlPlaneError): FastifyReply {
  const body: ErrorEnvelope & Record<string, unknown> = {
    ...(error.extra ?? {}),
    statusCode: error.statusCode,
    errorCode: error.code,
    message: error.message,
  }
  if (error.headers) reply.headers(error.headers)
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(body)
}

/**
 * Installs the root error handler and the 404 handler. 5xx causes are logged with their stack; 4xx are logged
 * at debug with the code only (STYLE rule 7: labels and logs use the code, never the message).
 */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = toControlPlaneError(error)
    if (mapped.statusCode >= 500) {
      request.log.error({ err: mapped.cause ?? mapped, errorCode: mapped.code }, 'request failed')
    } else {
      request.log.debug({ errorCode: mapped.code, statusCode: mapped.statusCode }, 'request rejected')
    }
    return sendError(reply, mapped)
  })
  app.setNotFoundHandler((_request: FastifyRequest, reply: FastifyReply) =>
    sendError(reply, new ControlPlaneError('NOT_FOUND', 'route not found')),
  )
}
