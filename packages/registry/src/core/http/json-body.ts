/**
 * Request bodies of the registry's body-carrying routes (product spec "Endpoints"): the accepted media types,
 * the size cap enforced while reading, and strict JSON parsing that keeps the exact request text beside the
 * parsed value (the text becomes the stored body; the value is hashed — each computed once per request).
 */
import { parseJsonStrict } from '@acdp/protocol'
import { settleUnparsedBody } from '@acdp/service-kit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fromProtocolError, RegistryError } from '../errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Exact UTF-8 text of a parsed JSON request body; null when the request had no body. */
    acdpRawBody: string | null
  }
}

/**
 * Deepest JSON nesting accepted in a request. Bodies are shallow by design (metadata ≤ 8 levels, RFC-ACDP-0002
 * §3.3); embedded `json` content is the only deep part, and 64 levels keeps parsing and hashing bounded.
 */
export const MAX_REQUEST_JSON_DEPTH = 64

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * True when `header` names a media type the body routes accept: `application/json`, any `application/*+json`
 * (so `application/acdp+json`), parameters ignored, or no Content-Type at all. Attacker-controlled input.
 */
export function isAcceptedJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return true
  const essence = (header.split(';')[0] ?? '').trim().toLowerCase()
  if (essence === 'application/json') return true
  return /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(essence)
}

/** Route `preParsing` hook: refuses other media types with 415 before a byte of the body is parsed. */
export async function requireJsonMediaType(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (!isAcceptedJsonMediaType(request.headers['content-type'])) {
    throw new RegistryError('unsupported_media_type', 'The Content-Type is not accepted; send application/acdp+json.')
  }
}

/** The answer to a body sent where the route takes none. */
const refuseBody = (method: string, url: string | undefined): RegistryError =>
  new RegistryError('schema_violation', `${method} ${url} takes no request body.`)

/**
 * Replaces Fastify's parsers with one for every media type: the body is read as text up to `maxBytes` (413
 * past it, checked while reading), then parsed strictly (duplicate keys, invalid UTF-8 and excessive depth are
 * schema violations). Routes refuse unaccepted media types earlier, in `requireJsonMediaType`. An empty body is
 * absent on routes whose body is `none` or `optional`; a non-empty one on a `none` route is refused.
 */
export function installJsonBodyParser(app: FastifyInstance, maxBytes: number): void {
  app.decorateRequest('acdpRawBody', null)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBytes }, (request, body, done) => {
    const bytes = body as Buffer
    // An empty required body goes on to the parse below and keeps its schema_violation.
    if (settleUnparsedBody(request, bytes.length, done, refuseBody)) return
    try {
      // Invalid UTF-8 is refused rather than silently replaced: the text is what gets stored and served.
      const text = UTF8.decode(bytes)
      const value = parseJsonStrict(text, { maxDepth: MAX_REQUEST_JSON_DEPTH })
      request.acdpRawBody = text
      done(null, value)
    } catch (error) {
      // Every failure here is a property of the attacker-controlled bytes: not UTF-8, not JSON, too deep.
      const mapped = fromProtocolError(error)
      done(
        mapped.code === 'schema_violation'
          ? mapped
          : new RegistryError('schema_violation', 'The request body is not valid JSON.', { cause: error }),
      )
    }
  })
}
