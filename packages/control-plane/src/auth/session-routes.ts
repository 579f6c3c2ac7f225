/**
 * GET /session: who the caller is, as the API sees it — the resolved tenant, whether admin routes will accept the
 * credential, and how it authenticated. The console shows the tenant and hides admin-only forms from callers the
 * API would refuse anyway (the API still decides; this only avoids offering doomed actions). No secret, key
 * digest or token content is returned.
 */
import { SessionShape } from '../response-schemas/session.js'
import type { RoutePlugin } from '../core/route-context.js'

export const sessionRoutes: RoutePlugin = async (app) => {
  app.get(
    '/session',
    {
      schema: {
        summary: "The caller's tenant, role and credential kind",
        tags: ['session'],
        response: { 200: SessionShape },
      },
    },
    async (request) => ({
      tenantId: request.tenantId,
      isAdmin: request.principal?.isAdmin ?? false,
      credential: request.principal?.kind ?? 'api_key',
    }),
  )
}
