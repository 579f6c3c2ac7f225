/**
 * The registry's access log: at most one line per answered request (`registry.access_log`), replacing Fastify's
 * two ("incoming request" and "request completed") and the error handler's "request refused". Three info lines
 * per request made the log the largest unbounded disk consumer under load (about 140 MB in 3 minutes at 1,765
 * publishes/s); one line carries everything those three did.
 *
 * - `all`: one info line per request.
 * - `errors`: only answers with status ≥ 400 (the rest are counted by the metrics instead).
 * - `off`: none (500s are still logged at `error` with their cause by the error handler).
 */
import type { FastifyInstance } from 'fastify'

export type AccessLogMode = 'all' | 'errors' | 'off'

/** Registers the access-log hook on the root instance (before the routes, so it covers every one of them). */
export function installAccessLog(app: FastifyInstance, mode: AccessLogMode): void {
  if (mode === 'off') return
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode
    if (mode === 'all' || status >= 400) {
      request.log.info(
        {
          method: request.method,
          // The raw URL, as Fastify's own request line had it; headers (credentials) are never logged.
          url: request.url,
          status,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          ...(request.acdpErrorCode === null ? {} : { code: request.acdpErrorCode }),
        },
        'request',
      )
    }
    done()
  })
}
