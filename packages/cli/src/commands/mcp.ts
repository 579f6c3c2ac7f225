/**
 * `acdp mcp`: the ACDP MCP server (packages/mcp) over stdio (default) or Streamable HTTP, pointed at a registry
 * and, optionally, a control plane. Diagnostics go to stderr only: in stdio mode stdout carries the protocol.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createAcdpMcp, DEFAULT_HTTP_HOST, DEFAULT_MAX_SESSIONS, serveStdio, startHttpTransport } from '@acdp/mcp'
import { type Command, parseCommandArgs } from '../command.js'
import { CliError, EXIT, usageError } from '../exit-codes.js'
import { resolveStackTarget } from '../stack-target.js'
import { readKeyFile } from './publish.js'
import { checkBaseUrl, parseIntegerFlag, TARGET_HELP, TARGET_OPTIONS } from './shared-options.js'

/** `acdp mcp` (help text below is what `acdp mcp --help` prints). */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve the ACDP tools to MCP clients (stdio or Streamable HTTP)',
  help: `Usage: acdp mcp [--key FILE] [--http [--host H] [--port N] [--token-file FILE]] [--registry URL]
                [--control-plane URL] [--authority A] [--timeout-seconds N] [--max-sessions N]

Serves the Model Context Protocol: tools publish_context (signed with --key), get_context and verify_context
(the verification report of acdp get --verify), search_contexts, trace_lineage (acdp trace), list_runs and
get_run (the control plane), and contexts as resources acdp://{authority}/{id}. Contexts of another authority,
derived_from references and did:web documents are fetched through the SSRF-safe client (public HTTPS only).
See docs/integrations/mcp.md.

Options:
  --key FILE            agent key file (acdp keygen) publish_context signs with; it never leaves this process
  --http                serve Streamable HTTP on /mcp instead of stdio
  --host H              HTTP bind address (default ${DEFAULT_HTTP_HOST}); any non-loopback address needs a token
  --port N              HTTP port (default 3002; 0 picks a free one)
  --token-file FILE     bearer token clients must send (default: ACDP_MCP_TOKEN); required off loopback
  --authority A         the registry's ctx_id authority (default: read from its registry_did)
  --timeout-seconds N   deadline of one tool call (default 20)
  --max-sessions N      open HTTP sessions at most (default ${DEFAULT_MAX_SESSIONS})
${TARGET_HELP}

Runs until stdin closes (stdio) or Ctrl-C (both); exit 0 then, 2 on a usage error.`,
  async run(args, io) {
    const { values } = parseCommandArgs(
      'mcp',
      args,
      {
        ...TARGET_OPTIONS,
        key: { type: 'string' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        'token-file': { type: 'string' },
        authority: { type: 'string' },
        'timeout-seconds': { type: 'string' },
        'max-sessions': { type: 'string' },
      },
      { min: 0, max: 0, names: '' },
    )
    if (!values.http && (values.host ?? values.port ?? values['token-file'] ?? values['max-sessions']) !== undefined) {
      throw usageError('--host, --port, --token-file and --max-sessions need --http')
    }
    const timeoutSeconds = parseIntegerFlag('timeout-seconds', values['timeout-seconds'], 1, 600)
    const port = parseIntegerFlag('port', values.port, 0, 65535) ?? 3002
    const maxSessions = parseIntegerFlag('max-sessions', values['max-sessions'], 1, 10_000)
    const target = resolveStackTarget(io, {
      registry: checkBaseUrl('registry', values.registry),
      controlPlane: checkBaseUrl('control-plane', values['control-plane']),
      dataDir: values['data-dir'],
    })
    const mcp = createAcdpMcp({
      registryUrl: target.registryUrl,
      controlPlane: {
        baseUrl: target.controlPlaneUrl,
        ...(target.apiKey === undefined ? {} : { apiKey: target.apiKey }),
      },
      fetch: io.fetch,
      ...(io.outbound === undefined ? {} : { outbound: io.outbound }),
      ...(values.key === undefined ? {} : { agentKey: readKeyFile(io, values.key) }),
      ...(values.authority === undefined ? {} : { registryAuthority: values.authority }),
      ...(timeoutSeconds === undefined ? {} : { callTimeoutMs: timeoutSeconds * 1000 }),
    })
    try {
      if (!values.http) {
        io.stderr(`acdp mcp: serving on stdio (registry ${target.registryUrl})\n`)
        await serveStdio(mcp, io.signal)
        return EXIT.ok
      }
      const token = readToken(io, values['token-file'])
      let http
      try {
        http = await startHttpTransport(mcp, {
          host: values.host ?? DEFAULT_HTTP_HOST,
          port,
          ...(token === undefined ? {} : { token }),
          ...(maxSessions === undefined ? {} : { maxSessions }),
        })
      } catch (error) {
        throw new CliError(EXIT.usage, 'usage', (error as Error).message, { cause: error })
      }
      io.stderr(
        `acdp mcp: listening on ${http.url} (registry ${target.registryUrl}${token === undefined ? '' : ', bearer token required'})\n`,
      )
      await new Promise<void>((done) => io.signal.addEventListener('abort', () => done(), { once: true }))
      await http.close()
      return EXIT.ok
    } finally {
      await mcp.close()
    }
  },
}

function readToken(io: Parameters<Command['run']>[1], file: string | undefined): string | undefined {
  if (file === undefined) {
    const fromEnv = io.env['ACDP_MCP_TOKEN']
    if (fromEnv === undefined || fromEnv === '') return undefined
    if (fromEnv.length < 16) throw usageError('ACDP_MCP_TOKEN is shorter than 16 characters')
    return fromEnv
  }
  const path = resolve(io.cwd, file)
  let text: string
  try {
    text = readFileSync(path, 'utf8').trim()
  } catch (error) {
    throw new CliError(EXIT.usage, 'usage', `cannot read token file ${path}: ${(error as Error).message}`)
  }
  if (text.length < 16) throw usageError(`the token in ${path} is shorter than 16 characters`)
  return text
}
