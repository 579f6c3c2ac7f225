/**
 * Per-route authentication, declared in the route's `config.auth` and enforced by one onRequest hook, before
 * the body is read: an unauthenticated caller never gets its body parsed.
 *
 * - `key` (the default when a route declares nothing): a bearer credential (spec rule 1), then tenant resolution.
 * - `admin`: as `key`, and the principal must be an admin (spec rule 4).
 * - `public`: no credential (probes, docs, ingest health).
 * - `hmac`: no bearer credential; the handler checks the webhook HMAC over the raw body (spec rule 5).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ControlPlaneConfig } from '../core/config.js'
import { ControlPlaneError } from '../core/errors.js'
import { type CredentialVerifier, type Principal, readBearerCredential, verifyCredential } from './credentials.js'
import { readTenantHeader, resolveTenant } from './tenant.js'

/** How a route authenticates its callers. */
export type ControlPlaneRouteAuth = 'key' | 'admin' | 'public' | 'hmac'

// `config.auth` is declared once for both servers (@acdp/service-kit); these are the control plane's kinds.
declare module '@acdp/service-kit' {
  interface RouteAuthKinds {
    key: true
    admin: true
    public: true
    hmac: true
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller (`key` and `admin` routes only). */
    principal: Principal | undefined
    /** The caller's resolved tenant (`key` and `admin` routes; HMAC routes resolve their own). */
    tenantId: string
  }
}

/** The principal used when authentication is bypassed (no key configured outside production; spec rule 3). */
const DEVELOPMENT_PRINCIPAL: Principal = Object.freeze({
  kind: 'development',
  actorId: 'development',
  isAdmin: true,
  boundTenant: undefined,
  mayAssertTenant: true,
})

/** Installs the authentication hook. `chain` is tried in order; see auth/credentials.ts. */
export function installRouteAuthentication(
  app: FastifyInstance,
  options: { auth: ControlPlaneConfig['auth']; chain: readonly CredentialVerifier[] },
): void {
  const { auth, chain } = options
  app.decorateRequest('principal', undefined)
  app.decorateRequest('tenantId', '')
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.is404) return
    // Only the control plane's kinds are declared on its routes; anything else is treated as `key` (authenticated).
    const mode = (request.routeOptions.config.auth ?? 'key') as ControlPlaneRouteAuth
    if (mode === 'public' || mode === 'hmac') return
    let principal: Principal | undefined
    if (auth.isBypassed) {
      principal = DEVELOPMENT_PRINCIPAL
    } else {
      const credential = readBearerCredential(request.headers.authorization)
      principal = credential === undefined ? undefined : await verifyCredential(chain, credential)
      if (principal === undefined) {
        throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required', {
          headers: { 'www-authenticate': 'Bearer' },
        })
      }
    }
    request.principal = principal
    request.tenantId = resolveTenant(principal, readTenantHeader(request.headers['x-tenant-id']), auth.requireTenant)
    if (principal.readOnly === true && !isSafeRequest(request)) {
      throw new ControlPlaneError('ISSUER_READ_ONLY', 'tokens of this issuer may only read')
    }
    if (mode === 'admin' && !principal.isAdmin) {
      throw new ControlPlaneError('ADMIN_REQUIRED', 'this route needs an admin key')
    }
  })
}

/** Methods a read-only issuer's token may use; introspection is a read despite being a POST. */
function isSafeRequest(request: FastifyRequest): boolean {
  const method = request.method
  return (
    method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || request.routeOptions.url === '/auth/introspect'
  )
}
