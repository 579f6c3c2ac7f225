/**
 * The Streamable HTTP transport on `POST|GET|DELETE /mcp`. Secure defaults: it binds loopback unless told
 * otherwise, and bound to any other address it refuses to start without a bearer token (then required on every
 * request, compared in constant time). On loopback the Host header must name the loopback listener (DNS
 * rebinding protection). Sessions are capped: a new session beyond the cap answers 503 with a clear message;
 * one session's server and transport are dropped when the client deletes it or its transport closes.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import type { AcdpMcp } from './acdp-mcp-server.js'
import { bearerMatches } from './bearer-check.js'
import { isLoopbackHost } from './listen-address.js'

export const DEFAULT_HTTP_HOST = '127.0.0.1'
export const DEFAULT_MAX_SESSIONS = 64
/** Largest JSON-RPC request body accepted, in bytes (a publish_context body is capped well below this). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024

export interface HttpTransportOptions {
  host?: string
  port: number
  /** Required when `host` is not loopback; when set, required on every request. */
  token?: string
  maxSessions?: number
}

export interface RunningHttpTransport {
  /** `http://host:port/mcp`. */
  url: string
  /** Sessions currently open. */
  sessionCount(): number
  close(): Promise<void>
}

/** @throws Error when bound to a non-loopback address without a token, or when the port cannot be bound. */
export async function startHttpTransport(mcp: AcdpMcp, options: HttpTransportOptions): Promise<RunningHttpTransport> {
  const host = options.host ?? DEFAULT_HTTP_HOST
  const loopback = isLoopbackHost(host)
  const token = options.token === '' ? undefined : options.token
  if (!loopback && token === undefined) {
    throw new Error(`refusing to serve MCP over HTTP on ${host} (not loopback) without a bearer token (--token-file)`)
  }
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; close: () => Promise<void> }>()
  // Filled once the port is known; the transports read this same array.
  const allowedHosts: string[] = []

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://mcp.invalid').pathname
    if (path !== '/mcp') return answer(response, 404, 'not found: the MCP endpoint is /mcp')
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      response.setHeader('www-authenticate', 'Bearer')
      return answer(response, 401, 'a valid bearer token is required')
    }
    const sessionId = request.headers['mcp-session-id']
    const body = request.method === 'POST' ? await readJsonBody(request) : undefined
    if (body === INVALID) return answer(response, 400, 'the request body is not JSON (or is over 4 MiB)')
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId)
      if (session === undefined) return answer(response, 404, 'unknown or closed MCP session')
      return session.transport.handleRequest(request, response, body)
    }
    if (request.method !== 'POST' || !isInitializeRequest(body)) {
      return answer(response, 400, 'no mcp-session-id: only an initialize request may open a session')
    }
    if (sessions.size >= maxSessions) {
      return answer(response, 503, `too many MCP sessions (the cap is ${maxSessions}); close one and retry`)
    }
    const server = mcp.createServer()
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, close: () => server.close() })
      },
      ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    await transport.handleRequest(request, response, body)
  }

  const http: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) answer(response, 500, 'internal error')
      else response.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port, host, () => {
      http.off('error', reject)
      resolve()
    })
  })
  const { port } = http.address() as AddressInfo
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  allowedHosts.push(...new Set([`${shown}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]))
  return {
    url: `http://${shown}:${port}/mcp`,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map((session) => session.close()))
      sessions.clear()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

const INVALID = Symbol('invalid body')

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength
    if (size > MAX_REQUEST_BYTES) return INVALID
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    return INVALID
  }
}

/** A JSON-RPC error answer (what MCP clients expect on this endpoint), with the HTTP status. */
function answer(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}
