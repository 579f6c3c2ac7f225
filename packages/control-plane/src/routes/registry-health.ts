/**
 * GET /registries/:authority/health: an enrolled registry's own /healthz and /readyz, asked through the SSRF-safe
 * outbound client and summarised (services/registry-health.ts).
 */
import { Type } from 'typebox'
import { createRegistryHealthChecker, HEALTH_FRESH_MS, MAX_KEPT_BODY_BYTES } from '../services/registry-health.js'
import type { RoutePlugin } from './route-context.js'

const Authority = Type.Object({
  authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
})

const Probe = Type.Object({
  status: Type.Union(
    [Type.Literal('ok'), Type.Literal('failing'), Type.Literal('not_served'), Type.Literal('unreachable')],
    {
      description:
        'ok: 2xx; failing: another status; not_served: 404 (the registry has no such probe); unreachable: ' +
        'refused by the outbound policy, transport failure, deadline or oversized body',
    },
  ),
  httpStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'null when the registry was not reached' }),
  body: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: `the answer when it is a JSON object of at most ${MAX_KEPT_BODY_BYTES} bytes, else null`,
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'the outbound failure category when unreachable (e.g. loopback, outbound_failed), else null',
  }),
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
          200: Type.Object({
            authority: Type.String(),
            health: Probe,
            readiness: Probe,
            checkedAt: Type.String({ description: 'RFC 3339 UTC with milliseconds' }),
          }),
        },
      },
    },
    async (request) => checker.check(request.tenantId, (request.params as { authority: string }).authority),
  )
}
