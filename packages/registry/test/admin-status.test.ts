/**
 * `GET /admin/status` (product spec "Endpoints"): every member the product spec lists, behind the admin
 * bearer; absent when `auth.admin_tokens` is empty. On SQLite and, with ACDP_TEST_DATABASE_URL, PostgreSQL.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import { Compile } from 'typebox/compile'
import { AdminStatusBody } from '../src/admin/admin-status-routes.js'
import { REGISTRY_MIGRATIONS } from '../src/store/migrations/index.js'
import {
  didKeyProducer,
  minimalUnsigned,
  publish,
  recordingDispatcher,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const start = useTestRegistry()
const ADMIN_TOKEN = 'admin-status-test-token-0123456789'
const statusValidator = Compile(AdminStatusBody)

function getStatus(r: TestRegistry, authorization?: string) {
  return r.app.inject({
    method: 'GET',
    url: '/admin/status',
    headers: authorization === undefined ? {} : { authorization },
  })
}

describe.each(testDatabaseTargets())('GET /admin/status on $name', (target) => {
  it('reports storage, idempotency, webhook queue, revocation feeds, migrations and tenancy', async () => {
    const webhooks = recordingDispatcher()
    const r = await start({
      openDatabase: target.open,
      config: {
        auth: {
          admin_tokens: [ADMIN_TOKEN],
          revocation_feeds: [
            {
              issuer: 'did:web:peer.example.com',
              feed_url: 'https://peer.example.com/auth/revocations',
              admin_token: 'peer-secret',
              poll_seconds: 300,
            },
          ],
        },
      },
      deps: { webhooks },
    })
    const p = didKeyProducer()
    expect((await publish(r.app, signRequest(p, minimalUnsigned(p)), { 'idempotency-key': 'k-1' })).statusCode).toBe(
      201,
    )
    expect((await publish(r.app, signRequest(p, minimalUnsigned(p, { title: 'no key' })))).statusCode).toBe(201)

    const res = await getStatus(r, `Bearer ${ADMIN_TOKEN}`)
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const body = res.json()
    expect(statusValidator.Check(body)).toBe(true)
    const names = REGISTRY_MIGRATIONS.map((m) => m.name)
    expect(body).toEqual({
      build: { version: expect.any(String), storage_impl: target.name },
      storage: { healthy: true },
      idempotency: { records: 1 },
      webhook: { enabled: true, queue_in_flight: 0, queue_capacity: 1 },
      revocation: { configured_feeds: 1 },
      migrations: {
        backend: target.name,
        applied: names.length,
        latest: names[names.length - 1],
        pending: [],
      },
      tenancy: {
        require_tenant: false,
        tenant_header_trust: 'none',
        tenant_header_trust_configured: false,
        trusted_proxies: 0,
      },
    })
    // The secret of a revocation feed never appears.
    expect(res.body).not.toContain('peer-secret')
  })

  it('reports an unhealthy store and omits what it cannot read (never null)', async () => {
    const r = await start({ openDatabase: target.open, config: { auth: { admin_tokens: [ADMIN_TOKEN] } } })
    r.store.checkHealth = async () => false
    r.store.countIdempotencyRecords = async () => {
      throw new Error('connection refused')
    }
    r.store.listAppliedMigrations = async () => {
      throw new Error('connection refused')
    }
    const res = await getStatus(r, `Bearer ${ADMIN_TOKEN}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(statusValidator.Check(body)).toBe(true)
    expect(body.storage).toEqual({ healthy: false })
    expect(body.idempotency).toEqual({})
    expect(body.migrations).toEqual({ backend: target.name })
    expect(body.webhook).toEqual({ enabled: false })
    expect(res.body).not.toContain('connection refused')
  })
})

describe('GET /admin/status access and tenancy', () => {
  it('refuses a missing, malformed or wrong bearer with 403 not_authorized', async () => {
    const r = await start({ config: { auth: { admin_tokens: [ADMIN_TOKEN, 'second-admin-token-abcdefghijkl'] } } })
    for (const authorization of [
      undefined,
      ADMIN_TOKEN,
      'Bearer wrong',
      `Basic ${ADMIN_TOKEN}`,
      `Bearer ${ADMIN_TOKEN}x`,
    ]) {
      const res = await getStatus(r, authorization)
      expect(res.statusCode).toBe(403)
      expect(res.json().error.code).toBe('not_authorized')
    }
    expect((await getStatus(r, 'Bearer second-admin-token-abcdefghijkl')).statusCode).toBe(200)
  })

  it('is not mounted when auth.admin_tokens is empty', async () => {
    const r = await start()
    const res = await getStatus(r, `Bearer ${ADMIN_TOKEN}`)
    expect(res.statusCode).toBe(404)
    expect(res.json().error.code).toBe('not_found')
  })

  it('reports the effective tenancy settings and whether the header trust was set explicitly', async () => {
    const r = await start({
      config: {
        auth: { admin_tokens: [ADMIN_TOKEN], tenant_header_trust: 'trusted_proxies' },
        rate_limit: { trusted_proxies: ['10.0.0.0/8', '192.168.1.1'] },
      },
    })
    expect((await getStatus(r, `Bearer ${ADMIN_TOKEN}`)).json().tenancy).toEqual({
      require_tenant: false,
      tenant_header_trust: 'trusted_proxies',
      tenant_header_trust_configured: true,
      trusted_proxies: 2,
    })
  })

  it('counts an explicit "none" as configured', async () => {
    const r = await start({ config: { auth: { admin_tokens: [ADMIN_TOKEN], tenant_header_trust: 'none' } } })
    const tenancy = (await getStatus(r, `Bearer ${ADMIN_TOKEN}`)).json().tenancy
    expect([tenancy.tenant_header_trust, tenancy.tenant_header_trust_configured]).toEqual(['none', true])
  })
})
