/**
 * Route authentication is declared per route (`config.auth`, core/http/route-auth.ts): a route without a kind
 * stops the app from starting, every mounted route has the kind this table expects, and every guarded route
 * refuses a missing and a non-admin credential with the status and error it has always answered.
 */
import Fastify from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { createRegistryMetrics } from '../src/core/metrics.js'
import { declaredRoutes, installRouteAuthentication, type RouteAuth } from '../src/core/http/route-auth.js'
import type { RegistryConfigInput } from '../src/core/config.js'
import { bearer, login } from './support/bearer-login.js'
import { createTestRegistry, didKeyProducer, type TestRegistry } from './support/registry-harness.js'
import { TRUST_CONFIG } from './support/trust.js'

const ADMIN = 'route-auth-admin-token-0123456789'
const METRICS = 'route-auth-metrics-token'
const SECRET = Buffer.alloc(32, 7).toString('base64')
const NOW_S = Date.parse('2026-05-01T12:00:00.000Z') / 1000

let registry: TestRegistry | undefined
afterEach(async () => {
  await registry?.close()
  registry = undefined
})

describe('the startup check', () => {
  it.each<[string, Record<string, unknown> | undefined, RegExp]>([
    ['no config.auth', undefined, /GET \/unguarded declares no config\.auth/],
    ['an unknown kind', { auth: 'admins' }, /GET \/unguarded declares no config\.auth/],
    ['a token kind without bearer auth', { auth: 'token-admin' }, /needs bearer auth/],
  ])('refuses a route with %s', async (_name, config, message) => {
    const app = Fastify({ logger: false })
    installRouteAuthentication(app, { adminTokens: [ADMIN], metricsBearerToken: '' })
    app.get('/fine', { config: { auth: 'public' } }, async () => 'ok')
    await expect(
      (async () => {
        app.get('/unguarded', config === undefined ? {} : { config: config as never }, async () => 'open')
        await app.ready()
      })(),
    ).rejects.toThrow(message)
    await app.close()
  })

  it('starts with every route declared, and records each one', async () => {
    const app = Fastify({ logger: false })
    installRouteAuthentication(app, { adminTokens: [ADMIN], metricsBearerToken: '' })
    app.get('/open', { config: { auth: 'public' } }, async () => 'ok')
    app.post('/guarded', { config: { auth: 'admin' } }, async () => 'ok')
    await app.ready()
    expect(declaredRoutes(app)).toEqual([
      { method: 'GET', url: '/open', auth: 'public' },
      { method: 'HEAD', url: '/open', auth: 'public' },
      { method: 'POST', url: '/guarded', auth: 'admin' },
    ])
    expect((await app.inject({ method: 'POST', url: '/guarded' })).statusCode).toBe(403)
    await app.close()
  })
})

/** Builds that together mount every route the registry has. */
const BUILDS: Record<string, RegistryConfigInput> = {
  // Auth, admin tokens, receipts and the log, lifecycle, discovery, a metrics bearer, CORS.
  trust: {
    ...TRUST_CONFIG,
    registry: {
      profiles: ['acdp-registry-core', 'acdp-registry-discovery', 'acdp-registry-lifecycle'],
      cors: { allowed_origins: ['https://app.example.com'] },
    },
    lifecycle: { enabled: true },
    auth: { enabled: true, jwt_secret: SECRET, admin_tokens: [ADMIN] },
    metrics: { enabled: true, bearer_token: METRICS },
    rate_limit: { enabled: false },
  },
  // A playground build: the admin listing and the pinned-key reload.
  playground: {
    playground: {
      enabled: true,
      pinned_keys: [
        {
          agent_did: didKeyProducer().did,
          public_key_b64: Buffer.from(didKeyProducer().publicKey).toString('base64'),
          algorithm: 'ed25519',
          valid_from: NOW_S - 3600,
          valid_until: NOW_S + 3600,
        },
      ],
    },
    auth: { enabled: true, jwt_secret: SECRET, admin_tokens: [ADMIN] },
    rate_limit: { enabled: false },
  },
  // No discovery profile: search is the hidden 501 route.
  core: { registry: { profiles: ['acdp-registry-core'] } },
}

