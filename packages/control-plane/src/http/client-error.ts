/**
 * Answers for requests Node's HTTP parser refuses before Fastify sees them (malformed request line or headers,
 * headers past the size limit, a request not received in time): Fastify's default answer is its own JSON shape,
 * so the control plane writes its `{ statusCode, errorCode, message }` envelope on the socket itself, then
 * closes the connection.
 */
import type { Socket } from 'node:net'
import type { ErrorEnvelope } from '../errors.js'

interface ParserError {
  code?: string
}

/** Status line and envelope of a parser-level refusal. */
export function describeClientError(error: ParserError): { reason: string; envelope: ErrorEnvelope } {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      reason: 'Request Header Fields Too Large',
      envelope: { statusCode: 431, errorCode: 'VALIDATION_ERROR', message: 'request headers are too large' },
    }
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      reason: 'Request Timeout',
      envelope: { statusCode: 408, errorCode: 'INVALID_PAYLOAD', message: 'request not received in time' },
    }
  }
  return {
    reason: 'Bad Request',
    envelope: { statusCode: 400, errorCode: 'INVALID_PAYLOAD', message: 'request is not valid HTTP/1.1' },
  }
}

/** Fastify `clientErrorHandler`: one envelope answer (when the socket can still take it), then close. */
export function answerClientError(error: ParserError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const { reason, envelope } = describeClientError(error)
  if (socket.writable) {
    const body = JSON.stringify(envelope)
    socket.write(
      `HTTP/1.1 ${envelope.statusCode} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}
