/**
 * Requests refused by Node's HTTP parser or by the router before any route runs still get the ACDP error
 * envelope (found by the HTTP fuzzer: Fastify's default answer is its own `{error, message, statusCode}` shape).
 */
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { useTestRegistry } from './support/registry-harness.js'

const start = useTestRegistry()

/** Writes `raw` to the listening registry and reads until the server closes. */
async function rawExchange(port: number, raw: string): Promise<{ status: number; head: string; body: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(raw))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.on('error', reject)
  })
  const [head = '', body = ''] = text.split('\r\n\r\n', 2)
  return { status: Number(head.slice(9, 12)), head, body }
}

async function listening(limits: { headers_timeout_seconds?: number; request_timeout_seconds?: number } = {}) {
  const registry = await start({ config: { limits } })
  await registry.app.listen({ host: '127.0.0.1', port: 0 })
  const address = registry.app.server.address()
  return typeof address === 'object' && address !== null ? address.port : 0
}

describe('parser-level refusals', () => {
  it('answers a malformed request line with 400 in the ACDP envelope and closes', async () => {
    const port = await listening()
    const answer = await rawExchange(port, 'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n')
    expect(answer.status).toBe(400)
    expect(answer.head).toMatch(/content-type: application\/acdp\+json/i)
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'schema_violation', message: 'The request is not valid HTTP/1.1.' },
    })
  })

  it('answers oversized headers with 431 in the ACDP envelope', async () => {
    const port = await listening()
    const answer = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(answer.status).toBe(431)
    expect(JSON.parse(answer.body).error.code).toBe('schema_violation')
  })

  it('answers conflicting framing headers with 400 in the ACDP envelope', async () => {
    const port = await listening()
    const answer = await rawExchange(
      port,
      'POST /contexts HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
    )
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).error.code).toBe('schema_violation')
  })
})

describe('slow senders', () => {
  it('closes a connection whose headers never finish with 408 in the envelope (slowloris)', async () => {
    const port = await listening({ headers_timeout_seconds: 1, request_timeout_seconds: 2 })
    const answer = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a')
    expect(answer.status).toBe(408)
    expect(JSON.parse(answer.body).error.code).toBe('schema_violation')
  })

  it('closes a connection whose body trickles past the request timeout with 408', async () => {
    const port = await listening({ headers_timeout_seconds: 1, request_timeout_seconds: 2 })
    const answer = await rawExchange(
      port,
      'POST /contexts HTTP/1.1\r\nHost: x\r\nContent-Type: application/acdp+json\r\nContent-Length: 100\r\n\r\n{"ver',
    )
    expect(answer.status).toBe(408)
  })
})
