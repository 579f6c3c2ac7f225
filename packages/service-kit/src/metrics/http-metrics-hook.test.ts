import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { observeEveryResponse } from './http-metrics-hook.js'

describe('observeEveryResponse', () => {
  it('observes the route pattern, method and status of every answer, and no route for an unmatched one', async () => {
    const app = Fastify()
    const seen: Array<[string | undefined, string, number]> = []
    let durations = 0
    observeEveryResponse(app, (route, method, statusCode, seconds) => {
      seen.push([route, method, statusCode])
      if (seconds >= 0) durations += 1
    })
    app.get('/things/:id', async (_request, reply) => reply.code(202).send({}))
    await app.inject({ method: 'GET', url: '/things/42?x=1' })
    await app.inject({ method: 'POST', url: '/nowhere' })
    await app.close()
    expect(seen).toEqual([
      ['/things/:id', 'GET', 202],
      [undefined, 'POST', 404],
    ])
    expect(durations).toBe(2)
  })
})
