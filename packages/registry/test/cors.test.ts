/**
 * CORS (`registry.cors.allowed_origins`) over real loopback sockets: preflights and actual requests, allowed and
 * refused origins, the wildcard, and no CORS surface at all when the list is empty.
 */
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  signRequest,
  type TestRegistry,
} from './support/registry-harness.js'

const APP_ORIGIN = 'https://app.example.com'

let registry: TestRegistry | undefined
afterEach(async () => {
  await registry?.close()
  registry = undefined
})

async function listen(allowedOrigins: string[]): Promise<{ r: TestRegistry; port: number }> {
  registry = await createTestRegistry({
    config: { registry: { authority: 'registry.example.com', cors: { allowed_origins: allowedOrigins } } },
  })
  await registry.app.listen({ port: 0, host: '127.0.0.1' })
  return { r: registry, port: (registry.app.server.address() as { port: number }).port }
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const preflight = (port: number, origin: string, method = 'POST', requestHeaders = 'content-type, authorization') =>
  send(port, 'OPTIONS', '/contexts', {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': requestHeaders,
  })

describe('CORS with an allowlist', () => {
  it('answers a preflight from an allowed origin with the methods, headers and max age', async () => {
    const { port } = await listen([APP_ORIGIN])
    const res = await preflight(port, APP_ORIGIN)
    expect(res.status).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST')
    const allowed = String(res.headers['access-control-allow-headers']).split(', ')
    expect(allowed).toEqual(expect.arrayContaining(['content-type', 'authorization', 'idempotency-key']))
    expect(res.headers['access-control-max-age']).toBe('600')
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
    expect(res.headers.vary).toContain('Origin')
  })

  it('gives no CORS grant to a preflight from another origin or for another method', async () => {
    const { port } = await listen([APP_ORIGIN])
    for (const res of [
      await preflight(port, 'https://evil.example.com'),
      await preflight(port, `${APP_ORIGIN}.evil.example`),
      await preflight(port, APP_ORIGIN, 'DELETE'),
    ]) {
      expect(res.status).toBe(204)
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
      expect(res.headers['access-control-allow-methods']).toBeUndefined()
    }
  })

  it('grants an actual request from an allowed origin, on success and on error, and exposes Location', async () => {
    const { r, port } = await listen([APP_ORIGIN])
    const p = didKeyProducer()
    const published = await send(
      port,
      'POST',
      '/contexts',
      { origin: APP_ORIGIN, 'content-type': 'application/acdp+json' },
      JSON.stringify(signRequest(p, minimalUnsigned(p))),
    )
    expect(published.status).toBe(201)
    expect(published.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
    expect(String(published.headers['access-control-expose-headers'])).toContain('location')
    expect(published.headers.vary).toContain('Origin')

    const missing = await send(port, 'GET', '/contexts/registry.example.com%2Fnot-a-uuid', { origin: APP_ORIGIN })
    expect(missing.status).toBeGreaterThanOrEqual(400)
    expect(missing.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
    expect(JSON.parse(missing.body).error.code).toEqual(expect.any(String))
    expect(r.config.registry.cors.allowed_origins).toEqual([APP_ORIGIN])
  })

  it('sends no grant to another origin but still Vary: Origin (a shared cache keeps them apart)', async () => {
    const { port } = await listen([APP_ORIGIN])
    const res = await send(port, 'GET', '/healthz', { origin: 'https://evil.example.com' })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
    expect(res.headers.vary).toContain('Origin')
  })

  it('keeps the Vary members a route sets (search varies on Authorization)', async () => {
    const { port } = await listen([APP_ORIGIN])
    const res = await send(port, 'GET', '/contexts/search', { origin: APP_ORIGIN })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
    const vary = String(res.headers.vary)
      .split(',')
      .map((v) => v.trim().toLowerCase())
    expect(vary).toEqual(['authorization', 'origin'])
  })

  it('answers a plain OPTIONS that is not a preflight like an unknown route', async () => {
    const { port } = await listen([APP_ORIGIN])
    const res = await send(port, 'OPTIONS', '/contexts', { origin: APP_ORIGIN })
    expect(res.status).toBe(404)
    expect(JSON.parse(res.body).error.code).toBe('not_found')
  })
})

describe('CORS wildcard and off', () => {
  it('grants any origin with * and no Vary: Origin', async () => {
    const { port } = await listen(['*'])
    const pre = await preflight(port, 'https://anyone.example.org', 'GET', 'authorization')
    expect(pre.headers['access-control-allow-origin']).toBe('*')
    const res = await send(port, 'GET', '/healthz', { origin: 'https://anyone.example.org' })
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(res.headers.vary).toBeUndefined()
  })

  it('has no CORS surface when the list is empty', async () => {
    const { port } = await listen([])
    const pre = await preflight(port, APP_ORIGIN)
    expect(pre.status).toBe(404)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
    const res = await send(port, 'GET', '/healthz', { origin: APP_ORIGIN })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
    expect(res.headers.vary).toBeUndefined()
  })
})
