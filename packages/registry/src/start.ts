/**
 * `startRegistry(config)`: opens and migrates storage, builds default dependencies (overridable) and the app.
 * The app is not listening; `close()` closes the app, the outbound client and the database, in that order.
 */
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import { ConfigError, type RegistryConfig } from './core/config.js'
import { createDefaultDeps, type RegistryDeps } from './core/deps.js'
import { createAuthStore } from './auth/auth-store.js'
import { openRegistryStore } from './store/open-store.js'
import { openSharedRateLimitStore, type SharedRateLimitStore } from './rate-limit/rate-limit-store.js'
import { createRevocationFeedStore } from './auth/revocation-feed-store.js'
import { createContextSearchStore } from './search/search-store.js'
import type { RegistryStore } from './store/store.js'

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
  // rate_limit.backend = "postgres": the limiter's own pool on the storage database (its sessions carry the
  // backend timeout), unless the embedder supplied the store.
  const ownedSharedRateLimits: SharedRateLimitStore | undefined =
    config.rate_limit.backend === 'postgres' && overrides.sharedRateLimits === undefined
      ? await openSharedRateLimitStore({
          url: config.storage.postgres_url,
          timeoutMs: config.rate_limit.backend_timeout_ms,
        })
      : undefined
  try {
    await refuseOrphanedLifecycleState(config, opened.store)
    // The webhook dispatcher is built before the app (and its logger) exists; its log forwards once it does.
    const webhookLog = new ForwardingLog()
    deps = createDefaultDeps(
      config,
      {
        store: opened.store,
        searchStore: createContextSearchStore(opened.database),
        authStore: createAuthStore(opened.database),
        revocationFeedStore: createRevocationFeedStore(opened.database),
        ...(ownedSharedRateLimits ? { sharedRateLimits: ownedSharedRateLimits } : {}),
      },
      overrides,
      webhookLog,
    )
    if (opened.database.walStats) deps.metrics?.setSqliteWalSource(opened.database.walStats)
    const app = await buildApp(config, deps)
    webhookLog.target = app.log
    const ownedWebhooks = overrides.webhooks === undefined ? deps.webhooks : undefined
    const ownedOutbound = overrides.outbound === undefined ? deps.outbound : undefined
    return {
      app,
      deps,
      migrationsApplied: opened.applied,
      async close() {
        // Stop taking requests (draining in-flight ones), then let queued webhooks go out, then release sockets
        // and the database.
        await app.close()
        await ownedWebhooks?.close()
        await ownedOutbound?.close()
        await ownedSharedRateLimits?.close()
        await opened.close()
      },
    }
  } catch (error) {
    if (overrides.webhooks === undefined) await deps?.webhooks?.close()
    if (overrides.outbound === undefined) await deps?.outbound?.close()
    await ownedSharedRateLimits?.close()
    await opened.close()
    throw error
  }
}

/**
 * Product spec "States and transitions", startup rule: with `lifecycle.enabled = false` a store holding lifecycle
 * state (any event, hence any retracted context) is refused before binding — serving it would either hide
 * retractions or emit `retracted` without the profile.
 *
 * @throws ConfigError naming the setting.
 */
export async function refuseOrphanedLifecycleState(
  config: RegistryConfig,
  store: Pick<RegistryStore, 'hasLifecycleState'>,
): Promise<void> {
  if (config.lifecycle.enabled) return
  if (await store.hasLifecycleState()) {
    throw new ConfigError(
      'lifecycle.enabled = false but the store holds lifecycle state (retracted or republished contexts); ' +
        'set lifecycle.enabled = true to serve it',
    )
  }
}

/** A logger whose destination is set later; silent until then. */
class ForwardingLog {
  target:
    | { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void }
    | undefined
  info(object: object, message: string): void {
    this.target?.info(object, message)
  }
  warn(object: object, message: string): void {
    this.target?.warn(object, message)
  }
  error(object: object, message: string): void {
    this.target?.error(object, message)
  }
}
