/**
 * MCP tool-call latency (`npm run bench:mcp`; figures in docs/performance/tools.md "MCP server: tool-call latency"). A registry on SQLite
 * (receipts and log on, publish rate limit off) runs in this process on a loopback port; the BUILT `acdp mcp` is
 * started twice as its own process — over stdio (the SDK's StdioClientTransport spawns it) and with --http on a
 * free loopback port — and driven with the MCP SDK's own Client. Measured per call, sequentially (one call in
 * flight), with the SDK directly as the baseline, so the difference is what the MCP hop adds per recorded step:
 *
 *   publish  — publish_context vs createProducer().publish (sign + POST /contexts);
 *   get      — get_context verify=false vs fetchContext;
 *   verify   — get_context with verification (the acdp get --verify pipeline), over each transport.
 *
 * BENCH_MCP_CALLS (default 200) calls per variant per round, 4 rounds in the order A B C C B A, A B C C B A so
 * drift on a shared machine falls on every variant alike. Prints p50 / p99 in milliseconds and the load average.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createProducer, createProducerKey, fetchContext, formatKeyFile } from '@acdp/protocol'
import { resolveConfig, startRegistry } from '@acdp/registry'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'packages/cli/dist/bin/acdp.js')
const CALLS = Number(process.env['BENCH_MCP_CALLS'] ?? 200)
const ROUNDS = 4
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-mcp-'))
const registry = await startRegistry(
  resolveConfig({
    registry: { authority: 'localhost', bind: '127.0.0.1', log_level: 'warn' },
    receipt: { signing_key_seed_b64: randomBytes(32).toString('base64') },
    log: { enabled: true },
    storage: { backend: 'sqlite', sqlite_path: join(dir, 'registry.db') },
    auth: { did_methods: ['did:web', 'did:key'] },
    limits: { publish_rate_per_minute: 0 },
    rate_limit: { enabled: false },
  }),
  { logger: false },
)
const registryUrl = (await registry.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1')
const key = createProducerKey()
const keyFile = join(dir, 'agent-key.json')
writeFileSync(keyFile, formatKeyFile(key))
const env = { ...process.env, ACDP_REGISTRY_URL: registryUrl, ACDP_DATA_DIR: dir } as Record<string, string>

const stdio = new Client({ name: 'bench', version: '1' })
await stdio.connect(
  new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--key', keyFile], env, stderr: 'ignore' }),
)
const httpChild: ChildProcess = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--key', keyFile], {
  env,
  stdio: ['ignore', 'ignore', 'pipe'],
})
const httpUrl = await new Promise<string>((resolve, reject) => {
  let output = ''
  const timer = setTimeout(() => reject(new Error(`acdp mcp --http not up: ${output}`)), 30_000)
  httpChild.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    const match = /listening on (http:\/\/\S+\/mcp)/.exec(output)
    if (match) {
      clearTimeout(timer)
      resolve(match[1]!)
    }
  })
})
const http = new Client({ name: 'bench', version: '1' })
await http.connect(new StreamableHTTPClientTransport(new URL(httpUrl)))
const producer = createProducer({ registryUrl, key })

let serial = 0
const body = () => ({ type: 'analysis', title: `bench step ${++serial}` })
const published: string[] = []

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`)
  return result.structuredContent as Record<string, unknown>
}

type Variant = { name: string; run: () => Promise<unknown> }
const pick = () => published[Math.floor(Math.random() * published.length)]!
const phases: { phase: string; variants: Variant[] }[] = [
  {
    phase: 'publish',
    variants: [
      { name: 'SDK direct', run: async () => published.push((await producer.publish(body())).ctxId) },
      {
        name: 'MCP stdio',
        run: async () => published.push(String((await call(stdio, 'publish_context', { body: body() }))['ctx_id'])),
      },
      {
        name: 'MCP HTTP',
        run: async () => published.push(String((await call(http, 'publish_context', { body: body() }))['ctx_id'])),
      },
    ],
  },
  {
    phase: 'get',
    variants: [
      { name: 'SDK direct', run: () => fetchContext(registryUrl, pick()) },
      { name: 'MCP stdio', run: () => call(stdio, 'get_context', { ctx_id: pick(), verify: false }) },
      { name: 'MCP HTTP', run: () => call(http, 'get_context', { ctx_id: pick(), verify: false }) },
    ],
  },
  {
    phase: 'get + verify',
    variants: [
      { name: 'MCP stdio', run: () => call(stdio, 'get_context', { ctx_id: pick() }) },
      { name: 'MCP HTTP', run: () => call(http, 'get_context', { ctx_id: pick() }) },
    ],
  },
]

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
console.log(
  `MCP bench ${new Date().toISOString()}: ${CALLS} calls per variant per round, ${ROUNDS} rounds; load ${load()}`,
)
try {
  // Warm every path (JIT, connections, the registry's DID document) before measuring.
  for (const { variants } of phases) for (const variant of variants) for (let i = 0; i < 20; i++) await variant.run()
  for (const { phase, variants } of phases) {
    const samples = new Map(variants.map((variant) => [variant.name, [] as number[]]))
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse()
      for (const variant of order) {
        const times = samples.get(variant.name)!
        for (let i = 0; i < CALLS; i++) {
          const start = performance.now()
          await variant.run()
          times.push(performance.now() - start)
        }
      }
    }
    for (const [name, times] of samples) {
      times.sort((a, b) => a - b)
      console.log(
        `${phase.padEnd(13)} ${name.padEnd(11)} p50 ${percentile(times, 0.5).toFixed(2)} ms  p99 ${percentile(times, 0.99).toFixed(2)} ms  (n=${times.length})`,
      )
    }
  }
  console.log(`load after: ${load()}`)
} finally {
  await stdio.close()
  await http.close()
  httpChild.kill('SIGTERM')
  await registry.app.close()
  rmSync(dir, { recursive: true, force: true })
}
