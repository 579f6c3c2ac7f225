/**
 * The registry's answer to requests Node's HTTP parser refuses before Fastify sees them: the ACDP error envelope
 * (`schema_violation`), written on the socket by the service kit's handler, then the connection is closed.
 */
import { type ClientErrorAnswer, createClientErrorHandler } from '@acdp/service-kit'

const MESSAGES: Record<ClientErrorAnswer['kind'], string> = {
  header_overflow: 'The request headers are too large.',
  timeout: 'The request was not received in time.',
  malformed: 'The request is not valid HTTP/1.1.',
}

/** Fastify `clientErrorHandler`. */
export const answerClientError = createClientErrorHandler('application/acdp+json', ({ kind }) => ({
  error: { code: 'schema_violation', message: MESSAGES[kind] },
}))
