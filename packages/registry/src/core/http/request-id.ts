/**
 * `x-request-id` on every response (product spec "Limits"): a sane incoming value is echoed, anything else is
 * replaced by a fresh UUIDv4 from the injected CSPRNG, so log correlation never trusts arbitrary header bytes.
 */
import type { IncomingMessage } from 'node:http'
import { formatUuidV4 } from '../context-id.js'

/** Printable, header-safe and short: what we are willing to echo and log. Attacker-controlled input. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/** Fastify `genReqId`: echoes a sane `x-request-id`, else mints a UUIDv4. */
export function createRequestIdGenerator(random: (size: number) => Uint8Array): (req: IncomingMessage) => string {
  return (req) => {
    const incoming = req.headers['x-request-id']
    if (typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming)) return incoming
    return formatUuidV4(random(16))
  }
}
