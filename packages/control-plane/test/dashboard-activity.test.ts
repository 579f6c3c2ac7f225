/**
 * GET /dashboard/activity over HTTP, on every dialect: one zero-filled bucket per display slot of the window,
 * counts from the ingest rollups, window and tenant scoping, validation.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { ACTIVITY_BUCKET_MS } from '../src/dashboard/dashboard-activity.js'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const HOUR = 3_600_000

async function activity(t: TestApp, query = '') {
  return t.app.inject({ method: 'GET', url: `/dashboard/activity${query}`, headers: bearer(USER_KEY) })
}

async function ingest(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  expect((await t.app.inject(signedDelivery(body, { headers }))).statusCode).toBe(204)
}

type Bucket = { start: string; eventCount: number; publishCount: number }

describe.each(testDatabaseTargets())('dashboard activity on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it.each([
    { window: '1h', buckets: 12 },
    { window: '6h', buckets: 12 },
    { window: '24h', buckets: 24 },
    { window: '7d', buckets: 28 },
    { window: '30d', buckets: 30 },
  ] as const)('$window has $buckets zero-filled buckets, oldest first, the last containing now', async (row) => {
    t = await openTestApp(target)
    const res = await activity(t, `?window=${row.window}`)
    expect(res.statusCode).toBe(200)
    const body = res.json() as { window: string; bucketMs: number; buckets: Bucket[] }
    expect(body.window).toBe(row.window)
    expect(body.bucketMs).toBe(ACTIVITY_BUCKET_MS[row.window])
    expect(body.buckets).toHaveLength(row.buckets)
    expect(body.buckets.every((b) => b.eventCount === 0 && b.publishCount === 0)).toBe(true)
    const last = Date.parse(body.buckets.at(-1)!.start)
    expect(last).toBeLessThanOrEqual(T0)
    expect(T0 - last).toBeLessThan(body.bucketMs)
    const starts = body.buckets.map((b) => Date.parse(b.start))
    expect(starts.every((s, i) => i === 0 || s - starts[i - 1]! === body.bucketMs)).toBe(true)
  })

  it('counts events and publications in the bucket they were received in, per tenant, inside the window', async () => {
    t = await openTestApp(target)
    await ingest(t, publishedEvent()) // 30 hours before "now": outside 24h
    t.advance(28 * HOUR)
    await ingest(t, publishedEvent())
    await ingest(t, retrievedEvent())
    t.advance(2 * HOUR)
    await ingest(t, publishedEvent())
    await ingest(t, publishedEvent(), { 'x-tenant-id': 'other' })

    const body = (await activity(t, '?window=24h')).json() as { buckets: Bucket[] }
    const totals = body.buckets.reduce(
      (sum, b) => ({ events: sum.events + b.eventCount, publishes: sum.publishes + b.publishCount }),
      { events: 0, publishes: 0 },
    )
    expect(totals).toEqual({ events: 3, publishes: 2 })
    expect(body.buckets.at(-1)).toMatchObject({ eventCount: 1, publishCount: 1 })
    expect(body.buckets.at(-3)).toMatchObject({ eventCount: 2, publishCount: 1 })

    const wide = (await activity(t, '?window=7d')).json() as { buckets: Bucket[] }
    expect(wide.buckets.reduce((sum, b) => sum + b.eventCount, 0)).toBe(4)
  })

  it('refuses an unknown window with 400 VALIDATION_ERROR and a missing key with 401', async () => {
    t = await openTestApp(target)
    const bad = await activity(t, '?window=2h')
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
    const anonymous = await t.app.inject({ method: 'GET', url: '/dashboard/activity' })
    expect(anonymous.statusCode).toBe(401)
  })
})
