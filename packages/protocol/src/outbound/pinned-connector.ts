/**
 * The socket half of DNS pinning (RFC-ACDP-0006 §7.6): an undici connector that dials only the addresses the
 * policy checked, never the hostname, so no second lookup can rebind the connection. TLS keeps the hostname as
 * SNI and certificate identity, and undici keeps it in the Host header, because the pool's origin is the URL's.
 */
import type { Socket } from 'node:net'
import { isIP } from 'node:net'
import type { buildConnector } from 'undici'

/** Connect errors after which the next checked address is worth trying (nothing answered at that address). */
const NEXT_ADDRESS_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EAFNOSUPPORT',
  'UND_ERR_CONNECT_TIMEOUT',
])

/**
 * Wraps `connect` (undici's `buildConnector(...)`) so every connection goes to `addresses[0]`, falling back to
 * the next checked address only when one is unreachable (dual-stack hosts in IPv4-only containers).
 *
 * @param addresses the checked, pinned addresses; never empty.
 * @param hostname the URL's hostname: TLS server name unless it is itself an IP literal (SNI forbids those).
 */
export function createPinnedConnector(
  connect: buildConnector.connector,
  addresses: readonly string[],
  hostname: string,
): buildConnector.connector {
  if (addresses.length === 0) throw new TypeError('createPinnedConnector needs at least one address')
  const servername = isIP(hostname) === 0 ? hostname : undefined
  return (options, callback) => {
    let index = 0
    const attempt = (): void => {
      const address = addresses[index]!
      index += 1
      const pinned: buildConnector.Options = { ...options, hostname: address }
      if (servername !== undefined) pinned.servername = servername
      else delete pinned.servername
      connect(pinned, (error: Error | null, socket: Socket | null) => {
        const code = (error as { code?: unknown } | null)?.code
        if (error && index < addresses.length && typeof code === 'string' && NEXT_ADDRESS_CODES.has(code)) {
          attempt()
          return
        }
        if (error) callback(error, null)
        else callback(null, socket as Socket)
      })
    }
    attempt()
  }
}
