/**
 * Read access shared by every read route: who is reading (pluggable, RFC-ACDP-0008 §6.2) and the anonymous-read
 * gate (§6.3): without `anonymous_public_reads`, an anonymous read is refused with 403 before any lookup, so the
 * answer never depends on whether the id exists.
 */
import type { FastifyRequest } from 'fastify'
import type { ReaderAuthenticator } from '../deps.js'
import { RegistryError } from '../errors.js'
import type { Reader } from '../services/retrieval.js'

export function createReaderResolver(
  authenticate: ReaderAuthenticator | undefined,
  anonymousPublicReads: boolean,
): (request: FastifyRequest) => Promise<Reader> {
  return async (request) => {
    const did = authenticate ? await authenticate(request) : null
    if (did === null && !anonymousPublicReads) {
      throw new RegistryError('not_authorized', 'This registry does not serve anonymous reads; authenticate first.')
    }
    return { did }
  }
}

/** `Cache-Control` by visibility (RFC-ACDP-0004 §6): never `public` on a non-public body. */
export function cacheControlFor(visibility: string, form: 'body' | 'envelope'): string {
  if (visibility !== 'public') return 'private, no-store'
  return form === 'body' ? 'public, max-age=31536000, immutable' : 'public, max-age=60'
}
