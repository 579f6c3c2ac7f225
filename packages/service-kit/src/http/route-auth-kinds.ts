/**
 * `config.auth`, the per-route authentication both servers declare on their routes. Fastify has one route
 * config type per process, so the property is declared once here and each server names its own kinds by
 * augmenting `RouteAuthKinds` (its keys are the kinds); each server checks at startup or per request that a
 * route's kind is one of its own.
 */

/** The route-auth kinds of the servers in this program, one key each (values unused). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface RouteAuthKinds {}

/** A kind some server of this program declared. */
export type RouteAuthKind = keyof RouteAuthKinds & string

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route authenticates its callers (the server's route-auth module). */
    auth?: RouteAuthKind
  }
}
