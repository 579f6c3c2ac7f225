/**
 * The body-contract cases both services' JSON body parsers must pass (http/json-body.ts of each): generic clients
 * send `Content-Type: application/json` (ACDP clients `application/acdp+json`) on bodiless calls too, so an empty
 * body is absent unless the route requires one, and a body where the route takes none is refused.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'

export interface BodyParserUnderTest {
  /** Installs the service's parser and error handling on a bare app. */
  install(app: FastifyInstance): void
  /** The exact body text the parser kept on the request, or null. */
  rawOf(request: FastifyRequest): string | null
  /** The service's current answer to an empty body on a route that requires one. */
  emptyRequired: unknown
  /** The service's answer to a body sent where the route takes none. */
  refusedBody(method: string, url: string): unknown
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/acdp+json; charset=UTF-8']

export function describeBodyContracts(name: string, parser: BodyParserUnderTest): void {
  const apps: FastifyInstance[] = []
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()))
  })

  /** One route per contract; each answers what it received, so "absent" is observable. */
  async function contractApp(): Promise<FastifyInstance> {
    const app = Fastify()
    apps.push(app)
    parser.install(app)
    const echo = async (request: FastifyRequest) => ({
      absent: request.body === undefined,
      body: request.body ?? null,
      raw: parser.rawOf(request),
    })
    app.delete('/none', echo)
    app.post('/none', echo)
    app.post('/optional', { config: { body: 'optional' } }, echo)
    app.post('/required', { schema: { body: { type: 'object' } } }, echo)
    app.post('/declared-required', { config: { body: 'required' } }, echo)
    await app.ready()
    return app
  }

  describe(name, () => {
    it.each(JSON_TYPES)(
      'treats an empty %s body as absent where the route takes none or an optional one',
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
        expect([url, res.statusCode, res.json()]).toEqual([url, 400, parser.emptyRequired])
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
        expect([method, res.statusCode, res.json()]).toEqual([method, 400, parser.refusedBody(method, '/none')])
      }
    })

    it('leaves an unrouted request with a body to the not-found handler (404, not a body refusal)', async () => {
      const app = await contractApp()
      const res = await app.inject({
        method: 'POST',
        url: '/nowhere',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      })
      expect(res.statusCode).toBe(404)
    })

    it('parses a body sent to optional and required routes, keeping the exact text', async () => {
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
}
