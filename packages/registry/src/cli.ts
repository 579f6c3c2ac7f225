/**
 * The `acdp-registry` command, with its process effects injected so it can be tested in-process: loads and
 * validates the configuration, migrates storage, listens, and on SIGINT/SIGTERM stops accepting connections and
 * drains in-flight requests for up to 30 s. A refused configuration exits 2 with one line, before the port is
 * bound and before the database is touched.
 */
import { formatLogId } from '@acdp/protocol'
import type { FastifyInstance } from 'fastify'
import { ConfigError, loadConfig, type RegistryConfig } from './core/config.js'
import { registryDidOf } from './core/registry-did.js'
import { runLogSelfCheck } from './log/log-self-check.js'
import { loadReceiptKeyring } from './receipts/receipt-keyring.js'
import type { PinnedKeyEntry } from './auth/pinned-keys.js'
import { type RunningRegistry, startRegistry } from './start.js'
import { openRegistryStore } from './store/open-store.js'

/** Product spec "Limits": graceful shutdown drains in-flight requests for up to 30 s. */
export const SHUTDOWN_GRACE_MS = 30_000

/** What the command needs from its process. */
export interface CliProcess {
  env: NodeJS.ProcessEnv
  stdout: (text: string) => void
  stderr: (text: string) => void
  exit: (code: number) => void
  /** Registers a handler for SIGINT and SIGTERM. */
  onStopSignal: (handler: (signal: string) => void) => void
}

/** A started command: the running registry and a promise that settles when shutdown has finished. */
export interface CliRun {
  registry: RunningRegistry
  config: RegistryConfig
  stopped: Promise<void>
}

/**
 * Runs the command. Resolves once listening (or undefined after a refusal or `--help`, with `exit` called).
 * Exit codes: 0 clean shutdown, 1 fatal error or shutdown deadline passed, 2 refused configuration.
 */
export async function runRegistryCli(argv: string[], proc: CliProcess): Promise<CliRun | undefined> {
  if (argv[0] === 'log') {
    await runLogCommand(argv.slice(1), proc)
    return undefined
  }
  let config: RegistryConfig
  let reloadPinnedKeys: () => readonly PinnedKeyEntry[]
  try {
    const path = configPathFrom(argv)
    if (path === 'help') {
      proc.stdout(
        'usage: acdp-registry [--config registry.toml]\n' +
          '       acdp-registry log verify [--config registry.toml]\n' +
          '(ACDP_REGISTRY_CONFIG names the file otherwise; see docs/registry/configuration.md)\n',
      )
      proc.exit(0)
      return undefined
    }
    config = loadConfig({ env: proc.env, ...(path === undefined ? {} : { path }) })
    // The pinned-key reload reads the same sources again, with every startup rule.
    reloadPinnedKeys = () =>
      loadConfig({ env: proc.env, ...(path === undefined ? {} : { path }) }).playground.pinned_keys
  } catch (error) {
    if (error instanceof ConfigError) {
      proc.stderr(`acdp-registry: refusing to start: ${error.message}\n`)
      proc.exit(2)
      return undefined
    }
    throw error
  }

  let registry: RunningRegistry
  try {
    registry = await startRegistry(config, { reloadPinnedKeys })
  } catch (error) {
    // Refusals that need the store (the lifecycle-state rule) come back as ConfigError too: same exit, same line.
    if (error instanceof ConfigError) {
      proc.stderr(`acdp-registry: refusing to start: ${error.message}\n`)
      proc.exit(2)
      return undefined
    }
    throw error
  }
  if (config.webhook.enabled && registry.deps.outbound) {
    // Product spec "Events" 5: the webhook URL must pass the outbound SSRF policy at startup.
    try {
      await registry.deps.outbound.checkUrl(config.webhook.url)
    } catch (error) {
      await registry.close()
      proc.stderr(
        `acdp-registry: refusing to start: webhook.url is refused by the outbound policy (${(error as Error).message})\n`,
      )
      proc.exit(2)
      return undefined
    }
  }
  await registry.app.listen({ port: config.registry.port, host: config.registry.bind })

  let resolveStopped: () => void = () => {}
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve
  })
  let stopping = false
  proc.onStopSignal((signal) => {
    if (stopping) return
    stopping = true
    shutDown(registry.app, registry, signal, proc).finally(resolveStopped)
  })
  return { registry, config, stopped }
}

