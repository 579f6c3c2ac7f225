/**
 * The part of a request the registry's services read: its headers, its socket peer, and the route it matched.
 * A route hands a service its Fastify request as it is (the request has all of these), so services name no
 * Fastify type, and a per-request memo keyed by the request object (auth/authentication.ts) sees the same object
 * from every caller.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { RouteAuthKind } from '@acdp/service-kit'

export interface RequestHead {
  /** attacker-controlled, every one of them. */
  readonly headers: IncomingHttpHeaders
  /** The socket peer (X-Forwarded-For is a header, read only where a trusted proxy may set it). */
  readonly socket: { readonly remoteAddress?: string | undefined }
  /** The matched route's URL pattern and its declared `config.auth` (core/http/route-auth.ts). */
  readonly routeOptions: {
    readonly url?: string | undefined
    readonly config: { readonly auth?: RouteAuthKind | undefined }
  }
}
