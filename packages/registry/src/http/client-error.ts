/**
 * Answers for requests Node's HTTP parser refuses before Fastify sees them (malformed request line or headers,
 * headers past the size limit, a request not received in time): Fastify's default answer is its own JSON shape,
 * so the registry writes the ACDP error envelope on the socket itself, then closes the connection.
 */
import type { Socket } from 'node:net'

interface ParserError {
  code?: string
}

/** Status and message of a parser-level refusal. */
export function describeClientError(error: ParserError): { status: number; reason: string; message: string } {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large.' }
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, reason: 'Request Timeout', message: 'The request was not received in time.' }
  }
  return { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP/1.1.' }
}

/** Fastify `clientErrorHandler`: one envelope answer (when the socket can still take it), then close. */
export function answerClientError(error: ParserError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const { status, reason, message } = describeClientError(error)
  if (socket.writable) {
    const body = JSON.stringify({ error: { code: 'schema_violation', message } })
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/acdp+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}
