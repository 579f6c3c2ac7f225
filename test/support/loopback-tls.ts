/**
 * Service-to-service https on one machine, for the end-to-end suites that run our services as they are deployed:
 * a TLS terminator (the stand-in for a reverse proxy) in front of a service's plain listener, and the production
 * outbound client (SSRF policy, address pinning, TLS verification) trusting a test CA, with DNS for the test's
 * host names answering 127.0.0.1 and port-less URLs of those hosts routed to their terminator's port.
 */
import { connect, type AddressInfo } from 'node:net'
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls'
import { createOutboundClient, type OutboundClient } from '@acdp/protocol'
import type { TestPki } from '../../packages/protocol/test/support/test-ca.js'

/** A TLS terminator on 127.0.0.1:0 piping every connection to `targetPort` (the service's plain listener). */
export async function startTlsTerminator(pki: TestPki, targetPort: number): Promise<TlsServer> {
  const server = createTlsServer({ key: pki.keyPem, cert: pki.certPem }, (socket) => {
    const upstream = connect(targetPort, '127.0.0.1')
    socket.pipe(upstream).pipe(socket)
    const end = () => {
      socket.destroy()
      upstream.destroy()
    }
    socket.on('error', end)
    upstream.on('error', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

export function portOf(server: { address(): AddressInfo | string | null }): number {
  return (server.address() as AddressInfo).port
}

/**
 * The production outbound client trusting `pki`'s CA, with DNS for the hosts in `ports` → 127.0.0.1 only (any
 * other name fails as unknown), and port-less URLs of those hosts routed to the port in `ports`.
 */
export function routedOutbound(pki: TestPki, ports: Map<string, number>): OutboundClient {
  const client = createOutboundClient({
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [pki.caPem],
    lookup: async (hostname: string) => {
      if (ports.has(hostname)) return [{ address: '127.0.0.1', family: 4 }]
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    },
  })
  const routed = (url: string | URL): URL => {
    const target = new URL(url)
    const port = ports.get(target.hostname)
    if (port !== undefined && target.port === '') target.port = String(port)
    return target
  }
  return {
    request: (url, init) => client.request(routed(url), init),
    checkUrl: (url) => client.checkUrl(routed(url)),
    close: () => client.close(),
  }
}
