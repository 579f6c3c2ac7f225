/**
 * GET /registries/:authority/health against loopback HTTPS registries (test CA), on every dialect: a registry
 * whose readiness probe answers 503 (failing), one that does not serve /readyz (not_served), an unreachable base
 * URL, a body too large to keep, another tenant's authority (404), and the SSRF policy refusing a loopback
 * address before any connection. The real registry's probes are asked in test/e2e/registry-health.test.ts.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { OutboundClient } from '@acdp/protocol'
import { type HttpsUpstream, startHttpsUpstream } from './support/https-upstream.js'
import { ADMIN_KEY, bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const user = { ...bearer(USER_KEY), 'x-tenant-id': 'acme' }

describe.each(testDatabaseTargets())('registry health on $name', (target) => {
  let upstream: HttpsUpstream
  let t: TestApp

  beforeAll(async () => {
    upstream = await startHttpsUpstream(['reg-a.test', 'reg-b.test'])
  })
  afterAll(async () => {
    await upstream.close()
  })
  beforeEach(() => {
    upstream.seen.length = 0
    upstream.handle((path) => {
      if (path === '/healthz') {
        return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"ok","storage":true}' }
      }
      if (path === '/readyz') {
        return { status: 503, headers: { 'content-type': 'application/json' }, body: '{"status":"degraded"}' }
      }
      return { status: 404 }
    })
  })
  afterEach(async () => {
    await t?.close()
  })

  async function open(outbound: OutboundClient, enrollments: Array<[string, string, string]>): Promise<void> {
    t = await openTestApp(target, {}, { outbound })
    for (const [authority, tenantId, baseUrl] of enrollments) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/registries/enroll',
        headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': tenantId },
        payload: { authority, baseUrl },
      })
      expect(res.statusCode).toBe(200)
    }
  }
  const health = (authority: string, headers = user) =>
    t.app.inject({ method: 'GET', url: `/registries/${authority}/health`, headers })

  it('reports a registry whose /healthz answers 200 and /readyz 503 as ok and failing, bodies parsed', async () => {
    await open(upstream.client(), [['reg-a.test', 'acme', upstream.origin('reg-a.test')]])
    const res = await health('reg-a.test')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      authority: 'reg-a.test',
      health: { status: 'ok', httpStatus: 200, body: { status: 'ok', storage: true }, error: null },
      readiness: { status: 'failing', httpStatus: 503, body: { status: 'degraded' }, error: null },
      checkedAt: new Date(t.deps.clock()).toISOString(),
    })
    expect(upstream.seen.map((s) => s.path).sort()).toEqual(['/healthz', '/readyz'])
  })

  it('shares one answer per tenant and authority for 5 s, then asks again', async () => {
    await open(upstream.client(), [['reg-a.test', 'acme', upstream.origin('reg-a.test')]])
    const [first, second] = await Promise.all([health('reg-a.test'), health('reg-a.test')])
    expect(second.json()).toEqual(first.json())
    expect((await health('reg-a.test')).json()).toEqual(first.json())
    expect(upstream.seen).toHaveLength(2)
    t.advance(5000)
    const later = (await health('reg-a.test')).json()
    expect(later.checkedAt).toBe(new Date(t.deps.clock()).toISOString())
    expect(upstream.seen).toHaveLength(4)
  })

  it('drops a body that is not a small JSON object, and names a probe the registry does not serve', async () => {
    upstream.handle((path) =>
      path === '/healthz'
        ? {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ pad: 'x'.repeat(5000) }),
          }
        : { status: 404, body: 'not here' },
    )
    await open(upstream.client(), [['reg-a.test', 'acme', upstream.origin('reg-a.test')]])
    const body = (await health('reg-a.test')).json()
    expect(body.health).toEqual({ status: 'ok', httpStatus: 200, body: null, error: null })
    expect(body.readiness).toEqual({ status: 'not_served', httpStatus: 404, body: null, error: null })
  })

  it('reports an unreachable base URL as unreachable on both probes, the request itself succeeding', async () => {
    // A port nothing listens on: the connection is refused.
    await open(upstream.client(), [['reg-a.test', 'acme', 'https://reg-a.test:1']])
    const res = await health('reg-a.test')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    for (const probe of [body.health, body.readiness]) {
      expect(probe).toMatchObject({ status: 'unreachable', httpStatus: null, body: null })
      expect(typeof probe.error).toBe('string')
    }
  })

  it("answers 404 in the envelope for another tenant's registry and for an unknown one, asking nothing", async () => {
    await open(upstream.client(), [['reg-b.test', 'other', upstream.origin('reg-b.test')]])
    for (const authority of ['reg-b.test', 'nowhere.test']) {
      const res = await health(authority)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ statusCode: 404, errorCode: 'REGISTRY_NOT_FOUND' })
    }
    expect(upstream.seen).toEqual([])
    // The owner's tenant sees it.
    expect((await health('reg-b.test', { ...bearer(USER_KEY), 'x-tenant-id': 'other' })).statusCode).toBe(200)
  })

  it('refuses a loopback address under the outbound policy before any connection', async () => {
    await open(upstream.client({ allowLoopback: false }), [['reg-a.test', 'acme', upstream.origin('reg-a.test')]])
    const body = (await health('reg-a.test')).json()
    expect(body.health).toEqual({ status: 'unreachable', httpStatus: null, body: null, error: 'loopback' })
    expect(body.readiness).toEqual({ status: 'unreachable', httpStatus: null, body: null, error: 'loopback' })
    expect(upstream.seen).toEqual([])
  })

  it('refuses a malformed authority with the validation envelope', async () => {
    await open(upstream.client(), [])
    const res = await health('bad%20authority')
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
  })
})
