/**
 * Log volume: the control plane writes no access line (Fastify's request logging is off; failures are logged
 * at debug by the error handler), so N requests of any outcome add no info line at all.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { createRecordingLogger } from '../../../test/support/recording-logger.js'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const N = 12
const [sqlite] = testDatabaseTargets()

describe('access log', () => {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
  })

  it('adds no info line for N requests, answered 200, 401 or 404', async () => {
    const recording = createRecordingLogger()
    t = await openTestApp(sqlite!, {}, { logger: recording.logger })
    const before = recording.atOrAbove('info').length
    const statuses: number[] = []
    for (let i = 0; i < N / 3; i++) {
      statuses.push((await t.app.inject({ url: '/runs', headers: bearer(USER_KEY) })).statusCode)
      statuses.push((await t.app.inject({ url: '/runs', headers: bearer('not-a-key') })).statusCode)
      statuses.push((await t.app.inject({ url: '/runs/no-such-run', headers: bearer(USER_KEY) })).statusCode)
    }
    expect(new Set(statuses)).toEqual(new Set([200, 401, 404]))
    expect(recording.atOrAbove('info').slice(before)).toEqual([])
    // The refusals are still there for whoever runs at debug.
    expect(recording.lines.slice(before).filter((line) => line.level === 'debug').length).toBeGreaterThan(0)
  })
})
