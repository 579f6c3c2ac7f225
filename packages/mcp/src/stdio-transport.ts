/**
 * The stdio transport: one session over the process's stdin/stdout (JSON-RPC lines). Nothing else may write to
 * stdout while it runs; diagnostics go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { AcdpMcp } from './acdp-mcp-server.js'

/** Serves until stdin ends or `signal` aborts; resolves when the session is closed. */
export async function serveStdio(mcp: AcdpMcp, signal: AbortSignal): Promise<void> {
  const server = mcp.createServer()
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
    signal.addEventListener('abort', () => resolve(), { once: true })
  })
  await server.connect(transport)
  await closed
  await server.close()
}
