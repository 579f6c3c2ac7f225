/**
 * CORS for browser clients (`registry.cors.allowed_origins`). Off when the list is empty: no CORS
 * header is ever sent and `OPTIONS` is not routed.
 *
 * A small hook pair rather than a plugin: the registry needs exact-origin matching, no credentials (tokens travel
 * in `Authorization`, never in cookies) and a fixed set of request headers, and nothing else. Entries are exact
 * origins (`https://app.example.com`, `http://localhost:5173`) compared as strings after the browser's own
 * serialization, or the single wildcard `*` (any origin).
 *
 * - Actual requests: an allowed `Origin` gets `Access-Control-Allow-Origin` (the origin itself, or `*`) and
 *   `Access-Control-Expose-Headers`; every answer carries `Vary: Origin` unless the wildcard is configured, so a
 *   shared cache never serves one origin's answer to another.
 * - Preflights (`OPTIONS` with `Access-Control-Request-Method`): 204 with the allowed methods, headers and a
 *   10-minute max age for an allowed origin and method; 204 without any CORS header otherwise (the browser then
 *   refuses the actual request). A plain `OPTIONS` that is not a preflight is answered like an unknown route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** The methods the registry serves. */
const ALLOWED_METHODS = ['GET', 'POST']
/** The request headers a browser client may send (lowercase). */
const ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-run-id', 'x-tenant-id', 'if-none-match']
/** Response headers a browser client may read beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = ['location', 'retry-after', 'x-request-id', 'etag', 'www-authenticate']
const PREFLIGHT_MAX_AGE_SECONDS = 600

/** `scheme://host[:port]` exactly as a browser serializes an origin (no path, query, fragment or trailing slash). */
const ORIGIN = /^(https?):\/\/(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::([0-9]{1,5}))?$/

/** Why `entry` is not an acceptable `registry.cors.allowed_origins` entry, or undefined when it is. */
export function corsOriginProblem(entry: string): string | undefined {
  if (entry === '*') return undefined
  const match = ORIGIN.exec(entry)
  if (!match) {
    return `"${entry}" is not an origin (scheme://host[:port], lowercase, no path or trailing slash) or "*"`
  }
  const port = match[3]
  if (port !== undefined) {
    const n = Number(port)
    if (n < 1 || n > 65535 || String(n) !== port) return `"${entry}" has an invalid port`
    // Browsers omit a default port from the origin they send, so such an entry would never match.
    if ((match[1] === 'https' && n === 443) || (match[1] === 'http' && n === 80)) {
      return `"${entry}" names the scheme's default port, which browsers omit from Origin`
    }
  }
  return undefined
}

/** Installs the CORS hooks and the preflight route. Call before the routes are registered. */
export function installCors(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  if (allowedOrigins.length === 0) return
  const anyOrigin = allowedOrigins.includes('*')
  const origins = new Set(allowedOrigins)
  const isAllowed = (origin: string | undefined): origin is string =>
    origin !== undefined && (anyOrigin || origins.has(origin))

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
    if (!anyOrigin) appendVary(reply, 'Origin')
    const origin = singleOrigin(request)
    if (isAllowed(origin) && request.method !== 'OPTIONS') {
      reply.header('access-control-allow-origin', anyOrigin ? '*' : origin)
      reply.header('access-control-expose-headers', EXPOSED_HEADERS.join(', '))
    }
    done(null, payload)
  })

  app.options('/*', { config: { auth: 'public' }, schema: { hide: true } as never }, async (request, reply) => {
    const requestedMethod = request.headers['access-control-request-method']
    if (typeof requestedMethod !== 'string') return reply.callNotFound()
    const origin = singleOrigin(request)
    reply.code(204).header('cache-control', 'no-store')
    if (isAllowed(origin) && ALLOWED_METHODS.includes(requestedMethod)) {
      reply
        .header('access-control-allow-origin', anyOrigin ? '*' : origin)
        .header('access-control-allow-methods', ALLOWED_METHODS.join(', '))
        .header('access-control-allow-headers', ALLOWED_HEADERS.join(', '))
        .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
    }
    return reply.send()
  })
}

/** The request's `Origin` when it carries exactly one (attacker-controlled). */
function singleOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin
  return typeof origin === 'string' ? origin : undefined
}

function appendVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary')
  if (current === undefined || current === '') {
    reply.header('vary', field)
    return
  }
  const text = Array.isArray(current) ? current.join(', ') : String(current)
  const present = text.split(',').some((part) => part.trim().toLowerCase() === field.toLowerCase())
  if (!present) reply.header('vary', `${text}, ${field}`)
}
