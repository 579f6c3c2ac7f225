/**
 * Every route a Fastify app registers, captured as it is registered (the `onRoute` hook of each instance the
 * factory creates), so a compatibility suite walks the app's real route table and a new route cannot be missed.
 * `printRoutes()` renders a radix tree whose wildcard segments do not read back as paths; the hook sees each
 * route's own method and URL.
 */
import type { FastifyInstance, RouteOptions } from 'fastify'

export interface RouteEntry {
  method: string
  url: string
  /** What the route does with a request body (the body parser's contract, http/json-body.ts of each service). */
  body: 'none' | 'optional' | 'required'
}

const tables = new WeakMap<FastifyInstance, RouteOptions[]>()

/** Starts recording `app`'s routes; call right after the factory returns, before any route is added. */
export function recordRoutes(app: FastifyInstance): void {
  const routes: RouteOptions[] = []
  tables.set(app, routes)
  app.addHook('onRoute', (route: RouteOptions) => {
    routes.push(route)
  })
}

/**
 * The routes `app` registered, one entry per method, sorted, with the body contract the service's own parser
 * reads (`contractOf`: the service kit's `bodyContractOf`, which both parsers apply); throws when `app` was not recorded.
 */
export function routeTable(
  app: FastifyInstance,
  contractOf: (route: RouteOptions) => RouteEntry['body'],
): RouteEntry[] {
  const routes = tables.get(app)
  if (routes === undefined) throw new Error('this app was not built through the recording factory')
  const entries = routes.flatMap((route) =>
    [route.method].flat().map((method) => ({ method, url: route.url, body: contractOf(route) })),
  )
  const unique = new Map(entries.map((entry) => [`${entry.method} ${entry.url}`, entry]))
  return [...unique.values()].sort((a, b) => `${a.url} ${a.method}`.localeCompare(`${b.url} ${b.method}`))
}
