import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { installErrorHandlers } from '../errors.js'
import { refuseNulInUrl } from './nul-in-url.js'

async function app() {
  const instance = Fastify()
  installErrorHandlers(instance)
  instance.addHook('onRequest', refuseNulInUrl)
  instance.get('/agents/*', async (request) => ({ did: (request.params as { '*': string })['*'] }))
  instance.get('/events', async (request) => request.query)
  await instance.ready()
  return instance
}

describe('refuseNulInUrl', () => {
  it.each(['/agents/%00', '/agents/did%3Aweb%3Ax/%00', '/events?runId=%00', '/events?runId=a%00b&limit=5'])(
    'answers 400 VALIDATION_ERROR in the envelope for %s',
    async (url) => {
      const instance = await app()
      const answer = await instance.inject({ method: 'GET', url })
      expect(answer.statusCode).toBe(400)
      expect(answer.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
      await instance.close()
    },
  )

  it('lets every other escape through, including an escaped percent followed by 00', async () => {
    const instance = await app()
    const answer = await instance.inject({ method: 'GET', url: '/events?runId=a%2500b%20c' })
    expect(answer.statusCode).toBe(200)
    expect(answer.json()).toEqual({ runId: 'a%00b c' })
    await instance.close()
  })
})
