/**
 * Loopback servers for the outbound client suites. Every server records the connections it accepted (local
 * address, TLS server name) and the requests it saw, so tests can assert where the client really connected.
 */
import { once } from 'node:events'
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createNetServer, type Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import type { TestPki } from './test-ca.js'

export interface SeenConnection {
  localAddress: string | undefined
  servername: string | undefined
}

export interface SeenRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export interface TestServer {
  host: string
  port: number
  connections: SeenConnection[]
  requests: SeenRequest[]
  /** Bytes written by the last /stream response before its connection closed. */
  streamed: { bytes: number; closedEarly: boolean }
  close(): Promise<void>
}

const CHUNK = 256

/**
 * The routes every test server answers:
 * - `/ok` → 200 `ok`; `/status/<n>` → status n with body `status <n>`
 * - `/bytes/<n>` → n bytes with Content-Length; `/chunked/<n>` → n bytes chunked, no Content-Length
 * - `/stream/<n>` → n bytes chunked, honouring backpressure, recording how much was written before a close
 * - `/redirect?status=<s>&to=<location>` → redirect; `/chain/<n>` → 302 to `/chain/<n-1>` until `/chain/0` (200)
 * - `/echo` → 200 JSON `{ method, headers, body }`; `/hang` → never answers; `/drip` → headers, then 1 byte / 50 ms
 */
export function handleTestRoute(server: TestServer, req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'https://test.invalid')
  const [, route = '', arg = ''] = url.pathname.split('/')
  const n = Number(arg)
  switch (route) {
    case 'ok':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
      return
    case 'status':
      res.writeHead(n, { 'content-type': 'text/plain' }).end(`status ${n}`)
      return
    case 'bytes':
      res.writeHead(200, { 'content-length': String(n) }).end(Buffer.alloc(n, 0x61))
      return
    case 'chunked': {
      res.writeHead(200, { 'transfer-encoding': 'chunked' })
      for (let sent = 0; sent < n; sent += CHUNK) res.write(Buffer.alloc(Math.min(CHUNK, n - sent), 0x62))
      res.end()
      return
    }
    case 'stream': {
      server.streamed = { bytes: 0, closedEarly: false }
      const record = server.streamed
      res.writeHead(200, { 'transfer-encoding': 'chunked' })
      const chunk = Buffer.alloc(64 * 1024, 0x63)
      const pump = () => {
        while (record.bytes < n && !res.destroyed) {
          record.bytes += chunk.length
          if (!res.write(chunk)) {
            res.once('drain', pump)
            return
          }
        }
        if (!res.destroyed) res.end()
      }
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true
      })
      pump()
      return
    }
    case 'redirect':
      res
        .writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/ok' })
        .end()
      return
    case 'chain':
      if (n <= 0) res.writeHead(200).end('end of chain')
      else res.writeHead(302, { location: `/chain/${n - 1}` }).end()
      return
    case 'no-location':
      res.writeHead(302).end('no location')
      return
    case 'echo':
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ method: req.method, headers: req.headers, body }))
      return
    case 'hang':
      return
    case 'drip': {
      res.writeHead(200, { 'transfer-encoding': 'chunked' })
      const timer = setInterval(() => res.write('d'), 50)
      res.on('close', () => clearInterval(timer))
      return
    }
    default:
      res.writeHead(404).end('no such route')
  }
}

function attach(server: Server, host: string, isTls: boolean): TestServer {
  const sockets = new Set<Socket>()
  const state: TestServer = {
    host,
    port: 0,
    connections: [],
    requests: [],
    streamed: { bytes: 0, closedEarly: false },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    if (!isTls) state.connections.push({ localAddress: socket.localAddress, servername: undefined })
  })
  if (isTls) {
    server.on('secureConnection', (socket: TLSSocket) => {
      const servername = (socket as TLSSocket & { servername?: string | false }).servername
      state.connections.push({
        localAddress: socket.localAddress,
        servername: typeof servername === 'string' ? servername : undefined,
      })
    })
  }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handleTestRoute(state, req, res, body)
    })
  })
  return state
}

async function listen(
  server: Server | ReturnType<typeof createNetServer>,
  host: string,
  port: number,
): Promise<number> {
  server.listen({ host, port })
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address')
  return address.port
}

/** An HTTPS server on `host` (port 0 = any) presenting the PKI's server certificate. */
export async function startHttpsTestServer(pki: TestPki, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const server = createHttpsServer({ key: pki.keyPem, cert: pki.certPem })
  const state = attach(server, host, true)
  state.port = await listen(server, host, port)
  return state
}

/** A plain HTTP server on `host`. */
export async function startHttpTestServer(host = '127.0.0.1'): Promise<TestServer> {
  const server = createHttpServer()
  const state = attach(server, host, false)
  state.port = await listen(server, host, 0)
  return state
}

/** A TCP server that accepts connections and never sends a byte (no TLS handshake, no HTTP). */
export async function startSilentTcpServer(
  host = '127.0.0.1',
): Promise<{ port: number; accepted: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server = createNetServer((socket) => {
    accepted += 1
    sockets.add(socket)
    socket.on('error', () => undefined) // the client resets the socket when its deadline fires
    socket.on('close', () => sockets.delete(socket))
  })
  const port = await listen(server, host, 0)
  return {
    port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A loopback port with nothing listening (bound, then released). */
export async function findClosedPort(host = '127.0.0.1'): Promise<number> {
  const server = createNetServer()
  const port = await listen(server, host, 0)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** True when this machine can listen on `host` (e.g. `::1` without IPv6, `127.0.0.2` on macOS). */
export async function canListenOn(host: string): Promise<boolean> {
  const server = createNetServer()
  try {
    server.listen({ host, port: 0 })
    await once(server, 'listening')
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return true
  } catch {
    return false
  }
}