/** Every route of every build above and the kind it must declare (today's checks, docs/registry/api.md). */
const EXPECTED_KINDS: Record<string, Record<string, RouteAuth>> = {
  trust: {
    'OPTIONS /*': 'public',
    'GET /.well-known/acdp.json': 'public',
    'GET /.well-known/did.json': 'public',
    'GET /healthz': 'public',
    'POST /contexts': 'agent',
    'GET /contexts/*': 'reader',
    'POST /auth/challenge': 'token-request',
    'POST /auth/token': 'token-request',
    'POST /auth/token/revoke': 'token-holder',
    'GET /auth/revocations': 'token-admin',
    'GET /.well-known/jwks.json': 'public',
    'GET /lineages/:lineage_id': 'reader',
    'GET /lineages/:lineage_id/current': 'reader',
    'GET /log/checkpoint': 'public',
    'GET /log/proof': 'reader',
    'GET /log/entries': 'reader',
    'GET /admin/status': 'admin',
    'POST /admin/log/verify': 'admin-after-body',
    'POST /contexts/*': 'agent',
    'POST /admin/contexts/*': 'admin',
    'GET /contexts/search': 'reader',
    'GET /metrics': 'metrics',
    'GET /openapi.json': 'public',
  },
  playground: {
    'GET /.well-known/acdp.json': 'public',
    'GET /healthz': 'public',
    'POST /contexts': 'agent',
    'GET /contexts/*': 'reader',
    'POST /auth/challenge': 'token-request',
    'POST /auth/token': 'token-request',
    'POST /auth/token/revoke': 'token-holder',
    'GET /auth/revocations': 'token-admin',
    'GET /.well-known/jwks.json': 'public',
    'GET /lineages/:lineage_id': 'reader',
    'GET /lineages/:lineage_id/current': 'reader',
    'GET /log/checkpoint': 'public',
    'GET /log/proof': 'reader',
    'GET /log/entries': 'reader',
    'GET /admin/status': 'admin',
    'POST /admin/pinned-keys/reload': 'admin',
    'POST /contexts/*': 'agent',
    'POST /admin/contexts/*': 'admin',
    'GET /contexts/search': 'reader',
    'GET /admin/contexts': 'admin',
    'GET /openapi.json': 'public',
  },
  core: {
    'GET /.well-known/acdp.json': 'public',
    'GET /healthz': 'public',
    'POST /contexts': 'agent',
    'GET /contexts/*': 'reader',
    'GET /.well-known/jwks.json': 'public',
    'GET /lineages/:lineage_id': 'reader',
    'GET /lineages/:lineage_id/current': 'reader',
    'GET /log/checkpoint': 'public',
    'GET /log/proof': 'reader',
    'GET /log/entries': 'reader',
    'POST /contexts/*': 'agent',
    'GET /contexts/search': 'public',
    'GET /openapi.json': 'public',
  },
}

interface Refusal {
  status: number
  code: string
  message: string
  headers?: Record<string, string>
}
interface GuardedRoute {
  method: 'GET' | 'POST'
  url: string
  payload?: string
  /** Without any Authorization header. */
  missing: Refusal
  /** With a bearer that is not an admin token: a random string, the metrics token and a valid agent JWT. */
  nonAdmin: Refusal
  /** With the admin token (the metrics token on /metrics): one of these statuses, the guard let it through. */
  admitted: readonly number[]
  admitWith?: string
}

const ADMIN_REQUIRED: Refusal = { status: 403, code: 'not_authorized', message: 'An admin bearer token is required.' }
const RETRACT = `/admin/contexts/${encodeURIComponent('acdp://registry.example.com/00000000-0000-4000-8000-000000000000')}/retract`

/** Today's answers of every guarded route (recorded on main before route auth became declarative). */
const GUARDED: Record<string, GuardedRoute> = {
  'GET /admin/status': {
    method: 'GET',
    url: '/admin/status',
    missing: ADMIN_REQUIRED,
    nonAdmin: ADMIN_REQUIRED,
    admitted: [200],
  },
  'GET /admin/contexts': {
    method: 'GET',
    url: '/admin/contexts',
    missing: ADMIN_REQUIRED,
    nonAdmin: ADMIN_REQUIRED,
    admitted: [200],
  },
  'POST /admin/pinned-keys/reload': {
    method: 'POST',
    url: '/admin/pinned-keys/reload',
    missing: ADMIN_REQUIRED,
    nonAdmin: ADMIN_REQUIRED,
    admitted: [501],
  },
  'POST /admin/log/verify': {
    method: 'POST',
    url: '/admin/log/verify',
    missing: ADMIN_REQUIRED,
    nonAdmin: ADMIN_REQUIRED,
    admitted: [200],
  },
  'POST /admin/contexts/*': {
    method: 'POST',
    url: RETRACT,
    missing: ADMIN_REQUIRED,
    nonAdmin: ADMIN_REQUIRED,
    admitted: [404, 501],
  },
  'GET /auth/revocations': {
    method: 'GET',
    url: '/auth/revocations',
    missing: ADMIN_REQUIRED,
    nonAdmin: ADMIN_REQUIRED,
    admitted: [200],
  },
  'POST /auth/token/revoke': {
    method: 'POST',
    url: '/auth/token/revoke',
    payload: '{}',
    missing: { status: 403, code: 'not_authorized', message: 'A bearer token is required.' },
    // A non-admin bearer is revoked itself: only an invalid one is refused (the JWT probe is skipped below).
    nonAdmin: { status: 403, code: 'not_authorized', message: 'The bearer token is not valid.' },
    admitted: [400],
  },
  'GET /metrics': {
    method: 'GET',
    url: '/metrics',
    missing: {
      status: 401,
      code: 'not_authorized',
      message: 'a valid metrics bearer token is required',
      headers: { 'www-authenticate': 'Bearer realm="metrics"' },
    },
    nonAdmin: {
      status: 401,
      code: 'not_authorized',
      message: 'a valid metrics bearer token is required',
      headers: { 'www-authenticate': 'Bearer realm="metrics"' },
    },
    admitted: [200],
    admitWith: METRICS,
  },
}

