#!/usr/bin/env node
/**
 * `acdp-registry [--config registry.toml]` (or ACDP_REGISTRY_CONFIG): loads and validates the configuration,
 * migrates storage, listens, and on SIGINT/SIGTERM stops accepting connections and drains in-flight requests for
 * up to 30 s. A refused configuration exits non-zero with one line, before the port is bound and before the
 * database is touched.
 */
import { ConfigError, loadConfig } from './config.js'
import { startRegistry } from './start.js'

/** Product spec "Limits": graceful shutdown drains in-flight requests for up to 30 s. */
const SHUTDOWN_GRACE_MS = 30_000

async function main(argv: string[]): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  try {
    const path = configPathFrom(argv)
    config = loadConfig(path === undefined ? {} : { path })
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`acdp-registry: refusing to start: ${error.message}\n`)
      process.exit(2)
    }
    throw error
  }

  const registry = await startRegistry(config)
  if (config.webhook.enabled && registry.deps.outbound) {
    // Product spec "Events" 5: the webhook URL must pass the outbound SSRF policy at startup.
    try {
      await registry.deps.outbound.checkUrl(config.webhook.url)
    } catch (error) {
      await registry.close()
      process.stderr.write(
        `acdp-registry: refusing to start: webhook.url is refused by the outbound policy (${(error as Error).message})\n`,
      )
      process.exit(2)
    }
  }
  const { app } = registry
  await app.listen({ port: config.registry.port, host: config.registry.bind })

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down: draining in-flight requests')
    const deadline = setTimeout(() => {
      app.log.error('shutdown grace period elapsed; exiting with requests still in flight')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS)
    deadline.unref()
    registry.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

function configPathFrom(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--config' || arg === '-c') {
      const value = argv[i + 1]
      if (value === undefined) throw new ConfigError('--config needs a file path')
      return value
    }
    if (arg.startsWith('--config=')) return arg.slice('--config='.length)
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: acdp-registry [--config registry.toml]\n(ACDP_REGISTRY_CONFIG names the file otherwise; see docs/registry/configuration.md)\n',
      )
      process.exit(0)
    }
  }
  return undefined
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`acdp-registry: fatal: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
