/**
 * `GET /contexts/search` (RFC-ACDP-0005 §2; product spec registry.md "Endpoints": profile-gated, 501
 * `not_implemented` when `acdp-registry-discovery` is not advertised). HTTP shape only; behaviour lives in
 * services/search.ts.
 */
import type { FastifyInstance } from 'fastify'
import type { ReaderAuthenticator } from '../deps.js'
import { ACDP_MEDIA_TYPE, RegistryError } from '../errors.js'
import { type SearchDeps, searchContexts } from '../services/search.js'

/** What the route needs from the app. */
export interface SearchRouteOptions {
  /** True when `registry.profiles` advertises `acdp-registry-discovery`. */
  isDiscoveryAdvertised: boolean
  search: SearchDeps
  /** Read authentication (RFC-ACDP-0008 §6.2); absent means every caller is anonymous. */
  authenticateReader?: ReaderAuthenticator
  /** The request's resolved tenant, when tenancy is in use (echoed on the `search_executed` event). */
  resolveTenant?: (request: Parameters<ReaderAuthenticator>[0]) => string | undefined
}

/**
 * Mounts the search route. Register it beside `GET /contexts/:ctx_id`: Fastify matches the static segment
 * `search` before the parametric one.
 */
export function registerSearchRoute(app: FastifyInstance, options: SearchRouteOptions): void {
  app.get('/contexts/search', async (request, reply) => {
    if (!options.isDiscoveryAdvertised) {
      throw new RegistryError('not_implemented', 'This registry does not offer keyword search.')
    }
    const requesterDid = (await options.authenticateReader?.(request)) ?? undefined
    const tenantId = options.resolveTenant?.(request)
    const response = await searchContexts(options.search, {
      query: (request.query ?? {}) as Record<string, unknown>,
      requesterDid,
      ...(tenantId === undefined ? {} : { tenantId }),
    })
    // Results depend on who asks: never cacheable by a shared cache (digest D3 #205/#218).
    return reply
      .code(200)
      .header('cache-control', 'private, no-store')
      .header('vary', 'authorization')
      .type(ACDP_MEDIA_TYPE)
      .send(JSON.stringify(response))
  })
}
