/**
 * GET /contexts/search and GET /registries/:authority/lineages/:lineageId (context-search/lineage-relay.ts): the enrolled registries' keyword search, fanned out and relayed per registry
 * (context-search/context-search.ts), key/JWT, one `context.retrieve` quota unit per search. Both read each registry
 * with its enrollment's read credential when it holds one (registries/registry-read.ts). Fastify matches this
 * static path before the federation proxy's `/contexts/*` (a ctx_id is never the bare word `search`).
 */
import { Type } from 'typebox'
import { ControlPlaneError } from '../core/errors.js'
import { SEARCH_FILTERS, searchEnrolledRegistries } from './context-search.js'
import { relayLineage } from './lineage-relay.js'
import { ContextSearchShape, RelayedLineageShape } from '../response-schemas/context-search.js'
import type { RoutePlugin } from '../core/route-context.js'

const Text = Type.String({ minLength: 1, maxLength: 2048 })

const Query = Type.Object(
  {
    ...Object.fromEntries(SEARCH_FILTERS.map((name) => [name, Type.Optional(Text)])),
    registry: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' })),
    cursor: Type.Optional(Text),
  },
  { additionalProperties: false },
)

export const contextSearchRoutes: RoutePlugin = async (app, { deps, federation, gates, enrollments }) => {
  app.get(
    '/contexts/search',
    {
      schema: {
        tags: ['federation'],
        summary: "Search the tenant's enrolled registries (RFC-ACDP-0005 filters), one page per registry",
        description:
          'Each enabled enrollment with a base URL is asked `GET /contexts/search` with the same filters; its ' +
          'matches, next_cursor and total_estimate come back unmerged in its own entry. To page one registry, ' +
          'repeat the search with `registry=<authority>&cursor=<its next_cursor>` (the cursor is relayed verbatim). ' +
          'A registry whose enrollment holds a read credential is asked with it as `Authorization: Bearer` (and ' +
          'answers what that credential may see); the others are asked anonymously (public contexts). ' +
          "A registry that fails, including one refusing the credential, has outcome `error` with the registry's " +
          'own code and does not fail the search.',
        querystring: Query,
        response: { 200: ContextSearchShape },
      },
    },
    async (request) => {
      const principal = request.principal
      if (principal === undefined) throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required')
      const query = request.query as Record<string, string | undefined>
      await gates.quotas.consume({
        action: 'context.retrieve',
        tenantId: request.tenantId,
        agentDid: principal.subject,
      })
      const filters = Object.fromEntries(SEARCH_FILTERS.map((name) => [name, query[name]]))
      return searchEnrolledRegistries(
        {
          outbound: federation.outbound,
          timeoutMs: federation.timeoutMs,
          store: deps.store,
          enrollments,
          log: request.log,
        },
        { tenantId: request.tenantId, filters, registry: query['registry'], cursor: query['cursor'] },
      )
    },
  )

  app.get(
    '/registries/:authority/lineages/:lineageId',
    {
      schema: {
        tags: ['registries'],
        summary: "A lineage's versions and its current head (with its head receipt), relayed unverified",
        description:
          "The registry's `GET /lineages/{id}` (version ascending) and `GET /lineages/{id}/current`, read with the " +
          "enrollment's read credential when it holds one; `current` is null when the registry has no current " +
          'version. Quota `context.retrieve`.',
        params: Type.Object({
          authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
          lineageId: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        response: {
          200: RelayedLineageShape,
        },
      },
    },
    async (request) => {
      const principal = request.principal
      if (principal === undefined) throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required')
      const { authority, lineageId } = request.params as { authority: string; lineageId: string }
      await gates.quotas.consume({
        action: 'context.retrieve',
        tenantId: request.tenantId,
        agentDid: principal.subject,
      })
      return relayLineage(
        { outbound: federation.outbound, timeoutMs: federation.timeoutMs, enrollments, log: request.log },
        request.tenantId,
        authority,
        lineageId,
      )
    },
  )
}
