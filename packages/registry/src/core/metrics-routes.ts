/**
 * `GET /metrics` (product spec registry.md "Endpoints": public unless `metrics.bearer_token` is set; mounted only
 * when `metrics.enabled = true`; Prometheus text 0.0.4, 401 with `WWW-Authenticate` on a bad token).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { RegistryMetrics } from './metrics.js'

/** `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i

/**
 * Mounts `GET /metrics` on `app`. With a non-empty `bearerToken`, a request without the matching bearer gets 401
 * (`WWW-Authenticate: Bearer realm="metrics"`) and the `not_authorized` envelope.
 */
export function registerMetricsRoute(app: FastifyInstance, options: { metrics: RegistryMetrics; bearerToken: string }) {
  const expectedDigest = options.bearerToken === '' ? undefined : digest(options.bearerToken)
  app.get('/metrics', async (request, reply) => {
    if (expectedDigest !== undefined && !isAuthorized(request.headers.authorization, expectedDigest)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .header('cache-control', 'no-store')
        .type('application/json')
        .send({ error: { code: 'not_authorized', message: 'a valid metrics bearer token is required' } })
    }
    const body = await options.metrics.registry.metrics()
    return reply.header('cache-control', 'no-store').type(options.metrics.registry.contentType).send(body)
  })
}

/** @param header attacker-controlled: the Authorization header. Compared in constant time over digests. */
function isAuthorized(header: string | undefined, expectedDigest: Buffer): boolean {
  const match = typeof header === 'string' ? BEARER.exec(header) : null
  // Digesting both sides gives equal-length inputs, so the comparison time does not reveal the token length.
  const presented = digest(match?.[1] ?? '')
  return timingSafeEqual(presented, expectedDigest) && match !== null
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}
