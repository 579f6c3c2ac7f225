/**
 * Requests refused by Node's HTTP parser or by the router before any route runs still get the control plane's
 * `{ statusCode, errorCode, message }` envelope (found by the HTTP fuzzer: Fastify's defaults answer in their
 * own shape).
 */
import { connect } from 'node:net'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { openTestApp, type TestApp } from './support/test-app.js'

const [sqlite] = testDatabaseTargets()
let current: TestApp | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

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

async function listening(env: Record<string, string> = {}): Promise<number> {
  current = await openTestApp(sqlite as NonNullable<typeof sqlite>, env)
  await current.app.listen({ host: '127.0.0.1', port: 0 })
  const address = current.app.server.address()
  return typeof address === 'object' && address !== null ? address.port : 0
}

describe('refusals before any route runs', () => {
  it('answers a malformed request line with 400 INVALID_PAYLOAD and closes', async () => {
    const port = await listening()
    const answer = await rawExchange(port, 'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n')
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({
      statusCode: 400,
      errorCode: 'INVALID_PAYLOAD',
      message: 'request is not valid HTTP/1.1',
    })
  })

  it('answers oversized headers with 431 in the envelope', async () => {
    const port = await listening()
    const answer = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(answer.status).toBe(431)
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 431, errorCode: 'VALIDATION_ERROR' })
  })

  it('answers a URL with a broken percent-escape with 400 VALIDATION_ERROR in the envelope', async () => {
    current = await openTestApp(sqlite as NonNullable<typeof sqlite>)
    const answer = await current.app.inject({ method: 'GET', url: '/healthz/%zz' })
    expect(answer.statusCode).toBe(400)
    expect(answer.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
  })
})

describe('slow senders', () => {
  const fast = { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' }

  it('closes a connection whose headers never finish with 408 in the envelope (slowloris)', async () => {
    const port = await listening(fast)
    const answer = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a')
    expect(answer.status).toBe(408)
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 408, errorCode: 'INVALID_PAYLOAD' })
  })

  it('closes a connection whose body trickles past the request timeout with 408', async () => {
    const port = await listening(fast)
    const answer = await rawExchange(
      port,
      'POST /ingest/acdp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ev',
    )
    expect(answer.status).toBe(408)
  })
})
