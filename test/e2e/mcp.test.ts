/**
 * The BUILT `acdp mcp`, as an MCP client runs it, against a real stack on loopback (`acdp dev` on free ports and
 * a temp data directory), driven by the MCP SDK's own Client over stdio (the server spawned as the client's
 * child) and over Streamable HTTP (spawned with --http on a free port): list tools, publish, get with the
 * verification report, trace, the run in the control plane, a bad input → a tool error, and a hostile acdp://
 * authority → refused by the outbound policy. Every wait is bounded.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findFreePort } from '../../packages/cli/src/index.js'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const BIN = join(ROOT, 'packages/cli/dist/bin/acdp.js')
const NODE = process.execPath
const START_TIMEOUT_MS = 30_000

/** Waits until `child`'s output contains `marker`; rejects on exit or after the timeout. */
function waitForOutput(child: ChildProcess, marker: RegExp, what: string): Promise<RegExpMatchArray> {
  let output = ''
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what} not up within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    )
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = marker.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolvePromise(match)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited with ${code} before it was up:\n${output}`))
    })
  })
}

function structured(result: unknown): Record<string, unknown> {
  const call = result as CallToolResult
  expect(call.isError, JSON.stringify(call.content)).not.toBe(true)
  return call.structuredContent as Record<string, unknown>
}

function errorText(result: unknown): string {
  const call = result as CallToolResult
  expect(call.isError).toBe(true)
  return (call.content[0] as { text: string }).text
}

describe('the built acdp mcp against a stack it did not start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-mcp-e2e-'))
  const env = { ...process.env, ACDP_DATA_DIR: dataDir, NO_COLOR: '1' } as Record<string, string>
  const keyFile = join(dataDir, 'mcp-agent-key.json')
  let dev: ChildProcess
  let httpServer: ChildProcess | undefined
  let httpUrl = ''
  let privateKey = ''

  beforeAll(async () => {
    execFileSync(NODE, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'packages/cli'], {
      cwd: ROOT,
      stdio: 'pipe',
      timeout: 240_000,
    })
    const [registryPort, controlPlanePort] = [await findFreePort('127.0.0.1'), await findFreePort('127.0.0.1')]
    dev = spawn(
      NODE,
      [BIN, 'dev', '--registry-port', String(registryPort), '--control-plane-port', String(controlPlanePort)],
      {
        cwd: ROOT,
        env: { ...env, NODE_ENV: 'development' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    await waitForOutput(dev, /ACDP dev stack is up/, 'acdp dev')
    await new Promise<void>((resolvePromise, reject) =>
      execFile(NODE, [BIN, 'keygen', '--out', keyFile], { cwd: ROOT, env }, (error) =>
        error ? reject(error) : resolvePromise(),
      ),
    )
    privateKey = (JSON.parse(readFileSync(keyFile, 'utf8')) as { private_key: string }).private_key
    httpServer = spawn(NODE, [BIN, 'mcp', '--http', '--port', '0', '--key', keyFile], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    httpUrl = (await waitForOutput(httpServer, /listening on (http:\/\/\S+\/mcp)/, 'acdp mcp --http'))[1]!
  }, 300_000)

  afterAll(async () => {
    if (httpServer !== undefined && httpServer.exitCode === null) httpServer.kill('SIGKILL')
    if (dev.exitCode === null) dev.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  })

  describe.each([
    {
      transport: 'stdio',
      connect: () =>
        new StdioClientTransport({
          command: NODE,
          args: [BIN, 'mcp', '--key', keyFile],
          cwd: ROOT,
          env,
          stderr: 'pipe',
        }),
    },
    { transport: 'Streamable HTTP', connect: () => new StreamableHTTPClientTransport(new URL(httpUrl)) },
  ])('over $transport', ({ transport, connect }) => {
    const client = new Client({ name: 'acdp-e2e', version: '1' })
    const runId = `mcp-e2e-${transport === 'stdio' ? 'stdio' : 'http'}`
    let first = ''
    let second = ''

    beforeAll(async () => {
      await client.connect(connect())
    }, 30_000)
    afterAll(async () => {
      await client.close()
    })

    it('lists the tools', async () => {
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(['publish_context', 'get_context', 'trace_lineage', 'list_runs']))
    })

    it('publishes two linked contexts signed with the agent key, which never appears in a result', async () => {
      const published = await client.callTool({
        name: 'publish_context',
        arguments: { body: { type: 'analysis', title: `research (${transport})` }, run_id: runId },
      })
      const result = structured(published)
      first = String(result['ctx_id'])
      expect(first).toMatch(/^acdp:\/\/localhost\/[0-9a-f-]{36}$/)
      expect(result['agent_id']).toMatch(/^did:key:z6Mk/)
      const derived = await client.callTool({
        name: 'publish_context',
        arguments: { body: { type: 'analysis', title: `alert (${transport})` }, derived_from: [first], run_id: runId },
      })
      second = String(structured(derived)['ctx_id'])
      for (const answer of [published, derived]) expect(JSON.stringify(answer)).not.toContain(privateKey)
    })

    it('gets a context with the verifier’s per-stage report', async () => {
      const got = structured(await client.callTool({ name: 'get_context', arguments: { ctx_id: second } }))
      const verification = got['verification'] as {
        ok: boolean
        summary: string
        stages: { name: string; state: string; reason: string }[]
      }
      expect((got['context'] as { body: { derived_from: string[] } }).body.derived_from).toEqual([first])
      expect(verification.ok).toBe(true)
      const states = Object.fromEntries(verification.stages.map((stage) => [stage.name, stage.state]))
      expect(states).toMatchObject({
        schema: 'verified',
        producer_content_hash: 'verified',
        signature: 'verified',
        registry_receipt: 'verified',
      })
      for (const stage of verification.stages) expect(stage.reason).not.toBe('')
    })

    it('traces the lineage through derived_from', async () => {
      const walk = structured(await client.callTool({ name: 'trace_lineage', arguments: { ctx_id: second } }))
      expect(walk['complete']).toBe(true)
      const nodes = walk['nodes'] as { ctxId: string; depth: number; verification: { ok: boolean } }[]
      expect(nodes.map((node) => [node.ctxId, node.depth, node.verification.ok])).toEqual([
        [second, 0, true],
        [first, 1, true],
      ])
    })

    it('reads the run the contexts were filed under from the control plane', async () => {
      const run = structured(await client.callTool({ name: 'get_run', arguments: { run_id: runId } }))
      expect(run['run']).toMatchObject({ runId })
    })

    it('answers a bad input with a tool error and keeps serving', async () => {
      expect(errorText(await client.callTool({ name: 'get_context', arguments: { ctx_id: 42 } }))).toMatch(/ctx_id/)
      const unknown = await client.callTool({
        name: 'get_context',
        arguments: { ctx_id: 'acdp://localhost/00000000-0000-4000-8000-000000000000' },
      })
      expect(errorText(unknown)).toMatch(/^not_found: /)
      const refused = await client.callTool({
        name: 'publish_context',
        arguments: { body: { type: 'analysis', title: 'bad payload', payload: { n: 1 } } },
      })
      expect(errorText(refused)).toMatch(/^schema_violation: .*\/payload: /)
      expect((await client.listTools()).tools.length).toBe(7)
    })

    it('refuses a hostile acdp:// authority through the outbound policy, as a tool and as a resource', async () => {
      const hostile = 'acdp://169.254.169.254/00000000-0000-7000-8000-000000000000'
      expect(errorText(await client.callTool({ name: 'get_context', arguments: { ctx_id: hostile } }))).toMatch(
        /^outbound_refused: /,
      )
      await expect(client.readResource({ uri: hostile.replace('169.254.169.254', '10.0.0.7') })).rejects.toThrow(
        /outbound_refused/,
      )
    })
  })
})
