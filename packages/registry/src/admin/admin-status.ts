/**
 * The operational snapshot served at `GET /admin/status` (product spec "Endpoints"): storage health,
 * live idempotency records, webhook queue depth, configured revocation feeds, migration state and the effective
 * tenancy settings. Every probe of the store is guarded: a failing database yields `storage.healthy = false` and
 * omits the members it could not read (optional members are omitted, never null), so an operator still gets an
 * answer when they need it most.
 */
import type { RegistryConfig } from '../core/config.js'
import { tenancyStatus } from '../tenancy/tenancy.js'
import type { RegistryStore } from '../store/store.js'
import type { WebhookDispatcher } from '../webhooks/webhooks.js'

export interface AdminStatus {
  build: { version: string; storage_impl: 'sqlite' | 'postgres' }
  storage: { healthy: boolean }
  idempotency: { records?: number }
  webhook: { enabled: boolean; queue_in_flight?: number; queue_capacity?: number }
  revocation: { configured_feeds: number }
  migrations: {
    backend: 'sqlite' | 'postgres'
    /** Applied registry migrations, by count and newest name. */
    applied?: number
    latest?: string
    /** Migrations this build knows that the database lacks (startup applies them, so normally empty). */
    pending?: string[]
  }
  tenancy: {
    require_tenant: boolean
    /** The effective mode (`none` when the setting is absent). */
    tenant_header_trust: 'none' | 'trusted_proxies' | 'any_peer'
    /** Whether `auth.tenant_header_trust` was written by the operator rather than defaulted. */
    tenant_header_trust_configured: boolean
    /** Number of `rate_limit.trusted_proxies` entries. */
    trusted_proxies: number
  }
}

export interface AdminStatusSources {
  config: RegistryConfig
  store: RegistryStore
  webhooks?: WebhookDispatcher
  version: string
  /** The migration names this build ships, in order. */
  knownMigrations: readonly string[]
  clock: () => Date
}

/** Builds the snapshot. Never throws for a store failure (see the module comment). */
export async function readAdminStatus(sources: AdminStatusSources): Promise<AdminStatus> {
  const { config, store } = sources
  const [healthy, records, applied] = await Promise.all([
    store.checkHealth(),
    orUndefined(store.countIdempotencyRecords(sources.clock().getTime())),
    orUndefined(store.listAppliedMigrations()),
  ])
  const queue = sources.webhooks?.stats()
  return {
    build: { version: sources.version, storage_impl: store.kind },
    storage: { healthy },
    idempotency: records === undefined ? {} : { records },
    webhook: queue?.enabled
      ? { enabled: true, queue_in_flight: queue.queue_in_flight, queue_capacity: queue.queue_capacity }
      : { enabled: false },
    revocation: { configured_feeds: config.auth.revocation_feeds.length },
    migrations: {
      backend: store.kind,
      ...(applied === undefined
        ? {}
        : {
            applied: applied.length,
            ...(applied.length === 0 ? {} : { latest: applied[applied.length - 1] as string }),
            pending: sources.knownMigrations.filter((name) => !applied.includes(name)),
          }),
    },
    tenancy: tenancyStatus(config),
  }
}

async function orUndefined<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise
  } catch {
    return undefined
  }
}
