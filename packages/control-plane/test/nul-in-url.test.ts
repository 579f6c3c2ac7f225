/**
 * An encoded NUL in a path or query parameter is a 400 in the envelope on every dialect: PostgreSQL refuses
 * U+0000 in a text parameter, so before the onRequest check these answered 500 there (found by the HTTP fuzzer).
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

describe.each(testDatabaseTargets())('NUL in the URL on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t?.close()
  })

  it.each([
    ['GET', '/agents/%00?limit=5'],
    ['HEAD', '/events?runId=%00&limit=5'],
    ['GET', '/runs/%00/events'],
    ['GET', '/capabilities/by-agent/did%3Aweb%3Abob.agents.test/%00'],
    ['GET', '/capabilities/search?capability=urn%3Aacdp%3Acap%3Aa%00'],
  ] as const)('%s %s answers 400 VALIDATION_ERROR', async (method, url) => {
    t = await openTestApp(target)
    const answer = await t.app.inject({ method, url, headers: bearer(USER_KEY) })
    expect(answer.statusCode).toBe(400)
    if (method === 'GET') expect(answer.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
  })
})
