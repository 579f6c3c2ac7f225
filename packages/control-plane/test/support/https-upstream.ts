/**
 * Test support: a loopback HTTPS server standing in for registries (and JWKS / feed hosts), with a throwaway CA
 * (packages/protocol/test/support/test-ca.ts) and an outbound client that trusts it and resolves the test names to
 * 127.0.0.1. Every request it receives is recorded, so SSRF tests can prove no connection was made.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { createOutboundClient, type OutboundClient } from '@acdp/protocol'
import { createFakeDns } from '../../../protocol/test/support/fake-dns.js'
import { createTestPki, type TestPki } from '../../../protocol/test/support/test-ca.js'

export interface UpstreamAnswer {
  /** 0: never answer (the connection stays open until the server closes). */
  status: number
  headers?: Record<string, string>
  body?: string | Buffer
}

export type UpstreamHandler = (path: string, headers: IncomingHttpHeaders, host: string) => UpstreamAnswer

export interface HttpsUpstream {
  pki: TestPki
  port: number
  /** `https://<name>:<port>`. */
  origin(name: string): string
  /** Requests received, in order. */
  seen: Array<{ host: string; path: string; headers: IncomingHttpHeaders }>
  handle(handler: UpstreamHandler): void
  /** A client trusting the test CA and resolving `names` (default: every name of the PKI) to 127.0.0.1. */
  client(options?: { allowLoopback?: boolean; answers?: Record<string, string[]> }): OutboundClient
  close(): Promise<void>
}

export async function startHttpsUpstream(names: string[]): Promise<HttpsUpstream> {
  const pki = createTestPki({ dnsNames: names, ipAddresses: ['127.0.0.1'] })
  let handler: UpstreamHandler = () => ({ status: 404 })
  const seen: HttpsUpstream['seen'] = []
  const server: Server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    seen.push({ host, path: req.url ?? '', headers: req.headers })
    const answer = handler(req.url ?? '', req.headers, host)
    if (answer.status === 0) return
    res.writeHead(answer.status, answer.headers ?? {})
    res.end(answer.body ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const clients: OutboundClient[] = []
  return {
    pki,
    port,
    origin: (name) => `https://${name}:${port}`,
    seen,
    handle(next) {
      handler = next
    },
    client(options = {}) {
      const answers = options.answers ?? Object.fromEntries(names.map((name) => [name, ['127.0.0.1']]))
      const client = createOutboundClient({
        allowCidrs: options.allowLoopback === false ? [] : ['127.0.0.1/32'],
        trustedCaCertificates: [pki.caPem],
        lookup: createFakeDns(answers).lookup,
      })
      clients.push(client)
      return client
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
