/**
 * Routing (product spec "Domain packs and routing"): GET /routing/stats (admin) lists the bandit arms of the
 * caller's tenant; GET /routing/select (key/JWT) asks the router which agent to give a task of one capability.
 */
import { type Static, Type } from 'typebox'
import { CAPABILITY_URI_PATTERN } from '../capabilities/capabilities.js'
import { createRoutingDeps, listArms, selectAgent } from './routing.js'
import type { RoutePlugin } from '../core/route-context.js'

const Capability = Type.String({ pattern: CAPABILITY_URI_PATTERN, maxLength: 512 })
const StatsQuery = Type.Object({ capability: Type.Optional(Capability) }, { additionalProperties: false })
const SelectQuery = Type.Object({ capability: Capability }, { additionalProperties: false })
const ArmShape = Type.Object({
  taskClass: Type.String(),
  agentDid: Type.String(),
  alpha: Type.Number(),
  beta: Type.Number(),
  mean: Type.Number(),
  observations: Type.Integer(),
})

export const routingRoutes: RoutePlugin = async (app, { config, deps, tokens }) => {
  const routing = createRoutingDeps(deps, tokens.authStore)

  app.get(
    '/routing/stats',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Routing decisions so far',
        tags: ['routing'],
        querystring: StatsQuery,
        response: { 200: Type.Object({ arms: Type.Array(ArmShape), total: Type.Integer() }) },
      },
    },
    async (request) => {
      const arms = await listArms(routing, request.tenantId, (request.query as Static<typeof StatsQuery>).capability)
      return { arms, total: arms.length }
    },
  )

  app.get(
    '/routing/select',
    {
      schema: {
        summary: 'Pick a registry for a publication by the routing policy',
        tags: ['routing'],
        querystring: SelectQuery,
        response: {
          200: Type.Object({
            capability: Type.String(),
            agentDid: Type.Union([Type.String(), Type.Null()]),
            reason: Type.Union([Type.String(), Type.Null()]),
            sample: Type.Optional(Type.Number()),
          }),
        },
      },
    },
    async (request) => {
      const { capability } = request.query as Static<typeof SelectQuery>
      const selection = await selectAgent(routing, request.tenantId, capability, config.routing.explorationFraction)
      if (selection === null) return { capability, agentDid: null, reason: null }
      return { capability, ...selection }
    },
  )
}
