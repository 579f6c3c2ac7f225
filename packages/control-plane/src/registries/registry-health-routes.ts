/**
 * GET /registries/:authority/health: an enrolled registry's own /healthz and /readyz, asked through the SSRF-safe
 * outbound client and summarised (registries/registry-health.ts).
 */
import { Type } from 'typebox'
import { RegistryHealthShape } from '../response-schemas/registries.js'
import { createRegistryHealthChecker, HEALTH_FRESH_MS } from './registry-health.js'
import type { RoutePlugin } from '../core/route-context.js'

const Authority = Type.Object({
  authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
})

export const registryHealthRoutes: RoutePlugin = async (app, { federation, enrollments, deps }) => {
  const checker = createRegistryHealthChecker({
    outbound: federation.outbound,
    timeoutMs: federation.timeoutMs,
    enrollments,
    now: deps.clock,
  })
  app.get(
    '/registries/:authority/health',
    {
      schema: {
        tags: ['registries'],
        summary: "An enrolled registry's /healthz and /readyz, asked now through the outbound policy",
        description:
          "Only the caller's tenant's enabled enrollments with a base URL; any other authority is 404 " +
          'REGISTRY_NOT_FOUND. A probe that fails is reported in its member, the request itself succeeds. One ' +
          `answer serves the tenant's callers for ${HEALTH_FRESH_MS / 1000} s (checkedAt says when it was asked).`,
        params: Authority,
        response: {
          200: RegistryHealthShape,
        },
      },
    },
    async (request) => checker.check(request.tenantId, (request.params as { authority: string }).authority),
  )
}
