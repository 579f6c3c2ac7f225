/**
 * Capabilities (product spec "Capabilities"): POST /capabilities (policy and quota `capability.declare`),
 * GET /capabilities/search?capability=, GET /capabilities/by-agent/*did. All tenant-scoped.
 */
import { type Static, Type } from 'typebox'
import { ControlPlaneError } from '../core/errors.js'
import {
  type CapabilityDeclaration,
  declareCapability,
  listAgentCapabilities,
  searchCapabilities,
} from './capabilities.js'
import { CapabilityListShape, CapabilityShape } from '../response-schemas/capabilities.js'
import type { RoutePlugin } from '../core/route-context.js'

const Did = Type.String({ minLength: 8, maxLength: 2048, pattern: '^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$' })
const DeclareBody = Type.Object(
  {
    agent_did: Did,
    capability_uri: Type.String({ minLength: 1, maxLength: 512 }),
    declared_at: Type.String({ minLength: 1, maxLength: 64 }),
    key_id: Type.String({ minLength: 1, maxLength: 2200 }),
    algorithm: Type.String({ minLength: 1, maxLength: 32 }),
    signature: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
)
const SearchQuery = Type.Object(
  { capability: Type.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false },
)

export const capabilityRoutes: RoutePlugin = async (app, { deps, tokens, gates }) => {
  const capabilityDeps = { authStore: tokens.authStore, pinned: tokens.pinned, clock: deps.clock }

  app.post(
    '/capabilities',
    {
      schema: {
        summary: "Declare an agent's capabilities",
        tags: ['capabilities'],
        body: DeclareBody,
        response: { 200: CapabilityShape, 201: CapabilityShape },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof DeclareBody>
      const principal = request.principal
      if (principal === undefined) throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required')
      gates.policy.enforce('capability.declare', principal, request.tenantId, body.capability_uri)
      await gates.quotas.consume({ action: 'capability.declare', tenantId: request.tenantId, agentDid: body.agent_did })
      const { capability, created } = await declareCapability(
        capabilityDeps,
        request.tenantId,
        body as CapabilityDeclaration,
      )
      return reply.code(created ? 201 : 200).send(capability)
    },
  )

  app.get(
    '/capabilities/search',
    {
      schema: {
        summary: 'Search declared capabilities',
        tags: ['capabilities'],
        querystring: SearchQuery,
        response: { 200: CapabilityListShape },
      },
    },
    async (request) =>
      searchCapabilities(capabilityDeps, request.tenantId, (request.query as Static<typeof SearchQuery>).capability),
  )

  app.get(
    '/capabilities/by-agent/*',
    // No params schema: TypeBox cannot name a '*' property (see agents/agents-routes.ts).
    {
      schema: {
        summary: "One agent's declared capabilities",
        tags: ['capabilities'],
        response: { 200: CapabilityListShape },
      },
    },
    async (request) =>
      listAgentCapabilities(capabilityDeps, request.tenantId, (request.params as { '*': string })['*']),
  )
}
