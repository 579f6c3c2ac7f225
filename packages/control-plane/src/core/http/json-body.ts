/**
 * The one JSON body parser of the service, replacing Fastify's default for `application/json`.
 *
 * Bodies are attacker-controlled. The size cap is enforced by Fastify while the body streams in (route
 * `bodyLimit`; a declared Content-Length over the cap is refused before reading). The raw bytes are then
 * decoded as strict UTF-8 and parsed with `parseJsonStrict`, whose structural pre-scan enforces the depth limit
 * before any value is built and refuses duplicate member names. The raw bytes stay on the request
 * (`request.rawBody`) because webhook HMACs cover the exact bytes, never a re-serialisation.
 */
import { isProtocolError, parseJsonStrict } from '@acdp/protocol'
import { settleUnparsedBody } from '@acdp/service-kit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ControlPlaneError } from '../errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's exact bytes, for routes that verify a MAC over them. */
    rawBody: Buffer | undefined
  }
}

/** The media types parsed as JSON: `application/json` and ACDP's own `application/acdp+json`, any parameters. */
const JSON_MEDIA_TYPES = ['application/json', 'application/acdp+json']

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Parses a raw JSON body.
 *
 * @param raw attacker-controlled body bytes.
 * @throws ControlPlaneError INVALID_PAYLOAD for empty, non-UTF-8, malformed, duplicate-key or too-deep input.
 */
export function parseJsonBody(raw: Buffer, maxDepth: number): unknown {
  if (raw.length === 0) throw new ControlPlaneError('INVALID_PAYLOAD', 'the body is empty')
  let text: string
  try {
    text = UTF8.decode(raw)
  } catch (cause) {
    throw new ControlPlaneError('INVALID_PAYLOAD', 'the body is not valid UTF-8', { cause })
  }
  try {
    return parseJsonStrict(text, { maxDepth })
  } catch (error) {
    if (isProtocolError(error) && error.code === 'too_deep') {
      throw new ControlPlaneError('INVALID_PAYLOAD', `JSON nesting exceeds ${maxDepth} levels`, { cause: error })
    }
    if (isProtocolError(error) && error.code === 'malformed_input') {
      const duplicate = error.details?.reason === 'duplicate_key'
      throw new ControlPlaneError(
        'INVALID_PAYLOAD',
        duplicate ? 'duplicate member name in the JSON body' : 'malformed JSON',
        {
          cause: error,
        },
      )
    }
    throw error
  }
}

/** The answer to a body sent where the route takes none. */
const refuseBody = (method: string, url: string | undefined): ControlPlaneError =>
  new ControlPlaneError('INVALID_PAYLOAD', `${method} ${url} takes no request body`)

/**
 * Installs the strict JSON parser on `app` (and its children); every other media type is refused with 415.
 * An empty body is absent on routes that take none or an optional one; a required body keeps `parseJsonBody`'s
 * refusal, and a non-empty body where the route takes none is refused rather than silently ignored.
 */
export function installJsonBodyParser(app: FastifyInstance, options: { maxDepth: number }): void {
  app.decorateRequest('rawBody', undefined)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(JSON_MEDIA_TYPES, { parseAs: 'buffer' }, (request: FastifyRequest, body, done) => {
    const raw = body as Buffer
    if (settleUnparsedBody(request, raw.length, done, refuseBody)) return
    request.rawBody = raw
    try {
      done(null, parseJsonBody(raw, options.maxDepth))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
}
