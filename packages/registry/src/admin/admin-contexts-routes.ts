/**
 * `GET /admin/contexts`: the admin listing of public contexts (product spec "Endpoints"; playground builds only,
 * i.e. mounted when `playground.enabled` and `auth.admin_tokens` is non-empty). HTTP shape only; behaviour lives
 * in admin/admin-listing.ts.
 */
import { RegistryErrorEnvelope } from '@acdp/protocol'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type AdminListingDeps, listPublicContexts, MAX_ADMIN_LIST_LIMIT } from './admin-listing.js'
import type { RequestScopes } from '../auth/read-access.js'

export interface AdminContextsRouteOptions {
  listing: AdminListingDeps
  scopes: Pick<RequestScopes, 'adminTenant'>
}

const ListedContext = {
  type: 'object',
  additionalProperties: false,
  required: [
    'ctx_id',
    'lineage_id',
    'version',
    'type',
    'agent_id',
    'title',
    'content_hash',
    'created_at',
    'status',
    'visibility',
  ],
  properties: {
    ctx_id: { type: 'string' },
    lineage_id: { type: 'string' },
    version: { type: 'integer' },
    type: { type: 'string' },
    agent_id: { type: 'string' },
    title: { type: 'string' },
    content_hash: { type: 'string' },
    created_at: { type: 'string' },
    status: { type: 'string', description: 'active | superseded | expired | retracted, derived now' },
    visibility: { type: 'string', enum: ['public'] },
  },
} as const

const AdminListingResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['tenant_id', 'contexts'],
  properties: {
    tenant_id: { type: 'string', description: 'the tenant listed: X-Tenant-Id, else "default"' },
    contexts: { type: 'array', items: ListedContext },
    next_cursor: { type: 'string', description: 'present while more contexts follow' },
  },
} as const

export function registerAdminContextsRoute(app: FastifyInstance, options: AdminContextsRouteOptions): void {
  app.get(
    '/admin/contexts',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "List one tenant's public contexts (admin bearer; playground builds)",
        description:
          'Newest first (created_at descending, then ctx_id ascending). Restricted and private contexts are never ' +
          'listed. The tenant is X-Tenant-Id (honoured from an admin in every tenant_header_trust mode), else ' +
          '"default". 403 without an admin bearer; 400 invalid_cursor / cursor_expired for a bad cursor.',
        security: [{ adminBearer: [] }],
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', description: `page size, 1–${MAX_ADMIN_LIST_LIMIT} (default 50)` },
            cursor: { type: 'string', description: 'next_cursor of the previous page' },
          },
        },
        headers: {
          type: 'object',
          properties: { 'x-tenant-id': { type: 'string', description: 'tenant to list (default: "default")' } },
        },
        response: { 200: AdminListingResponse, '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request: FastifyRequest, reply) => {
      const tenantId = options.scopes.adminTenant(request)
      const listing = await listPublicContexts(
        options.listing,
        tenantId,
        (request.query ?? {}) as Record<string, unknown>,
      )
      return reply.header('cache-control', 'no-store').send(listing)
    },
  )
}
