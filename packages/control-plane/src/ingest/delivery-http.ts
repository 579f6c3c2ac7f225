/**
 * HTTP shape shared by the HMAC routes (ingest and run notifications): their webhook headers, and their
 * error handling, which differs from the rest of the API in one way fixed by the product spec: an oversized
 * body is a 400 (the registry treats every non-429 4xx as permanent, so the status class is what matters).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ControlPlaneError, type ErrorCode, sendError, toControlPlaneError } from '../core/errors.js'
import type { ControlPlaneMetrics } from '../core/metrics.js'
import type { DeliveryHeaders } from './registry-delivery.js'

/** One header value; a repeated header is treated as absent (and then fails whatever check needs it). */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** Reads the webhook headers of a delivery. All values are attacker-controlled. */
export function readDeliveryHeaders(request: FastifyRequest): DeliveryHeaders {
  return {
    signature: single(request.headers['x-acdp-signature']),
    timestamp: single(request.headers['x-acdp-timestamp']),
    signatureTimestamped: single(request.headers['x-acdp-signature-timestamped']),
    signatureV2: single(request.headers['x-acdp-signature-v2']),
    tenantId: request.headers['x-tenant-id'],
    // Read on every HMAC route, not only ingest: V2 covers them as received wherever it is verified.
    eventId: readSingleHeader(request, 'x-acdp-event-id'),
    runId: readSingleHeader(request, 'x-run-id'),
  }
}

/** Reads a single-valued header; a repeated one is a 400. */
export function readSingleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  if (Array.isArray(value)) throw new ControlPlaneError('VALIDATION_ERROR', `${name} must be sent once`)
  return value
}

/** errorCode → `acdp_ingest_rejected_total{reason}` (a closed, low-cardinality set). */
const REJECTION_REASONS: Partial<Record<ErrorCode, string>> = {
  INVALID_PAYLOAD: 'malformed',
  UNSUPPORTED_MEDIA_TYPE: 'malformed',
  PAYLOAD_TOO_LARGE: 'too_large',
  VALIDATION_ERROR: 'validation',
  CONTEXT_TYPE_NOT_ACCEPTED: 'pack_gate',
  INVALID_SIGNATURE: 'signature',
  REGISTRY_NOT_ENROLLED: 'not_enrolled',
  REGISTRY_DISABLED: 'registry_disabled',
  AUTHORITY_MISMATCH: 'authority_mismatch',
  TENANT_RESERVED: 'tenant',
  TENANT_MISMATCH: 'tenant',
  TENANT_REQUIRED: 'tenant',
  TENANT_HEADER_UNTRUSTED: 'tenant',
}

/**
 * Route-level error handler of the HMAC routes: renders the envelope like the root handler, answers an
 * oversized body with 400, and (for ingest) counts each refusal by reason.
 */
export function createDeliveryErrorHandler(metrics?: ControlPlaneMetrics) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let mapped = toControlPlaneError(error)
    if (mapped.code === 'PAYLOAD_TOO_LARGE') {
      mapped = new ControlPlaneError('PAYLOAD_TOO_LARGE', 'the body exceeds the ingest size limit', {
        status: 400,
        cause: error,
      })
    }
    const reason = REJECTION_REASONS[mapped.code]
    if (metrics !== undefined && reason !== undefined) metrics.recordIngestRejected(reason)
    if (mapped.statusCode >= 500)
      request.log.error({ err: mapped.cause ?? mapped, errorCode: mapped.code }, 'delivery failed')
    else request.log.debug({ errorCode: mapped.code }, 'delivery rejected')
    return sendError(reply, mapped)
  }
}
