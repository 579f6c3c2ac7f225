/**
 * The control plane's answer to requests Node's HTTP parser refuses before Fastify sees them: its
 * `{ statusCode, errorCode, message }` envelope, written on the socket by the service kit's handler, then the
 * connection is closed.
 */
import { type ClientErrorAnswer, createClientErrorHandler } from '@acdp/service-kit'
import type { ErrorEnvelope } from '../errors.js'

const ENVELOPES: Record<ClientErrorAnswer['kind'], ErrorEnvelope> = {
  header_overflow: { statusCode: 431, errorCode: 'VALIDATION_ERROR', message: 'request headers are too large' },
  timeout: { statusCode: 408, errorCode: 'INVALID_PAYLOAD', message: 'request not received in time' },
  malformed: { statusCode: 400, errorCode: 'INVALID_PAYLOAD', message: 'request is not valid HTTP/1.1' },
}

/** Fastify `clientErrorHandler`. */
export const answerClientError = createClientErrorHandler(
  'application/json; charset=utf-8',
  ({ kind }) => ENVELOPES[kind],
)
