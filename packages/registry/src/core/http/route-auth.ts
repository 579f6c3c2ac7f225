/**
 * Per-route authentication, declared in the route's `config.auth` and enforced by one installer's hooks: every
 * route names its kind, and a route that names none (or an unknown one) stops the app from starting, so a new
 * route cannot be mounted unguarded by accident.
 *
 * Each kind's check runs where the registry has always run it, so the order of answers (415 before 403, a bad
 * query before a refusal, …) is what clients have seen before:
 *
 * - `public`: no credential.
 * - `reader`: the caller's bearer (anonymous where allowed), resolved when the handler asks the request scopes
 *   (auth/read-access.ts), after the path and query are parsed.
 * - `agent`: as `reader`; the caller is the writing agent (publish, producer lifecycle events).
 * - `admin`: an `auth.admin_tokens` bearer, else 403 `not_authorized`; before the body is read.
 * - `admin-after-body`: the same, after the body is read, with the header form tolerant of extra blanks
 *   (`POST /admin/log/verify`, which has always checked in its handler).
 * - `metrics`: with `metrics.bearer_token` set, that bearer, else 401 with `WWW-Authenticate`; after the body.
 * - `token-request`: the /auth/* per-IP and global budgets (429), before the body is read.
 * - `token-holder`: the budgets; then, after the body, an admin bearer or a valid registry bearer, else 403.
 * - `token-admin`: the budgets; then, after the body, an admin bearer, else 403.
 *
 * Product spec "Authentication" 4 (admin bearer) and "Endpoints" (metrics, /auth/*).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { RouteAuthKind } from '@acdp/service-kit'
import type { VerifiedToken } from '../../auth/bearer-tokens.js'
import { RegistryError } from '../errors.js'
import { adminTokenDigests, isAdminBearer } from './admin-bearer.js'
import type { RequestHead } from './request-head.js'

/** How a route authenticates its callers (the list above). */
export type RouteAuth =
  | 'public'
  | 'reader'
  | 'agent'
  | 'admin'
  | 'admin-after-body'
  | 'metrics'
  | 'token-request'
  | 'token-holder'
  | 'token-admin'

/** Every kind, for the startup check and the route-table tests. */
export const ROUTE_AUTH_KINDS: readonly RouteAuth[] = [
  'public',
  'reader',
  'agent',
  'admin',
  'admin-after-body',
  'metrics',
  'token-request',
  'token-holder',
  'token-admin',
]

// `config.auth` is declared once for both servers (@acdp/service-kit); these are the registry's kinds, and every
// route must declare one (checked at startup below).
declare module '@acdp/service-kit' {
  interface RouteAuthKinds {
    public: true
    reader: true
    agent: true
    admin: true
    'admin-after-body': true
    metrics: true
    'token-request': true
    'token-holder': true
    'token-admin': true
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** On `token-holder` routes: `'admin'` for an admin bearer, else the caller's verified registry bearer. */
    tokenCaller: VerifiedToken | 'admin' | undefined
  }
}

export interface RouteAuthOptions {
  /** `auth.admin_tokens`. */
  adminTokens: readonly string[]
  /** `metrics.bearer_token`; empty: `GET /metrics` is public. */
  metricsBearerToken: string
  /** With `auth.enabled`: the /auth/* budgets (rejects with rate_limited) and the registry bearer check. */
  tokens?: {
    admit: (request: RequestHead) => Promise<void>
    /** The verified bearer of the request, null without one; throws not_authorized for an invalid one. */
    authenticate: (request: RequestHead) => Promise<VerifiedToken | null>
  }
}

/** A mounted route and the kind it declared (GET routes' automatic HEAD twins included). */
export interface DeclaredRoute {
  method: string
  url: string
  auth: RouteAuth
}

/** The routes each app declared, in registration order (route-table tests, docs). */
const DECLARED = new WeakMap<FastifyInstance, DeclaredRoute[]>()

/** Every route `app` mounted, with its declared kind; empty for an app without route authentication. */
export function declaredRoutes(app: FastifyInstance): readonly DeclaredRoute[] {
  return DECLARED.get(app) ?? []
}

/** Kinds whose check needs `options.tokens` (mounted only with `auth.enabled`). */
const TOKEN_KINDS: ReadonlySet<RouteAuth> = new Set(['token-request', 'token-holder', 'token-admin'])

