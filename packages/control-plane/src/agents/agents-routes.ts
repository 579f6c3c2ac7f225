/**
 * GET /agents and GET /agents/*did (product spec "Agents"). The DID is a wildcard because DIDs may contain
 * characters a client percent-encodes or, for some methods, path-like segments.
 */
import { Type } from 'typebox'
import { getAgent, listAgents } from './agents.js'
import { AgentListShape, AgentShape } from '../response-schemas/agents.js'
import type { RoutePlugin } from '../core/route-context.js'

const AgentListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
)

/** Default page of GET /agents (the reference listed the 200 most recent). */
export const AGENTS_DEFAULT_LIMIT = 200

export const agentRoutes: RoutePlugin = async (app, { deps }) => {
  app.get(
    '/agents',
    {
      schema: {
        summary: "The tenant's agents, with first/last seen and counts",
        tags: ['agents'],
        querystring: AgentListQuery,
        response: { 200: AgentListShape },
      },
    },
    async (request) => {
      const query = request.query as { limit?: number; offset?: number }
      return listAgents(deps, {
        tenantId: request.tenantId,
        limit: query.limit ?? AGENTS_DEFAULT_LIMIT,
        offset: query.offset ?? 0,
      })
    },
  )

  app.get(
    '/agents/*',
    {
      // No params schema: TypeBox's value conversion cannot handle a property named '*'. The router caps the
      // parameter length (maxParamLength); an unknown DID is simply not found.
      schema: { summary: 'One agent by DID', tags: ['agents'], response: { 200: AgentShape } },
    },
    async (request) => getAgent(deps, request.tenantId, (request.params as { '*': string })['*']),
  )
}
