/**
 * `GET /admin/status` (product spec "Endpoints"): the operational snapshot, behind the admin bearer
 * (`auth.admin_tokens`, constant-time compare). Not mounted when `auth.admin_tokens` is empty.
 */
import { RegistryErrorEnvelope } from '@acdp/protocol'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { type AdminStatusSources, readAdminStatus } from './admin-status.js'

const Backend = Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')])

/** The response shape (OpenAPI); optional members are omitted, never null. */
export const AdminStatusBody = Type.Object({
  build: Type.Object({ version: Type.String(), storage_impl: Backend }),
  storage: Type.Object({ healthy: Type.Boolean({ description: 'the database answers a trivial query' }) }),
  idempotency: Type.Object({
    records: Type.Optional(Type.Integer({ description: 'live (unexpired) Idempotency-Key records' })),
  }),
  webhook: Type.Object({
    enabled: Type.Boolean(),
    queue_in_flight: Type.Optional(Type.Integer({ description: 'events queued, being delivered or awaiting retry' })),
    queue_capacity: Type.Optional(Type.Integer()),
  }),
  revocation: Type.Object({
    configured_feeds: Type.Integer({ description: 'number of [[auth.revocation_feeds]] entries' }),
  }),
  migrations: Type.Object({
    backend: Backend,
    applied: Type.Optional(Type.Integer()),
    latest: Type.Optional(Type.String({ description: 'newest applied migration' })),
    pending: Type.Optional(Type.Array(Type.String(), { description: 'known to this build, not applied' })),
  }),
  tenancy: Type.Object({
    require_tenant: Type.Boolean(),
    tenant_header_trust: Type.Union([Type.Literal('none'), Type.Literal('trusted_proxies'), Type.Literal('any_peer')]),
    tenant_header_trust_configured: Type.Boolean({ description: 'set explicitly rather than defaulted' }),
    trusted_proxies: Type.Integer({ description: 'number of rate_limit.trusted_proxies entries' }),
  }),
})

export function registerAdminStatusRoute(
  app: FastifyInstance,
  options: AdminStatusSources & { adminTokens: readonly string[] },
): void {
  if (options.adminTokens.length === 0) return
  app.get(
    '/admin/status',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Operational snapshot (admin bearer)',
        description:
          'Storage health, live idempotency records, webhook queue depth, configured revocation feeds, migration ' +
          'state and the effective tenancy settings. 403 not_authorized without an admin bearer.',
        security: [{ adminBearer: [] }],
        response: { 200: AdminStatusBody, '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(await readAdminStatus(options)),
  )
}
