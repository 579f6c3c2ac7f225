/**
 * The Fastify hook that feeds both servers' HTTP metrics: one observation per answered request, with the matched
 * route pattern (`routeOptions.url`, undefined for a request no route matched), never the raw URL, so ids and
 * query strings never become label values. Each server labels and records the observation its own way.
 */
import type { FastifyInstance } from 'fastify'

/** One answered request: route pattern (undefined when unmatched), method, status and duration in seconds. */
export type HttpObservation = (route: string | undefined, method: string, statusCode: number, seconds: number) => void

/**
 * Adds an `onResponse` hook to `app` that calls `observe` for every answered request. Register it on the root
 * instance before the routes (Fastify hooks apply to routes of the same encapsulation context). Streams that
 * hijack the reply are not seen here; they have their own gauges.
 */
export function observeEveryResponse(app: FastifyInstance, observe: HttpObservation): void {
  app.addHook('onResponse', (request, reply, done) => {
    // reply.elapsedTime is measured by Fastify from the start of the request, in milliseconds.
    observe(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}
