/**
 * Bearer authentication (`auth.enabled`): the token keys and service, the caller identifier the request scopes
 * use, what the /auth/* routes need, and what their route-auth kinds check (the request budgets, a revoke's
 * bearer). Built before the app: the route-auth hooks are installed from it.
 */
import type { RegistryConfig } from '../core/config.js'
import type { RegistryDeps } from '../core/deps.js'
import { clientIpOf, createProxyMatcher } from '../core/http/client-ip.js'
import type { RequestHead } from '../core/http/request-head.js'
import type { RouteAuthOptions } from '../core/http/route-auth.js'
import { registryDidOf } from '../core/registry-did.js'
import { AuthRequestLimits } from '../rate-limit/auth-request-limits.js'
import type { RateLimits } from '../rate-limit/rate-limits.js'
import type { TenancyPolicy } from '../tenancy/tenancy.js'
import type { AuthChallengeDeps } from './auth-challenge.js'
import { authenticateBearer } from './bearer-auth.js'
import { BearerTokens, loadTokenSigningKeys, type TokenSigningKeys } from './bearer-tokens.js'
import type { CallerIdentifier, CallerIdentity } from './read-access.js'
import type { RevocationFeedDeps } from './revocation-feed.js'
import type { TokenRevocationDeps } from './token-revocation.js'

/** What the /auth/* routes (auth/auth-routes.ts) call. */
export interface AuthRoutesOptions {
  challenge: AuthChallengeDeps
  /** Absent on an embedding without a revocation store: revoke answers 501 (product spec behaviour 8). */
  revocation: TokenRevocationDeps | undefined
  keys: TokenSigningKeys
  /** Our revocation feed (GET /auth/revocations); absent without a feed store: the route answers 501. */
  feed: RevocationFeedDeps | undefined
}

/** What `setUpAuthentication` builds. */
export interface Authentication {
  /** The caller's DID, null without a bearer (RegistryDeps.authenticateReader). */
  authenticateReader: (request: RequestHead) => Promise<string | null>
  /** The caller's DID and tenant claim, verified once per request. */
  identify: CallerIdentifier
  /** The /auth/* routes' dependencies. */
  routes: AuthRoutesOptions
  /** What the `token-*` route-auth kinds check. */
  routeAuth: NonNullable<RouteAuthOptions['tokens']>
}

/** Bearer authentication (`auth.enabled`). Throws TypeError when the embedding gave no auth store. */
export async function setUpAuthentication(
  config: RegistryConfig,
  deps: RegistryDeps,
  rateLimits: RateLimits,
  tenancy: TenancyPolicy,
): Promise<Authentication> {
  const store = deps.authStore
  if (!store) throw new TypeError('auth.enabled = true needs deps.authStore (challenges and revocations)')
  const keys = await loadTokenSigningKeys(config.auth, deps.random)
  const issuer = registryDidOf(config.registry.authority)
  const tokens = new BearerTokens({
    keys,
    issuer,
    audience: config.registry.authority,
    ttlSeconds: config.auth.token_ttl_seconds,
    leewaySeconds: config.auth.token_leeway_seconds,
    clock: deps.clock,
    random: deps.random,
  })
  const limits = new AuthRequestLimits(
    { enabled: config.rate_limit.enabled, budgets: rateLimits.authRequestBudgets() },
    deps.metrics,
  )
  const isTrustedProxy = createProxyMatcher(config.rate_limit.trusted_proxies)
  const bearer = { tokens, store, issuer }
  // One verification per request, however many scopes of the request ask who is calling.
  const verified = new WeakMap<RequestHead, Promise<CallerIdentity>>()
  const identify: CallerIdentifier = (request) => {
    let caller = verified.get(request)
    if (caller === undefined) {
      caller = authenticateBearer(bearer, request).then((token) => ({
        did: token?.subject ?? null,
        tenantClaim: token?.tenant,
      }))
      verified.set(request, caller)
    }
    return caller
  }
  const authenticateReader = async (request: RequestHead) => (await identify(request)).did
  const routes: AuthRoutesOptions = {
    challenge: {
      store,
      resolver: deps.resolver,
      tokens,
      limiter: rateLimits.budget('challenge_per_agent', config.limits.challenge_rate_per_minute),
      clock: deps.clock,
      random: deps.random,
      authority: config.registry.authority,
      didMethods: config.auth.did_methods,
      challengeTtlSeconds: config.auth.challenge_ttl_seconds,
      tenantOf: tenancy.bindingOf,
    },
    revocation: {
      store,
      tokens,
      clock: deps.clock,
      maxTokenLifetimeSeconds: config.auth.token_ttl_seconds + config.auth.token_leeway_seconds,
    },
    feed: deps.revocationFeedStore ? { store: deps.revocationFeedStore, issuer, clock: deps.clock } : undefined,
    keys,
  }
  // What the route-auth kinds of /auth/* check: the request budgets, and the bearer of a revoke.
  const routeAuth = {
    admit: (request: RequestHead) => limits.admit(clientIpOf(request, isTrustedProxy), deps.clock().getTime()),
    authenticate: (request: RequestHead) => authenticateBearer(bearer, request),
  }
  return { authenticateReader, identify, routes, routeAuth }
}

/** The caller identity of an embedder's authenticator (no tenant claims): anonymous without one. */
export function identifyWith(authenticate: RegistryDeps['authenticateReader']): CallerIdentifier {
  return async (request) => ({ did: authenticate ? await authenticate(request) : null })
}
