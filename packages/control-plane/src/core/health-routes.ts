/**
 * Probes (product spec "Observability"): GET /healthz `{ ok, service, version }` and GET /readyz
 * `{ ok, database }`. Both check the database through the shared, cached readiness probe; a failing check or
 * a draining instance answers 503 with the error envelope plus the probe members, so monitors reading either
 * shape work.
 */
import { Type } from 'typebox'
import { ControlPlaneError } from './errors.js'
import { SERVICE_NAME, SERVICE_VERSION } from './version.js'
import type { RoutePlugin } from './route-context.js'

const Healthz = Type.Object({ ok: Type.Boolean(), service: Type.String(), version: Type.String() })
const Readyz = Type.Object({
  ok: Type.Boolean(),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unhealthy')]),
})

export const healthRoutes: RoutePlugin = async (app, { readiness }) => {
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: { summary: 'Liveness', tags: ['observability'], response: { 200: Healthz } },
    },
    async () => {
      const database = await readiness.checkDatabase()
      if (database !== 'ok') {
        throw new ControlPlaneError('DEPENDENCY_UNAVAILABLE', 'the database does not answer', {
          extra: { ok: false, service: SERVICE_NAME, version: SERVICE_VERSION },
        })
      }
      return { ok: true, service: SERVICE_NAME, version: SERVICE_VERSION }
    },
  )

  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'Readiness (storage reachable, migrations applied)',
        tags: ['observability'],
        response: { 200: Readyz },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store')
      if (readiness.isDraining) {
        throw new ControlPlaneError('SERVICE_DRAINING', 'the instance is shutting down', {
          extra: { ok: false, database: 'ok' },
          headers: { 'retry-after': '1' },
        })
      }
      const database = await readiness.checkDatabase()
      if (database !== 'ok') {
        throw new ControlPlaneError('DEPENDENCY_UNAVAILABLE', 'the database does not answer', {
          extra: { ok: false, database },
        })
      }
      return { ok: true, database }
    },
  )
}
