/**
 * `acdp dev` (what `npm start` runs): the registry and the control plane on this machine, wired together, in the
 * foreground with interleaved logs, until Ctrl-C. See dev/dev-stack.ts for the wiring, docs/dev-stack.md for
 * the design.
 */
import { isIP } from 'node:net'
import { join, relative } from 'node:path'
import { describeCliInvocation } from '../cli-invocation.js'
import { type CliIo, type Command, parseCommandArgs } from '../command.js'
import { DEV_POSTGRES_SCHEMA_PREFIX } from '../dev/dev-postgres.js'
import type { RunningDevStack } from '../dev/dev-stack.js'
import { EXIT, usageError } from '../exit-codes.js'
import {
  DEFAULT_CONTROL_PLANE_PORT,
  DEFAULT_HOST,
  DEFAULT_REGISTRY_PORT,
  DEV_SECRETS_FILE,
  resolveDataDir,
} from '../stack-target.js'
import { parseIntegerFlag } from './shared-options.js'

/** Deadline of the readiness check after both services listen, in milliseconds. */
const HEALTH_DEADLINE_MS = 5000

/** `acdp dev` (help text below is what `acdp dev --help` prints). */
export const devCommand: Command = {
  name: 'dev',
  summary: 'run the registry and the control plane locally, wired together (npm start)',
  help: `Usage: acdp dev [--reset] [--demo] [--data-dir DIR] [--registry-port N] [--control-plane-port N]
                [--postgres URL [--postgres-schema-prefix P]] [--log-level L]

Starts the registry and the control plane in this process on embedded SQLite under the data directory and
wires them: the registry's webhook goes to the control plane's POST /ingest/acdp with a generated HMAC
secret, and the registry is enrolled in the control plane with that secret and its base URL. The trust
layer is on: the registry mints receipts and lineage-head receipts, keeps a transparency log and runs
lifecycle, with a receipt key kept in the dev secrets; the control plane witnesses and cosigns that log with
a dev witness key (a did:key), and the registry serves the cosignatures. Loopback is
opened to the services only through an explicit outbound allowlist (127.0.0.1/32, ::1/128). Secrets and
data persist under the data directory; a second run reuses them. Ctrl-C stops both services gracefully.
Refused with NODE_ENV=production. See docs/dev-stack.md.

Options:
  --reset                  delete the stack's databases, keys and secrets first and start clean
  --demo                   once up, play the demo scenario (acdp demo) and print the console link to its run
  --data-dir DIR           where databases and dev secrets live (default: ACDP_DATA_DIR or ./data)
  --registry-port N        registry port (default ${DEFAULT_REGISTRY_PORT}; 0 = any free port)
  --control-plane-port N   control plane port (default ${DEFAULT_CONTROL_PLANE_PORT}; 0 = any free port)
  --host ADDR              loopback address to bind (default ${DEFAULT_HOST}; must be loopback)
  --postgres URL           keep both services' data in this PostgreSQL database, one schema each
  --postgres-schema-prefix P   schemas P_registry and P_control_plane (default ${DEV_POSTGRES_SCHEMA_PREFIX})
  --log-level L            trace, debug, info (default), warn, error or silent`,
  async run(args, io) {
    const { values } = parseCommandArgs(
      'dev',
      args,
      {
        reset: { type: 'boolean' },
        demo: { type: 'boolean' },
        'data-dir': { type: 'string' },
        'registry-port': { type: 'string' },
        'control-plane-port': { type: 'string' },
        host: { type: 'string' },
        postgres: { type: 'string' },
        'postgres-schema-prefix': { type: 'string' },
        'log-level': { type: 'string' },
      },
      { min: 0, max: 0, names: '' },
    )
    const host = values.host ?? DEFAULT_HOST
    if (!isLoopback(host))
      throw usageError(`--host ${host} is not a loopback address; the dev stack never listens publicly`)
    const logLevel = values['log-level'] ?? 'info'
    if (!['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].includes(logLevel)) {
      throw usageError('--log-level must be trace, debug, info, warn, error or silent')
    }
    const dataDir = resolveDataDir(io, values['data-dir'])
    const postgresUrl = values.postgres
    if (postgresUrl !== undefined && !/^postgres(ql)?:\/\//.test(postgresUrl)) {
      throw usageError('--postgres must be a postgres:// or postgresql:// URL')
    }
    if (values['postgres-schema-prefix'] !== undefined && postgresUrl === undefined) {
      throw usageError('--postgres-schema-prefix needs --postgres URL')
    }
    // Loaded on demand: both services (Fastify, Kysely, their routes) are only needed by this command, and the
    // other commands should not pay their import time.
    const { startDevStack } = await import('../dev/dev-stack.js')
    const stack = await startDevStack({
      dataDir,
      host,
      registryPort: parseIntegerFlag('registry-port', values['registry-port'], 0, 65535) ?? DEFAULT_REGISTRY_PORT,
      controlPlanePort:
        parseIntegerFlag('control-plane-port', values['control-plane-port'], 0, 65535) ?? DEFAULT_CONTROL_PLANE_PORT,
      reset: values.reset === true,
      logLevel,
      writeLog: io.stdout,
      color: process.stdout.isTTY === true && io.env['NO_COLOR'] === undefined,
      nodeEnv: io.env['NODE_ENV'],
      fetch: io.fetch,
      telemetryEnv: io.env,
      ...(postgresUrl === undefined
        ? {}
        : {
            postgres: {
              url: postgresUrl,
              ...(values['postgres-schema-prefix'] === undefined
                ? {}
                : { schemaPrefix: values['postgres-schema-prefix'] }),
            },
          }),
    })
    try {
      const healthy = await checkHealth(io, [`${stack.registryUrl}/healthz`, `${stack.controlPlaneUrl}/healthz`])
      // Wall time since this process started, and the CPU it spent (less sensitive to a busy machine).
      const cpu = process.cpuUsage()
      const ready = { wallMs: Math.round(process.uptime() * 1000), cpuMs: Math.round((cpu.user + cpu.system) / 1000) }
      io.stdout(renderBanner(io, stack, { dataDir, postgresUrl }, healthy ? ready : undefined))
      if (values.demo === true) await playDemo(io, stack, dataDir)
      await new Promise<void>((resolve) => {
        if (io.signal.aborted) resolve()
        else io.signal.addEventListener('abort', () => resolve(), { once: true })
      })
      io.stdout('\nacdp dev: stopping (Ctrl-C again to force)…\n')
    } finally {
      await stack.close()
    }
    io.stdout('acdp dev: both services stopped\n')
    return EXIT.ok
  },
}

/**
 * `--demo`: plays `acdp demo` against the fresh stack and prints the console's link to that run, so the URL
 * `npm start` prints opens on something to look at. A failing demo is reported and the stack keeps running.
 */
async function playDemo(io: CliIo, stack: RunningDevStack, dataDir: string): Promise<void> {
  const { demoCommand } = await import('./demo.js')
  let output = ''
  try {
    await demoCommand.run(['--json', '--data-dir', dataDir], { ...io, stdout: (text: string) => (output += text) })
    const runId = (JSON.parse(output) as { run_id: string }).run_id
    io.stdout(
      `Demo run ${runId} is in the console:\n  ${stack.controlPlaneUrl}/console/#/runs/${encodeURIComponent(runId)}\n\n`,
    )
  } catch (error) {
    io.stderr(`acdp dev: the demo did not complete (${(error as Error).message}); the stack keeps running\n`)
  }
}

function isLoopback(host: string): boolean {
  return host === '::1' || (isIP(host) === 4 && host.startsWith('127.'))
}

async function checkHealth(io: CliIo, urls: string[]): Promise<boolean> {
  const deadline = Date.now() + HEALTH_DEADLINE_MS
  for (const url of urls) {
    for (;;) {
      const ok = await io
        .fetch(url, { signal: AbortSignal.timeout(1000) })
        .then((response) => response.ok)
        .catch(() => false)
      if (ok) break
      if (Date.now() > deadline) {
        io.stderr(`acdp dev: warning: ${url} did not answer 2xx within ${HEALTH_DEADLINE_MS} ms\n`)
        return false
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return true
}

function renderBanner(
  io: CliIo,
  stack: RunningDevStack,
  where: { dataDir: string; postgresUrl: string | undefined },
  ready: { wallMs: number; cpuMs: number } | undefined,
): string {
  const relativeDataDir = relative(io.cwd, where.dataDir)
  const shownDataDir = relativeDataDir === '' ? '.' : relativeDataDir.startsWith('..') ? where.dataDir : relativeDataDir
  const cli = describeCliInvocation(io.cwd)
  // The other commands find this stack through its data directory; name it when it is not the default one.
  const target = where.dataDir === resolveDataDir(io) ? '' : ` --data-dir ${shownDataDir}`
  const storage =
    stack.storage.kind === 'sqlite'
      ? 'SQLite files'
      : `PostgreSQL schemas ${stack.storage.registrySchema}, ${stack.storage.controlPlaneSchema}`
  const secondStack =
    `${cli} dev --data-dir ${shownDataDir}-2 --registry-port ${portAfter(stack.registryUrl, 100)}` +
    ` --control-plane-port ${portAfter(stack.controlPlaneUrl, 100)}` +
    (where.postgresUrl === undefined ? '' : ' --postgres <URL> --postgres-schema-prefix acdp_dev_2')
  return `
ACDP dev stack is up${ready === undefined ? '' : ` (ready ${ready.wallMs} ms after process start, ${ready.cpuMs} ms CPU)`}
  registry        ${stack.registryUrl}   (authority "localhost", did:web:localhost; OpenAPI ${stack.registryOpenApiUrl})
  control plane   ${stack.controlPlaneUrl}
  console         ${stack.controlPlaneUrl}/console/   (sign in with control_plane_api_key from the dev secrets below)
  API docs        ${stack.docsUrl}
  trust layer     receipts, lineage-head receipts, transparency log, lifecycle; witness ${stack.witnessDid}
  data            ${shownDataDir}/   (${storage}; ${stack.isFirstRun ? 'fresh: keys and dev secrets generated' : 'reused'}; "acdp dev --reset" starts clean)
  dev secrets     ${join(shownDataDir, DEV_SECRETS_FILE)}   (receipt and witness keys, control-plane API key, webhook secrets; never commit it)

Run the demo in another terminal:   ${cli} demo${target}
Verify a context:                   ${cli} get <ctx_id> --verify${target}
Audit the transparency log:         ${cli} log audit ${stack.registryUrl}
Follow live events:                 ${cli} watch${target}
A second stack beside this one:     ${secondStack}
Ctrl-C stops both services.

`
}

/** The port of `url` plus `offset`, or 0 (any free port) past the last port. */
function portAfter(url: string, offset: number): number {
  const port = Number(new URL(url).port) + offset
  return port > 65535 ? 0 : port
}
