/**
 * The server in-process, through the SDK's own Client over an in-memory transport pair: the tool list, input
 * validation as tool errors, and the outbound policy in front of every authority nobody configured. The
 * registry is a fetch double here; test/e2e/mcp.test.ts runs the real stack.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { type AcdpMcp, createAcdpMcp } from './acdp-mcp-server.js'

const REGISTRY = 'http://127.0.0.1:9'
const seen: string[] = []
const registryDouble: typeof fetch = async (input) => {
  seen.push(String(input))
  return new Response(JSON.stringify({ registry_did: 'did:web:registry.test' }), { status: 200 })
}

let mcp: AcdpMcp | undefined
async function connect(options: Partial<Parameters<typeof createAcdpMcp>[0]> = {}): Promise<Client> {
  mcp = createAcdpMcp({ registryUrl: REGISTRY, fetch: registryDouble, ...options })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await mcp.createServer().connect(serverSide)
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(clientSide)
  return client
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text

afterEach(async () => {
  await mcp?.close()
  seen.length = 0
})

describe('the ACDP MCP server', () => {
  it('lists every tool with a JSON schema, and the acdp:// resource template', async () => {
    const client = await connect()
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_context',
      'get_run',
      'list_runs',
      'publish_context',
      'search_contexts',
      'trace_lineage',
      'verify_context',
    ])
    const get = tools.find((tool) => tool.name === 'get_context')
    expect(get?.inputSchema.required).toEqual(['ctx_id'])
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['acdp://{authority}/{id}'])
  })

  it('answers a bad argument with a tool error, not a protocol error', async () => {
    const client = await connect()
    const result = await client.callTool({ name: 'get_context', arguments: { ctx_id: 'not-a-ctx-id' } })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/ctx_id/)
    const missing = await client.callTool({ name: 'trace_lineage', arguments: {} })
    expect(missing.isError).toBe(true)
  })

  it('refuses a link-local or private authority through the outbound policy without asking the registry', async () => {
    const client = await connect({ registryAuthority: 'registry.test' })
    for (const authority of ['169.254.169.254', '10.1.2.3']) {
      const result = await client.callTool({
        name: 'get_context',
        arguments: { ctx_id: `acdp://${authority}/0190a0b0-0000-7000-8000-000000000000` },
      })
      expect(result.isError).toBe(true)
      expect(text(result)).toMatch(/^outbound_refused: /)
    }
    expect(seen).toEqual([])
  })

  it('says why publish_context and the run tools cannot run when nothing is configured for them', async () => {
    const client = await connect()
    const publish = await client.callTool({ name: 'publish_context', arguments: { body: { type: 'analysis' } } })
    expect(text(publish)).toMatch(/^no_agent_key: /)
    const runs = await client.callTool({ name: 'list_runs', arguments: {} })
    expect(text(runs)).toMatch(/^no_control_plane: /)
  })
})
