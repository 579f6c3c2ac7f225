/**
 * The webhook feature uses the outbound client given in deps (tests and the fuzzer keep DNS and deliveries on
 * the machine with it): subscription URLs are checked through its resolver, never the system's.
 */
import { createOutboundClient } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const [sqlite] = testDatabaseTargets()
let current: TestApp | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe('deps.outbound', () => {
  it('checks subscription URLs through the injected client', async () => {
    const asked: string[] = []
    const outbound = createOutboundClient({
      allowCidrs: ['127.0.0.1/32'],
      lookup: async (hostname) => {
        asked.push(hostname)
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    current = await openTestApp(sqlite as NonNullable<typeof sqlite>, {}, { outbound })
    const created = await current.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: bearer(USER_KEY),
      payload: { url: 'https://hooks.injected.test/acdp' },
    })
    expect(created.statusCode).toBe(201)
    expect(asked).toEqual(['hooks.injected.test'])
    await outbound.close()
  })
})
