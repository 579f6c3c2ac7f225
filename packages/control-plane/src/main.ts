#!/usr/bin/env node
/**
 * `acdp-control-plane`: loads the configuration from the environment, migrates, listens, and shuts down
 * gracefully on SIGTERM/SIGINT (exit 0 when the shutdown completed in time, 1 otherwise), and gives memory back
 * when the process turns idle after load (@acdp/service-kit, memory/idle-memory-release.ts).
 */
import { ConfigError, loadConfig } from './core/config.js'
import { DEFAULT_IDLE_MEMORY_RELEASE, startIdleMemoryRelease } from '@acdp/service-kit'
import { startControlPlane } from './start.js'

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`acdp-control-plane: ${error.message}\n`)
      process.exit(78) // EX_CONFIG
    }
    throw error
  }
  const running = await startControlPlane(config, { readEnvironment: () => process.env })
  running.app.log.info({ url: running.url, database: config.database.kind }, 'control plane listening')
  const memoryRelease = config.lifecycle.memoryReleaseOnIdle
    ? startIdleMemoryRelease(DEFAULT_IDLE_MEMORY_RELEASE)
    : undefined
  const stop = (signal: NodeJS.Signals) => {
    running.app.log.info({ signal }, 'shutting down')
    memoryRelease?.stop()
    running.close().then(
      (completed) => process.exit(completed ? 0 : 1),
      () => process.exit(1),
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(
    `acdp-control-plane: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  )
  process.exit(1)
})
