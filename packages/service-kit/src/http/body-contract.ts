/**
 * What a route does with a request body, declared once per route and applied by each server's JSON body parser
 * before a byte is parsed. Generic clients send `Content-Type: application/json` (ACDP clients
 * `application/acdp+json`) on every call, bodiless ones included, so an empty body is "no body" unless the route
 * requires one, and a body sent where the route takes none is refused rather than silently ignored.
 */
import type { FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route does with a request body; derived from `schema.body` when omitted (see `bodyContractOf`). */
    body?: BodyContract
  }
}

/** `none`: the route takes no body (DELETE, action POSTs); `optional`: a body may be sent; `required`: a body must be. */
export type BodyContract = 'none' | 'optional' | 'required'

/** A route's body contract: declared in `config.body`, else `required` when it declares a body schema, else `none`. */
export function bodyContractOf(route: {
  config?: { body?: BodyContract } | undefined
  schema?: { body?: unknown } | undefined
}): BodyContract {
  return route.config?.body ?? (route.schema?.body === undefined ? 'none' : 'required')
}

/**
 * What the parser does with a body of `byteLength` bytes on `request`'s route: `absent` (an empty body where none
 * is required: the route sees no body), `refused` (a body where the route takes none; the server answers with its
 * own error), or `parse`. An empty required body is parsed, so it keeps the parser's own refusal. An unrouted
 * request is parsed too: it keeps its 404, the not-found handler takes whatever body was sent.
 */
export function admitBody(
  request: Pick<FastifyRequest, 'routeOptions' | 'is404'>,
  byteLength: number,
): 'absent' | 'refused' | 'parse' {
  const contract = bodyContractOf(request.routeOptions)
  if (byteLength === 0 && contract !== 'required') return 'absent'
  if (contract === 'none' && !request.is404) return 'refused'
  return 'parse'
}

/**
 * Applies {@link admitBody} inside a content-type parser: settles `done` for an absent body (no body) or a refused
 * one (`refusal`, the server's own error, given the request's method and route) and returns true; returns false
 * when the parser must go on and parse the body.
 */
export function settleUnparsedBody(
  request: Pick<FastifyRequest, 'routeOptions' | 'is404' | 'method'>,
  byteLength: number,
  done: (error: Error | null, body?: unknown) => void,
  refusal: (method: string, url: string | undefined) => Error,
): boolean {
  const admission = admitBody(request, byteLength)
  if (admission === 'absent') done(null, undefined)
  else if (admission === 'refused') done(refusal(request.method, request.routeOptions.url))
  return admission !== 'parse'
}