async function shutDown(
  app: FastifyInstance,
  registry: RunningRegistry,
  signal: string,
  proc: CliProcess,
): Promise<void> {
  app.log.info({ signal }, 'shutting down: draining in-flight requests')
  const deadline = setTimeout(() => {
    app.log.error('shutdown grace period elapsed; exiting with requests still in flight')
    proc.exit(1)
  }, SHUTDOWN_GRACE_MS)
  deadline.unref()
  try {
    await registry.close()
    clearTimeout(deadline)
    proc.exit(0)
  } catch (error) {
    clearTimeout(deadline)
    app.log.error({ err: error }, 'error while shutting down')
    proc.exit(1)
  }
}

/**
 * `acdp-registry log verify`: recomputes the transparency log from the stored leaves and compares it with the
 * stored nodes and the last signed checkpoint (the same self-check the server runs at startup), without
 * serving anything. Exit 0 when intact, 1 when not (the reason on stderr), 2 for a refused invocation.
 */
async function runLogCommand(argv: string[], proc: CliProcess): Promise<void> {
  let config: RegistryConfig
  try {
    if (argv[0] !== 'verify') throw new ConfigError('usage: acdp-registry log verify [--config registry.toml]')
    const path = configPathFrom(argv.slice(1))
    if (path === 'help') throw new ConfigError('usage: acdp-registry log verify [--config registry.toml]')
    config = loadConfig({ env: proc.env, ...(path === undefined ? {} : { path }) })
    if (!config.log.enabled) throw new ConfigError('log.enabled = false: this registry keeps no transparency log')
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    proc.stderr(`acdp-registry: ${error.message}\n`)
    proc.exit(2)
    return
  }
  const keyring = loadReceiptKeyring(config)
  if (!keyring) throw new Error('log.enabled without a receipt key passed validation')
  const opened = await openRegistryStore(config.storage)
  try {
    const result = await runLogSelfCheck(opened.store.log, {
      logId: formatLogId(registryDidOf(config.registry.authority), config.log.instance),
      checkpointKeys: new Map([
        [keyring.signingKey.keyId, keyring.publicKey],
        ...keyring.retired.map((k) => [k.keyId, k.publicKey] as const),
      ]),
    })
    if (result.ok) {
      proc.stdout(
        `transparency log intact: ${result.treeSize} leaves; last signed checkpoint at tree size ${result.checkpointTreeSize ?? 'none'}\n`,
      )
      proc.exit(0)
    } else {
      proc.stderr(`transparency log FAILED its self-check at ${result.treeSize} leaves: ${result.reason}\n`)
      proc.exit(1)
    }
  } finally {
    await opened.close()
  }
}

/** `--config <file>`, `--config=<file>`, `-c <file>`; 'help' for `--help`. */
function configPathFrom(argv: string[]): string | undefined {
  const [first, second, ...rest] = argv
  const unknown = (arg: string) =>
    new ConfigError(`unknown argument "${arg}" (usage: acdp-registry [--config registry.toml])`)
  if (first === undefined) return undefined
  if (first === '--help' || first === '-h') return 'help'
  if (first.startsWith('--config=')) {
    if (second !== undefined) throw unknown(second)
    return first.slice('--config='.length)
  }
  if (first !== '--config' && first !== '-c') throw unknown(first)
  if (second === undefined || second.startsWith('-')) throw new ConfigError('--config needs a file path')
  if (rest[0] !== undefined) throw unknown(rest[0])
  return second
}