/** `Authorization: Bearer <token>` with any blanks around the token; the scheme is case-insensitive (RFC 9110 §11.1). */
const TOLERANT_BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i

/**
 * Installs the route-authentication hooks on the root instance, before any route is registered. Throws a
 * TypeError at route registration for a route without a known `config.auth`, or with a token kind while
 * `options.tokens` is absent.
 */
export function installRouteAuthentication(app: FastifyInstance, options: RouteAuthOptions): void {
  const adminDigests = adminTokenDigests(options.adminTokens)
  const metricsDigests = options.metricsBearerToken === '' ? [] : [digest(options.metricsBearerToken)]
  const tokens = options.tokens
  app.decorateRequest('tokenCaller', undefined)
  const declared: DeclaredRoute[] = []
  DECLARED.set(app, declared)

  app.addHook('onRoute', (route: RouteOptions) => {
    const kind: RouteAuthKind | undefined = route.config?.auth
    if (!isRouteAuth(kind)) {
      throw new TypeError(
        `route ${route.method.toString()} ${route.url} declares no config.auth (one of ${ROUTE_AUTH_KINDS.join(', ')})`,
      )
    }
    if (TOKEN_KINDS.has(kind) && tokens === undefined) {
      throw new TypeError(`route ${route.method.toString()} ${route.url} needs bearer auth (auth.enabled)`)
    }
    for (const method of [route.method].flat()) declared.push({ method, url: route.url, auth: kind })
  })

  // Callback-style hooks: they run on every request, and an async hook costs a promise round for nothing on the
  // routes that check nothing here. Before the body is read: an unauthorized caller never gets its body parsed.
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const kind = routeAuthOf(request)
    if (kind === 'admin')
      return done(isAdminBearer(request.headers.authorization, adminDigests) ? undefined : adminRequired())
    if (kind === undefined || !TOKEN_KINDS.has(kind)) return done()
    ;(tokens as NonNullable<typeof tokens>).admit(request).then(() => done(), done)
  })

  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const kind = routeAuthOf(request)
    const authorization = request.headers.authorization
    switch (kind) {
      case 'admin-after-body':
        return done(matchesTolerantBearer(authorization, adminDigests) ? undefined : adminRequired())
      case 'token-admin':
        return done(isAdminBearer(authorization, adminDigests) ? undefined : adminRequired())
      case 'token-holder': {
        if (isAdminBearer(authorization, adminDigests)) {
          request.tokenCaller = 'admin'
          return done()
        }
        ;(tokens as NonNullable<typeof tokens>).authenticate(request).then((caller) => {
          if (caller === null) return done(new RegistryError('not_authorized', 'A bearer token is required.'))
          request.tokenCaller = caller
          done()
        }, done)
        return
      }
      case 'metrics':
        if (metricsDigests.length === 0 || matchesTolerantBearer(authorization, metricsDigests)) return done()
        // Answered here (no `done`): not the ACDP envelope of other refusals, the fixed body /metrics always had.
        reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .header('cache-control', 'no-store')
          .type('application/json')
          .send({ error: { code: 'not_authorized', message: 'a valid metrics bearer token is required' } })
        return
      default:
        return done()
    }
  })
}

/** The kind `request`'s route declared (auth/read-access.ts checks that a scope is asked for by the right kind). */
export function routeAuthOf(request: Pick<RequestHead, 'routeOptions'>): RouteAuth | undefined {
  // Every route's kind was checked to be one of the registry's at registration (the onRoute check).
  return request.routeOptions.config.auth as RouteAuth | undefined
}

function isRouteAuth(value: string | undefined): value is RouteAuth {
  return value !== undefined && (ROUTE_AUTH_KINDS as readonly string[]).includes(value)
}

function adminRequired(): RegistryError {
  return new RegistryError('not_authorized', 'An admin bearer token is required.')
}

/**
 * @param header attacker-controlled. Every expected digest is compared (no early exit), over equal-length
 *   digests, so the timing says nothing about the token's length or which entry matched.
 */
function matchesTolerantBearer(header: string | undefined, expected: readonly Buffer[]): boolean {
  const match = typeof header === 'string' ? TOLERANT_BEARER.exec(header) : null
  const presented = digest(match?.[1] ?? '')
  let ok = false
  for (const token of expected) ok = timingSafeEqual(presented, token) || ok
  return ok && match !== null
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}
