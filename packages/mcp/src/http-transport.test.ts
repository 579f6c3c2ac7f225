/**
 * The Streamable HTTP transport on a loopback socket, driven by the SDK's own client: the bearer token, the
 * refusal to serve off loopback without one, the session cap, and DNS-rebinding protection.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { type AcdpMcp, createAcdpMcp } from './acdp-mcp-server.js'
import { type RunningHttpTransport, startHttpTransport } from './http-transport.js'

const TOKEN = 'test-token-0123456789abcdef'
let mcp: AcdpMcp | undefined
let http: RunningHttpTransport | undefined
const clients: Client[] = []

async function start(options: { token?: string; maxSessions?: number } = {}): Promise<RunningHttpTransport> {
  mcp = createAcdpMcp({ registryUrl: 'http://127.0.0.1:9', registryAuthority: 'registry.test' })
  http = await startHttpTransport(mcp, { host: '127.0.0.1', port: 0, ...options })
  return http
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  clients.push(client)
  return client
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
  await http?.close()
  await mcp?.close()
  http = undefined
})

describe('the Streamable HTTP transport', () => {
  it('refuses to start on a non-loopback address without a bearer token', async () => {
    mcp = createAcdpMcp({ registryUrl: 'http://127.0.0.1:9' })
    await expect(startHttpTransport(mcp, { host: '0.0.0.0', port: 0 })).rejects.toThrow(/without a bearer token/)
  })

  it('requires the token when one is set: 401 without it, tools with it', async () => {
    const { url } = await start({ token: TOKEN })
    const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(anonymous.status).toBe(401)
    await expect(connect(url, { authorization: 'Bearer wrong-token-0123456789' })).rejects.toThrow()
    const client = await connect(url, { authorization: `Bearer ${TOKEN}` })
    expect((await client.listTools()).tools.length).toBe(7)
  })

  it('caps open sessions with a clear error, and frees a slot when a session is deleted', async () => {
    const { url } = await start({ maxSessions: 1 })
    const first = new StreamableHTTPClientTransport(new URL(url))
    const firstClient = new Client({ name: 'first', version: '1' })
    await firstClient.connect(first)
    await expect(connect(url)).rejects.toThrow(/too many MCP sessions \(the cap is 1\)/)
    await first.terminateSession()
    await firstClient.close()
    const second = await connect(url)
    expect((await second.listTools()).tools.length).toBe(7)
  })

  it('refuses a request whose Host is not the loopback listener (DNS rebinding)', async () => {
    const { url } = await start()
    const port = new URL(url).port
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }
    const { request } = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: `attacker.example:${port}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.end(JSON.stringify(initialize))
    })
    expect(status).toBe(403)
  })
})
