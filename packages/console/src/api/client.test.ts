/** The API client's request shape and error mapping (control-plane envelope, relayed registry envelope, network). */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiClient, ApiError, withQuery } from './client.js'

describe('ApiClient', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('sends the key as a bearer credential and JSON bodies with their content type', async () => {
    const seen: Array<[string, RequestInit]> = []
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      seen.push([url, init])
      return new Response('{"ok":true}', { status: 200 })
    })
    const client = new ApiClient('key-0123456789')
    expect(await client.post('/registries/enroll', { authority: 'a.example' })).toEqual({ ok: true })
    const [url, init] = seen[0]!
    expect(url).toBe('/registries/enroll')
    expect(init.method).toBe('POST')
    expect(init.headers).toMatchObject({ authorization: 'Bearer key-0123456789', 'content-type': 'application/json' })
    expect(init.body).toBe('{"authority":"a.example"}')
  })

  it.each([
    {
      name: 'control-plane envelope',
      status: 403,
      body: '{"statusCode":403,"errorCode":"ADMIN_REQUIRED","message":"admin key required"}',
      code: 'ADMIN_REQUIRED',
    },
    {
      name: 'registry envelope relayed by the proxy',
      status: 404,
      body: '{"error":{"code":"not_found","message":"no such context"}}',
      code: 'not_found',
    },
    { name: 'non-JSON answer', status: 502, body: '<html>bad gateway</html>', code: 'HTTP_502' },
  ])('turns a $name into an ApiError', async ({ status, body, code }) => {
    vi.stubGlobal('fetch', async () => new Response(body, { status }))
    const error = await new ApiClient('k').get('/x').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ statusCode: status, errorCode: code })
    expect((error as ApiError).isNotFound).toBe(status === 404)
  })

  it('reports an unreachable server as NETWORK_ERROR', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch')
    })
    await expect(new ApiClient('k').get('/x')).rejects.toMatchObject({ statusCode: 0, errorCode: 'NETWORK_ERROR' })
  })

  it('builds query strings without empty values', () => {
    expect(withQuery('/runs', { status: 'failed', scenarioId: '', limit: 25, offset: undefined })).toBe(
      '/runs?status=failed&limit=25',
    )
    expect(withQuery('/runs')).toBe('/runs')
  })
})
