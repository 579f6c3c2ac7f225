/**
 * HEAD on a stream route answers the stream's headers and finishes instead of opening a stream that sends
 * nothing (found by the HTTP fuzzer: the connection stayed open, holding a stream slot, until the client left).
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const [sqlite] = testDatabaseTargets()
let current: TestApp | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe('HEAD on stream routes', () => {
  it.each(['/events/stream', '/runs/run-1/events/stream'])(
    'HEAD %s answers 200 with the stream headers',
    async (url) => {
      current = await openTestApp(sqlite as NonNullable<typeof sqlite>)
      const answer = await current.app.inject({ method: 'HEAD', url, headers: bearer(USER_KEY) })
      expect(answer.statusCode).toBe(200)
      expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8')
      expect(answer.body).toBe('')
    },
  )

  it('still refuses a bad Last-Event-ID on HEAD', async () => {
    current = await openTestApp(sqlite as NonNullable<typeof sqlite>)
    const answer = await current.app.inject({
      method: 'HEAD',
      url: '/events/stream',
      headers: { ...bearer(USER_KEY), 'last-event-id': 'not-an-id' },
    })
    expect(answer.statusCode).toBe(400)
  })
})