/** Kinds that refuse some callers before the handler decides anything. */
const GUARD_KINDS: ReadonlySet<RouteAuth> = new Set([
  'admin',
  'admin-after-body',
  'metrics',
  'token-holder',
  'token-admin',
])

describe.each(Object.keys(BUILDS))('the %s build', (build) => {
  it('mounts exactly the expected routes, each with its expected kind', async () => {
    registry = await createTestRegistry({
      config: BUILDS[build] as RegistryConfigInput,
      deps: { metrics: createRegistryMetrics() },
    })
    const declared = declaredRoutes(registry.app)
    const withoutHeadTwins = declared.filter(
      (route) => route.method !== 'HEAD' || !declared.some((r) => r.method === 'GET' && r.url === route.url),
    )
    expect(Object.fromEntries(withoutHeadTwins.map((r) => [`${r.method} ${r.url}`, r.auth]))).toEqual(
      EXPECTED_KINDS[build],
    )
    // HEAD twins of GET routes carry the GET route's kind.
    for (const head of declared.filter((r) => r.method === 'HEAD')) {
      expect(head.auth).toBe(declared.find((r) => r.method === 'GET' && r.url === head.url)?.auth)
    }
    // The collector sees what the router serves (printRoutes lists every path once per method).
    const printed = registry.app.printRoutes({ commonPrefix: false })
    for (const route of declared) expect(printed).toContain(route.url.split('/').at(-1) as string)
  })
})

/** Rows of GUARDED probed by some build (each must be). */
const probed = new Set<string>()

describe.each(['trust', 'playground'])('the %s build', (build) => {
  it('refuses a missing and a non-admin credential on every guarded route, as it always has', async () => {
    registry = await createTestRegistry({
      config: BUILDS[build] as RegistryConfigInput,
      deps: { metrics: createRegistryMetrics() },
    })
    const app = registry.app
    const agentJwt = BUILDS[build]?.auth?.enabled ? await login(app, didKeyProducer()) : undefined
    const guarded = declaredRoutes(app).filter((r) => r.method !== 'HEAD' && GUARD_KINDS.has(r.auth))
    expect(guarded.length).toBeGreaterThan(0)
    for (const route of guarded) {
      const key = `${route.method} ${route.url}`
      probed.add(key)
      const probe = GUARDED[key]
      expect(probe, `${key} (${route.auth}) has no row in GUARDED`).toBeDefined()
      if (probe === undefined) continue
      const send = (authorization: string | undefined) =>
        app.inject({
          method: probe.method,
          url: probe.url,
          headers: {
            ...(authorization === undefined ? {} : { authorization }),
            ...(probe.payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(probe.payload === undefined ? {} : { payload: probe.payload }),
        })
      const expectRefusal = async (authorization: string | undefined, refusal: Refusal) => {
        const res = await send(authorization)
        expect({ route: key, authorization, status: res.statusCode, error: res.json().error }).toEqual({
          route: key,
          authorization,
          status: refusal.status,
          error: { code: refusal.code, message: refusal.message },
        })
        for (const [name, value] of Object.entries(refusal.headers ?? {})) expect(res.headers[name]).toBe(value)
      }
      await expectRefusal(undefined, probe.missing)
      await expectRefusal('Bearer not-the-admin-token', probe.nonAdmin)
      if (route.auth !== 'metrics') await expectRefusal(`Bearer ${METRICS}`, probe.nonAdmin)
      if (agentJwt !== undefined && route.auth !== 'token-holder')
        await expectRefusal(bearer(agentJwt).authorization, probe.nonAdmin)
      // Lifecycle off (playground): the admin retract route answers 501 once admitted.
      expect(probe.admitted, key).toContain((await send(`Bearer ${probe.admitWith ?? ADMIN}`)).statusCode)
    }
  })
})

it('probes every row of the guarded-route table in some build', () => {
  expect([...probed].sort()).toEqual(Object.keys(GUARDED).sort())
})
