/**
 * `startRegistry(config)`: opens and migrates storage, builds default dependencies (overridable) and the app.
 * The app is not listening; `close()` closes the app, the outbound client and the database, in that order.
 */
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { RegistryConfig } from './config.js'
import { createDefaultDeps, type RegistryDeps } from './deps.js'
import { openRegistryStore } from './store/open-store.js'

export interface RunningRegistry {
  app: FastifyInstance
  deps: RegistryDeps
  /** Migrations applied while opening storage. */
  migrationsApplied: string[]
  close(): Promise<void>
}

export async function startRegistry(
  config: RegistryConfig,
  overrides: Partial<RegistryDeps> = {},
): Promise<RunningRegistry> {
  const opened = await openRegistryStore(config.storage)
  let deps: RegistryDeps | undefined
  try {
    deps = createDefaultDeps(config, opened.store, overrides)
    const app = await buildApp(config, deps)
    const ownedOutbound = overrides.outbound === undefined ? deps.outbound : undefined
    return {
      app,
      deps,
      migrationsApplied: opened.applied,
      async close() {
        await app.close()
        await ownedOutbound?.close()
        await opened.close()
      },
    }
  } catch (error) {
    if (overrides.outbound === undefined) await deps?.outbound?.close()
    await opened.close()
    throw error
  }
}
