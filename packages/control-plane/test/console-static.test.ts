/**
 * GET /console/*: the console's static build served by the control plane (enabled by default, 404 when disabled,
 * a clear 404 when the build is absent), with its caching headers and strict Content-Security-Policy; and
 * GET /session, the console's "who am I" read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../src/console/console-routes.js'
import { ADMIN_KEY, bearer, openTestApp, TENANT_KEY, type TestApp, USER_KEY } from './support/test-app.js'

const [sqlite] = testDatabaseTargets()

describe('console static assets', () => {
  let dir: string
  let t: TestApp | undefined
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'acdp-console-'))
    mkdirSync(join(dir, 'assets'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>ACDP console</title>')
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log(1)')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  it('serves index.html at /console/ without credentials, revalidated, with the strict CSP', async () => {
    t = await openTestApp(sqlite!, { CONSOLE_ASSETS_DIR: dir })
    const res = await t.app.inject({ method: 'GET', url: '/console/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.body).toContain('ACDP console')
    expect(res.headers['cache-control']).toBe('no-cache')
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CONTENT_SECURITY_POLICY)
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/)
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it('redirects /console to /console/ so relative asset URLs resolve', async () => {
    t = await openTestApp(sqlite!, { CONSOLE_ASSETS_DIR: dir })
    const res = await t.app.inject({ method: 'GET', url: '/console' })
    expect(res.statusCode).toBe(301)
    expect(res.headers['location']).toBe('/console/')
  })

  it('marks hashed assets immutable for a year', async () => {
    t = await openTestApp(sqlite!, { CONSOLE_ASSETS_DIR: dir })
    const res = await t.app.inject({ method: 'GET', url: '/console/assets/app-abc123.js' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it('answers 404 in the envelope for an unknown asset and never serves files outside the build', async () => {
    t = await openTestApp(sqlite!, { CONSOLE_ASSETS_DIR: dir })
    const missing = await t.app.inject({ method: 'GET', url: '/console/assets/nope.js' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toMatchObject({ statusCode: 404, errorCode: 'NOT_FOUND' })
    const escape = await t.app.inject({ method: 'GET', url: '/console/..%2f..%2fetc%2fpasswd' })
    expect([400, 403, 404]).toContain(escape.statusCode)
    expect(escape.body).not.toContain('root:')
  })

  it('CONSOLE_ENABLED=false removes the console: 404 NOT_FOUND', async () => {
    t = await openTestApp(sqlite!, { CONSOLE_ASSETS_DIR: dir, CONSOLE_ENABLED: 'false' })
    const res = await t.app.inject({ method: 'GET', url: '/console/' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ statusCode: 404, errorCode: 'NOT_FOUND', message: expect.any(String) })
  })

  it('without a build the service still starts and /console answers 404 CONSOLE_NOT_BUILT naming the fix', async () => {
    t = await openTestApp(sqlite!, { CONSOLE_ASSETS_DIR: join(dir, 'absent') })
    for (const url of ['/console/', '/console/assets/app.js']) {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({
        statusCode: 404,
        errorCode: 'CONSOLE_NOT_BUILT',
        message: expect.stringContaining('npm run build'),
      })
    }
    const health = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(health.statusCode).toBe(200)
  })
})

describe.each(testDatabaseTargets())('GET /session on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it.each([
    { name: 'user key', key: USER_KEY, isAdmin: false },
    { name: 'admin key', key: ADMIN_KEY, isAdmin: true },
  ])('reports tenant and admin flag for a $name, and nothing secret', async ({ key, isAdmin }) => {
    t = await openTestApp(target)
    const res = await t.app.inject({ method: 'GET', url: '/session', headers: bearer(key) })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ tenantId: 'default', isAdmin, credential: 'api_key' })
    expect(res.body).not.toContain(key)
  })

  it('reports the tenant bound to a tenant key', async () => {
    t = await openTestApp(target, { TENANT_API_KEYS: `acme:${TENANT_KEY}`, AUTH_REQUIRE_TENANT: 'true' })
    const res = await t.app.inject({ method: 'GET', url: '/session', headers: bearer(TENANT_KEY) })
    expect(res.json()).toMatchObject({ tenantId: 'acme', isAdmin: false })
  })

  it('refuses a missing credential with 401 UNAUTHORIZED', async () => {
    t = await openTestApp(target)
    const res = await t.app.inject({ method: 'GET', url: '/session' })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' })
  })
})
