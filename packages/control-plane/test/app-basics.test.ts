/**
 * Skeleton behaviour over HTTP: probes, the error envelope, authentication and tenant resolution.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { ADMIN_KEY, bearer, openTestApp, TENANT_KEY, type TestApp, USER_KEY } from './support/test-app.js'

const ENVELOPE = { statusCode: expect.any(Number), errorCode: expect.any(String), message: expect.any(String) }

/** Test-only routes exposing the resolved principal and tenant. */
function addProbeRoutes(app: TestApp['app']): void {
  app.get('/test/whoami', async (request) => ({ tenant: request.tenantId, kind: request.principal?.kind }))
  app.get('/test/admin', { config: { auth: 'admin' } }, async () => ({ ok: true }))
  app.get('/test/boom', { config: { auth: 'public' } }, async () => {
    throw new Error('SELECT secret FROM somewhere failed')
  })
}

describe.each(testDatabaseTargets())('app basics on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('GET /healthz reports service, version and a live database', async () => {
    t = await openTestApp(target)
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true, service: 'acdp-control-plane', version: expect.any(String) })
  })

  it('GET /readyz is 200 with database ok, then 503 SERVICE_DRAINING once draining', async () => {
    t = await openTestApp(target)
    const ok = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ ok: true, database: 'ok' })
    t.app.readiness.startDraining()
    const draining = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(draining.statusCode).toBe(503)
    expect(draining.json()).toMatchObject({ ...ENVELOPE, statusCode: 503, errorCode: 'SERVICE_DRAINING', ok: false })
  })

  it('probes answer 503 DEPENDENCY_UNAVAILABLE when the database does not answer', async () => {
    t = await openTestApp(target)
    const ping = t.store.ping
    t.store.ping = async () => {
      throw new Error('connection refused')
    }
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(503)
    expect(ready.json()).toMatchObject({
      statusCode: 503,
      errorCode: 'DEPENDENCY_UNAVAILABLE',
      ok: false,
      database: 'unhealthy',
    })
    const health = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({
      errorCode: 'DEPENDENCY_UNAVAILABLE',
      ok: false,
      service: 'acdp-control-plane',
    })
    t.store.ping = ping
  })

  it('unknown routes answer 404 in the envelope', async () => {
    t = await openTestApp(target)
    const res = await t.app.inject({ method: 'GET', url: '/no/such/route' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ statusCode: 404, errorCode: 'NOT_FOUND', message: expect.any(String) })
  })

  it('unexpected failures answer 500 INTERNAL_ERROR without internal detail', async () => {
    t = await openTestApp(target, {}, {}, addProbeRoutes)
    const res = await t.app.inject({ method: 'GET', url: '/test/boom' })
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ statusCode: 500, errorCode: 'INTERNAL_ERROR', message: 'internal error' })
    expect(res.body).not.toContain('SELECT')
  })

  it.each([
    ['no Authorization header', {}],
    ['an unknown key', bearer('not-a-configured-key')],
    ['a key without the Bearer scheme', { authorization: USER_KEY }],
    ['a JWT-shaped credential (no JWT verifier: never falls back to keys)', bearer('a.b.c')],
  ])('refuses %s with 401 UNAUTHORIZED and a Bearer challenge', async (_name, headers) => {
    t = await openTestApp(target, {}, {}, addProbeRoutes)
    const res = await t.app.inject({ method: 'GET', url: '/test/whoami', headers })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ statusCode: 401, errorCode: 'UNAUTHORIZED', message: expect.any(String) })
    expect(res.headers['www-authenticate']).toBe('Bearer')
  })

  it('accepts a user key and resolves the default tenant, or the asserted one', async () => {
    t = await openTestApp(target, {}, {}, addProbeRoutes)
    const plain = await t.app.inject({ method: 'GET', url: '/test/whoami', headers: bearer(USER_KEY) })
    expect(plain.json()).toEqual({ tenant: 'default', kind: 'api_key' })
    const asserted = await t.app.inject({
      method: 'GET',
      url: '/test/whoami',
      headers: { ...bearer(USER_KEY), 'x-tenant-id': 'acme' },
    })
    expect(asserted.json()).toEqual({ tenant: 'acme', kind: 'api_key' })
  })

  it('admin routes need an admin key (403 ADMIN_REQUIRED otherwise)', async () => {
    t = await openTestApp(target, {}, {}, addProbeRoutes)
    const user = await t.app.inject({ method: 'GET', url: '/test/admin', headers: bearer(USER_KEY) })
    expect(user.statusCode).toBe(403)
    expect(user.json()).toMatchObject({ errorCode: 'ADMIN_REQUIRED' })
    const admin = await t.app.inject({ method: 'GET', url: '/test/admin', headers: bearer(ADMIN_KEY) })
    expect(admin.statusCode).toBe(200)
  })

  describe('tenant resolution', () => {
    const env = { TENANT_API_KEYS: `acme:${TENANT_KEY}`, AUTH_REQUIRE_TENANT: 'true' }
    it.each([
      ['a tenant key resolves to its tenant', TENANT_KEY, undefined, 200, 'acme'],
      ['a tenant key with the same header', TENANT_KEY, 'acme', 200, 'acme'],
      ['a tenant key with another header', TENANT_KEY, 'beta', 403, 'TENANT_MISMATCH'],
      ['asserting default', USER_KEY, 'default', 403, 'TENANT_RESERVED'],
      ['a user key without a tenant under AUTH_REQUIRE_TENANT', USER_KEY, undefined, 403, 'TENANT_REQUIRED'],
      ['a user key with a tenant header', USER_KEY, 'beta', 200, 'beta'],
      ['a malformed tenant header', USER_KEY, 'bad tenant!', 400, 'VALIDATION_ERROR'],
    ])('%s', async (_name, key, header, status, expected) => {
      t = await openTestApp(target, env, {}, addProbeRoutes)
      const res = await t.app.inject({
        method: 'GET',
        url: '/test/whoami',
        headers: { ...bearer(key), ...(header === undefined ? {} : { 'x-tenant-id': header }) },
      })
      expect(res.statusCode).toBe(status)
      if (status === 200) expect(res.json().tenant).toBe(expected)
      else expect(res.json()).toMatchObject({ statusCode: status, errorCode: expected })
    })
  })

  it('bypasses authentication in development-like environments with no key configured', async () => {
    t = await openTestApp(target, { AUTH_API_KEYS: '', AUTH_ADMIN_API_KEYS: '' }, {}, addProbeRoutes)
    const res = await t.app.inject({ method: 'GET', url: '/test/admin' })
    expect(res.statusCode).toBe(200)
    const who = await t.app.inject({ method: 'GET', url: '/test/whoami', headers: { 'x-tenant-id': 'dev' } })
    expect(who.json()).toEqual({ tenant: 'dev', kind: 'development' })
  })

  it('GET /metrics is public and exposes the spec metrics', async () => {
    t = await openTestApp(target)
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('acdp_ingest_rejected_total')
    expect(res.body).toContain('http_requests_total')
  })

  it('serves API docs at SWAGGER_PATH without a credential when enabled', async () => {
    t = await openTestApp(target, { SWAGGER_ENABLED: 'true' })
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      openapi: expect.any(String),
      paths: expect.objectContaining({ '/healthz': expect.anything() }),
    })
  })

  it('gives every documented operation a summary', async () => {
    t = await openTestApp(target, { SWAGGER_ENABLED: 'true' })
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, Record<string, { summary?: string }>>
    }
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    )
    expect(operations.length).toBeGreaterThan(40)
    expect(operations.filter((o) => !o.operation.summary).map((o) => o.name)).toEqual([])
  })

  it('does not serve API docs when disabled', async () => {
    t = await openTestApp(target, { SWAGGER_ENABLED: 'false' })
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' })
    expect(res.statusCode).toBe(404)
  })
})
