/**
 * A loopback HTTP server that answers every request with an empty JWKS and records the paths it was asked for:
 * the target of attack tests that must show a service never fetched a URL a request named.
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  base: string
  /** Request paths, in arrival order. */
  seen: string[]
  close(): Promise<void>
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(req.url ?? '')
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
