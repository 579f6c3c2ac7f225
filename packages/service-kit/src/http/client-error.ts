/**
 * Answers for requests Node's HTTP parser refuses before Fastify sees them (malformed request line or headers,
 * headers past the size limit, a request not received in time). Fastify's default answer is its own JSON shape,
 * so each server writes its own error envelope on the socket itself, then closes the connection.
 */
import type { Socket } from 'node:net'

/** What Node's parser reports (`error.code`), as far as the answer depends on it. */
export interface ParserError {
  code?: string
}

/** A parser-level refusal: status line, and which of the three cases it is (each server words its envelope). */
export interface ClientErrorAnswer {
  status: 400 | 408 | 431
  reason: string
  kind: 'header_overflow' | 'timeout' | 'malformed'
}

/** Status line of a parser-level refusal. */
export function classifyClientError(error: ParserError): ClientErrorAnswer {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', kind: 'header_overflow' }
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', kind: 'timeout' }
  return { status: 400, reason: 'Bad Request', kind: 'malformed' }
}

/**
 * A Fastify `clientErrorHandler`: one answer with the body `envelopeOf` gives (when the socket can still take it),
 * then close. A connection the client reset gets nothing.
 */
export function createClientErrorHandler(
  contentType: string,
  envelopeOf: (answer: ClientErrorAnswer) => unknown,
): (error: ParserError, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const answer = classifyClientError(error)
    if (socket.writable) {
      const body = JSON.stringify(envelopeOf(answer))
      socket.write(
        `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      )
    }
    socket.destroy()
  }
}
