/**
 * `GET /contexts/search` (RFC-ACDP-0005 §2; product spec registry.md "Endpoints": profile-gated, 501
 * `not_implemented` when `acdp-registry-discovery` is not advertised). HTTP shape only; behaviour lives in
 * search/search.ts.
 */
import type { FastifyInstance } from 'fastify'
import { ACDP_MEDIA_TYPE, RegistryError } from '../core/errors.js'
import { type SearchDeps, searchContexts } from './search.js'
import type { RequestScopes } from '../auth/read-access.js'

/** What the route needs from the app. */
export interface SearchRouteOptions {
  /** True when `registry.profiles` advertises `acdp-registry-discovery`. */
  isDiscoveryAdvertised: boolean
  search: SearchDeps
  /**
   * The caller and its tenant, without the anonymous-read gate: the search service applies its own (before
   * anything is read, fixture vis-009).
   */
  scopes: Pick<RequestScopes, 'auditor'>
}

/**
 * Mounts the search route. Register it beside `GET /contexts/:ctx_id`: Fastify matches the static segment
 * `search` before the parametric one.
 */
export function registerSearchRoute(app: FastifyInstance, options: SearchRouteOptions): void {
  app.get('/contexts/search', { config: { auth: 'reader' } }, async (request, reply) => {
    if (!options.isDiscoveryAdvertised) {
      throw new RegistryError('not_implemented', 'This registry does not offer keyword search.')
    }
    const caller = await options.scopes.auditor(request)
    const response = await searchContexts(options.search, {
      query: (request.query ?? {}) as Record<string, unknown>,
      requesterDid: caller.did ?? undefined,
      tenantId: caller.tenant,
    })
    // Results depend on who asks: never cacheable by a shared cache.
    return reply
      .code(200)
      .header('cache-control', 'private, no-store')
      .header('vary', 'authorization')
      .type(ACDP_MEDIA_TYPE)
      .send(JSON.stringify(response))
  })
}
