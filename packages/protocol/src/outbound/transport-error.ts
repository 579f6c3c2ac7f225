/**
 * Mapping transport failures to `outbound_failed` (RFC-ACDP-0006 §7.4; product spec: a transport failure is
 * retryable, unlike a policy refusal). Only error codes go into `details`, never upstream text.
 */
import { ProtocolError } from '../errors.js'

/** Why a transport attempt failed; `details.reason` of `outbound_failed`. */
export type OutboundFailureReason =
  | 'dns'
  | 'connect'
  | 'connect_timeout'
  | 'total_timeout'
  | 'aborted'
  | 'tls'
  | 'connection'
  | 'protocol'
  | 'invalid_redirect'
  | 'client_closed'

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT'])

/** Which deadline or caller signal ended a request, if any; checked before the error's own code. */
export interface AbortState {
  isTotalTimeout: boolean
  isCallerAbort: boolean
}

/**
 * Converts an error thrown while connecting, sending or reading into `ProtocolError('outbound_failed')`.
 * `ProtocolError`s pass through unchanged (a body-cap or policy error raised mid-stream stays what it is).
 */
export function toOutboundFailure(error: unknown, state: AbortState, host: string): ProtocolError {
  if (error instanceof ProtocolError) return error
  const code = findCode(error)
  const reason = classifyFailure(code, state)
  return new ProtocolError('outbound_failed', `outbound request failed: ${reason}`, {
    details: { reason, host, ...(code === undefined ? {} : { code }) },
    cause: error,
  })
}

function classifyFailure(code: string | undefined, state: AbortState): OutboundFailureReason {
  if (state.isTotalTimeout) return 'total_timeout'
  if (state.isCallerAbort) return 'aborted'
  if (code === undefined) return 'connection'
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect_timeout'
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'total_timeout'
  if (CONNECT_CODES.has(code)) return 'connect'
  if (TLS_CODE.test(code)) return 'tls'
  if (code.startsWith('HPE_') || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'protocol'
  return 'connection'
}

/** The first string `code` on the error or its `cause` chain (undici wraps socket errors). */
function findCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR') return code
    current = (current as { cause?: unknown }).cause
  }
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
