import { describe, expect, it } from 'vitest'
import { CliError, EXIT } from '../exit-codes.js'
import { readErrorEnvelope, requestJson } from './http-json.js'

const io = (fetch: typeof globalThis.fetch) => ({ fetch, signal: new AbortController().signal })

describe('readErrorEnvelope', () => {
  it.each([
    [
      'the registry envelope',
      404,
      '{"error":{"code":"not_found","message":"no such context"}}',
      'not_found',
      'no such context',
    ],
    [
      'the control plane envelope',
      404,
      '{"statusCode":404,"errorCode":"RUN_NOT_FOUND","message":"run absent"}',
      'RUN_NOT_FOUND',
      'run absent',
    ],
    ['a policy denial', 403, '{"message":"denied","code":"POLICY_DENIED","reason":"x"}', 'POLICY_DENIED', 'denied'],
    ['an HTML page', 502, '<html>bad gateway</html>', 'http_502', 'unexpected body'],
    ['an empty body', 500, '', 'http_500', 'no body'],
    ['non-string members', 400, '{"error":{"code":7,"message":{}}}', 'http_400', 'unexpected body'],
  ])('reads %s', (_name, status, text, code, message) => {
    expect(readErrorEnvelope(status, text)).toEqual({ code, message })
  })

  it('flattens control characters and cuts long messages so the error stays one line', () => {
    const { message } = readErrorEnvelope(
      400,
      JSON.stringify({ error: { code: 'x', message: `a\nb\u001b[31m${'y'.repeat(400)}` } }),
    )
    expect(message.includes('\n') || message.includes('\u001b')).toBe(false)
    expect(message.length).toBeLessThanOrEqual(300)
  })
})

describe('requestJson', () => {
  it('returns the parsed body of a 2xx answer', async () => {
    const result = await requestJson(
      io(async () => Response.json({ ok: true })),
      'http://cp.test/runs',
    )
    expect(result).toMatchObject({ status: 200, body: { ok: true } })
  })

  it('turns an error answer into a CliError with the server code and exit 1', async () => {
    const failing = io(async () =>
      Response.json({ statusCode: 404, errorCode: 'RUN_NOT_FOUND', message: 'no run' }, { status: 404 }),
    )
    const error = await requestJson(failing, 'http://cp.test/runs/x').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(CliError)
    expect(error).toMatchObject({
      exitCode: EXIT.failure,
      code: 'RUN_NOT_FOUND',
      message: 'http://cp.test/runs/x answered 404 RUN_NOT_FOUND: no run',
    })
  })

  it('reports a refused connection as unreachable with exit 3', async () => {
    const refused = io(async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      })
    })
    await expect(requestJson(refused, 'http://127.0.0.1:9/runs')).rejects.toMatchObject({
      exitCode: EXIT.unreachable,
      code: 'unreachable',
      message: expect.stringContaining('ECONNREFUSED'),
    })
  })

  it('gives up at its deadline', async () => {
    const hanging = io(
      (_input, init) =>
        new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
    )
    await expect(requestJson(hanging, 'http://cp.test/runs', { timeoutMs: 20 })).rejects.toMatchObject({
      code: 'unreachable',
      message: expect.stringContaining('deadline'),
    })
  })

  it('refuses a 2xx answer that is not JSON', async () => {
    await expect(
      requestJson(
        io(async () => new Response('<html>')),
        'http://cp.test/runs',
      ),
    ).rejects.toMatchObject({ code: 'invalid_response' })
  })
})
