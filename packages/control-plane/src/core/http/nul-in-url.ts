/**
 * Refuses a request whose URL carries an encoded NUL (`%00`) before any route runs. No identifier, filter or
 * stored value of the service can hold U+0000, and PostgreSQL refuses it in a text parameter, so letting it reach
 * a query turned a malformed request into a 500. One check here covers every path and query parameter.
 */
import type { FastifyRequest } from 'fastify'
import { ControlPlaneError } from '../errors.js'

/** The only way a NUL reaches a decoded URL: Node's HTTP parser refuses a raw NUL byte in the request target. */
const ENCODED_NUL = /%00/i

/** onRequest hook. @param request its URL is attacker-controlled. */
export async function refuseNulInUrl(request: FastifyRequest): Promise<void> {
  if (ENCODED_NUL.test(request.url)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'the request URL must not contain U+0000 (%00)')
  }
}
