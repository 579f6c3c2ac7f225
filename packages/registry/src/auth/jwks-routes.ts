/**
 * `GET /.well-known/jwks.json`: the keys that verify the registry's bearer tokens (product spec registry
 * "Endpoints": public, no condition). Served whether or not auth is on: with auth off or HS256 there is nothing
 * to publish and the answer is an empty key set, so clients that fetch it unconditionally get a document, not 404.
 */
import type { FastifyInstance } from 'fastify'

export interface JwksDocument {
  keys: readonly object[]
}

/** The key set served when no asymmetric token key exists (auth off, or HS256). */
export const EMPTY_JWKS: JwksDocument = { keys: [] }

export function registerJwksRoute(app: FastifyInstance, jwks: JwksDocument): void {
  // The set is fixed for the life of the process: serialize it once.
  const json = JSON.stringify(jwks)
  app.get(
    '/.well-known/jwks.json',
    {
      config: { auth: 'public' },
      schema: { summary: 'Bearer-token verification keys (an empty set with auth off or HS256)' },
    },
    // Verifiers cache the key set for 300 s (product spec "Limits": JWKS cache).
    async (_request, reply) =>
      reply.header('content-type', 'application/json').header('cache-control', 'public, max-age=300').send(json),
  )
}
