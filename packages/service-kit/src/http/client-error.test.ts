import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { classifyClientError, createClientErrorHandler } from './client-error.js'

/** The part of a socket the handler touches, recording what it was told. */
function fakeSocket(state: { destroyed?: boolean; writable?: boolean } = {}) {
  const written: string[] = []
  const socket = {
    destroyed: state.destroyed ?? false,
    writable: state.writable ?? true,
    write: (chunk: string) => written.push(chunk),
    destroy() {
      this.destroyed = true
    },
  }
  return { socket: socket as unknown as Socket, written, isDestroyed: () => socket.destroyed }
}

describe('client error answers', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'Request Header Fields Too Large', 'header_overflow'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'Request Timeout', 'timeout'],
    ['HPE_INVALID_METHOD', 400, 'Bad Request', 'malformed'],
    [undefined, 400, 'Bad Request', 'malformed'],
  ])('classify %s as %i', (code, status, reason, kind) => {
    expect(classifyClientError(code === undefined ? {} : { code })).toEqual({ status, reason, kind })
  })

  it('write one complete response with the server envelope, then close', () => {
    const handler = createClientErrorHandler('application/test+json', ({ kind }) => ({ kind }))
    const { socket, written, isDestroyed } = fakeSocket()
    handler({ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, socket)
    expect(written).toEqual([
      'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/test+json\r\nContent-Length: 18\r\nConnection: close\r\n\r\n{"kind":"timeout"}',
    ])
    expect(isDestroyed()).toBe(true)
  })

  it('write nothing on a reset or unwritable connection', () => {
    const handler = createClientErrorHandler('application/json', () => ({}))
    const reset = fakeSocket()
    handler({ code: 'ECONNRESET' }, reset.socket)
    expect(reset.written).toEqual([])
    const closing = fakeSocket({ writable: false })
    handler({ code: 'HPE_INVALID_METHOD' }, closing.socket)
    expect(closing.written).toEqual([])
    expect(closing.isDestroyed()).toBe(true)
  })
})
