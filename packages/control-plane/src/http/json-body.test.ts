/**
 * The body parser's contract handling: generic clients send `Content-Type: application/json` (and ACDP clients
 * `application/acdp+json`) on bodiless calls too, so an empty body is absent unless the route requires one.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { installErrorHandlers } from '../errors.js'
import { installJsonBodyParser } from './json-body.js'

const apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

/** One route per contract; each answers what it received, so "absent" is observable as `undefined`. */
async function contractApp(): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  installErrorHandlers(app)
  installJsonBodyParser(app, { maxDepth: 8 })
  const echo = async (request: { body: unknown; rawBody: Buffer | undefined }) => ({
    absent: request.body === undefined,
    body: request.body ?? null,
    raw: request.rawBody?.toString('utf8') ?? null,
  })
  app.delete('/none', echo)
  app.post('/none', echo)
  app.post('/optional', { config: { body: 'optional' } }, echo)
  app.post('/required', { schema: { body: { type: 'object' } } }, echo)
  app.post('/declared-required', { config: { body: 'required' } }, echo)
  await app.ready()
  return app
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/acdp+json; charset=UTF-8']

describe('control-plane JSON body parser', () => {
  it.each(JSON_TYPES)(
    'treats an empty %s body as absent on DELETE and on routes that take none or an optional one',
    async (type) => {
      const app = await contractApp()
      for (const [method, url] of [
        ['DELETE', '/none'],
        ['POST', '/none'],
        ['POST', '/optional'],
      ] as const) {
        const res = await app.inject({ method, url, headers: { 'content-type': type, 'content-length': '0' } })
        expect([method, url, res.statusCode, res.json()]).toEqual([
          method,
          url,
          200,
          { absent: true, body: null, raw: null },
        ])
      }
    },
  )

  it('still refuses an empty body where the route requires one, with the current error', async () => {
    const app = await contractApp()
    for (const url of ['/required', '/declared-required']) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '',
      })
      expect([url, res.statusCode, res.json()]).toEqual([
        url,
        400,
        { statusCode: 400, errorCode: 'INVALID_PAYLOAD', message: 'the body is empty' },
      ])
    }
  })

  it('refuses a non-empty body on a route that takes none, in the envelope', async () => {
    const app = await contractApp()
    for (const method of ['DELETE', 'POST'] as const) {
      const res = await app.inject({
        method,
        url: '/none',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      })
      expect([method, res.statusCode, res.json()]).toEqual([
        method,
        400,
        { statusCode: 400, errorCode: 'INVALID_PAYLOAD', message: `${method} /none takes no request body` },
      ])
    }
  })

  it('parses a body sent to optional and required routes, keeping the raw bytes', async () => {
    const app = await contractApp()
    for (const url of ['/optional', '/required', '/declared-required']) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/acdp+json' },
        payload: '{"a":1}',
      })
      expect([url, res.statusCode, res.json()]).toEqual([url, 200, { absent: false, body: { a: 1 }, raw: '{"a":1}' }])
    }
  })
})
