/**
 * Everything the control plane gets from outside (STYLE rule 10): storage, time, randomness, logging, the live
 * event bus, metrics, the domain-pack registry, and the hook points of the webhook feature.
 *
 * `buildApp(config, deps)` takes these ready-made (tests inject a fixed clock and their own bus); `createDeps`
 * builds the production set: opens and migrates the database, loads the secrets keyring and domain packs, and
 * starts the bus (in-process on SQLite; LISTEN/NOTIFY relay on PostgreSQL).
 */
import { randomBytes } from 'node:crypto'
import type { OutboundClient } from '@acdp/protocol'
import type { Database } from '@acdp/storage'
import { migrateToLatest, openDatabase } from '@acdp/storage'
import type { FastifyBaseLogger } from 'fastify'
import type { CredentialVerifier } from '../auth/credentials.js'
import type { ControlPlaneConfig, Environment } from './config.js'
import { type ControlPlaneMetrics, createMetrics } from './metrics.js'
import { loadSecretKeyring } from './secret-keyring.js'
import { type DomainPackRegistry, loadDomainPacks } from '../domain-packs/domain-packs.js'
import { createMemoryEventBus, type EventBus } from '../events/event-bus.js'
import { createPostgresEventBus } from '../events/event-bus-postgres.js'
import type { SecretKeyring } from './secret-box.js'
import { createEventHistory } from '../streams/sse-history.js'
import type { RunTraceSink } from '../telemetry/run-traces.js'
import { createKyselyStore } from '../store/kysely-store.js'
import { CONTROL_PLANE_MIGRATIONS, MIGRATION_TABLE } from '../store/migrations/index.js'
import type { ControlPlaneTables, StoredEvent } from '../store/schema.js'
import type { ControlPlaneStore, StoreTransaction } from '../store/store.js'

/**
 * The webhook outbox hook: called INSIDE the ingest transaction, after the event row is written, so the outbox
 * rows commit (or roll back) with the event. Throwing aborts the whole ingest (the registry retries it).
 */
export interface WebhookOutbox {
  enqueue(tx: StoreTransaction, event: StoredEvent): Promise<void>
  /**
   * False only when `enqueue` would certainly write nothing for an event of `eventType` (the tenant's cached
   * subscriptions match none): the ingest then writes the event without a transaction hook. Absent: true.
   */
  mayEnqueue?(tenantId: string, eventType: string): boolean
}

/** Injected dependencies of {@link buildApp}. */
export interface ControlPlaneDeps {
  /** The store; buildApp never closes it (whoever created it does, see {@link closeDeps}). */
  store: ControlPlaneStore
  /** The database under the store (stream history reads it; PostgreSQL exposes its pool). */
  database: Database<ControlPlaneTables>
  /** Wall clock. */
  clock: () => Date
  /** Cryptographic randomness: `size` bytes. */
  random: (size: number) => Uint8Array
  /** Logger; when absent Fastify builds one at config.server.logLevel. */
  logger?: FastifyBaseLogger
  /** Keyring sealing secrets at rest (core/secret-box.ts). */
  secrets: SecretKeyring
  /**
   * Live event bus (events/event-bus.ts). Ingest publishes each newly committed event once, after the commit,
   * never for a duplicate.
   */
  bus: EventBus
  /** Prometheus metrics of this instance (metrics.ts). */
  metrics: ControlPlaneMetrics
  /** Registered domain packs and the ingest context-type gate (domain-packs/domain-packs.ts). */
  domainPacks: DomainPackRegistry
  /** Webhook outbox hook; absent = no outbound webhooks. */
  webhookOutbox?: WebhookOutbox
  /**
   * OpenTelemetry export of runs (telemetry/run-traces.ts); ingest hands it each committed event. When absent,
   * buildApp opens the exporter configured by OTEL_EXPORTER_OTLP_ENDPOINT, if any, and closes it with the app.
   */
  runTraces?: RunTraceSink
  /** Extra bearer verifiers tried before the JWT and API-key verifiers. */
  credentialVerifiers?: readonly CredentialVerifier[]
  /**
   * The live environment, re-read by POST /admin/pinned-keys/reload (main.ts passes `process.env`); when absent
   * the reload re-applies the boot value.
   */
  readEnvironment?: () => Environment
  /**
   * The one SSRF-safe client of every outbound feature (federation proxy, trusted issuers' JWKS, revocation feeds,
   * witness registry and DID reads, outbound webhooks); when absent buildApp builds one from config.outbound and
   * closes it with the app. An injected one (tests trusting their CA and resolving their fake hosts) is closed by
   * its owner.
   */
  outbound?: OutboundClient
}

/**
 * Builds the production dependencies: opens the database named by the configuration, applies every pending
 * migration, loads (in development: creates) the secrets keyring, resolves DOMAIN_PACKS, starts the bus.
 * `overrides` replace any member (a given `store` must come with its `database`).
 *
 * @throws DomainPackError for a bad DOMAIN_PACKS entry; database and migration errors as thrown.
 */
export async function createDeps(
  config: ControlPlaneConfig,
  overrides: Partial<ControlPlaneDeps> = {},
): Promise<ControlPlaneDeps> {
  const domainPacks = overrides.domainPacks ?? loadDomainPacks(config.domainPacks)
  let database = overrides.database
  let store = overrides.store
  if (database === undefined) {
    if (store !== undefined) throw new TypeError('createDeps: an injected store needs its database too')
    database =
      config.database.kind === 'postgres'
        ? await openDatabase<ControlPlaneTables>({
            kind: 'postgres',
            url: config.database.url,
            max: config.database.poolMax,
          })
        : await openDatabase<ControlPlaneTables>({
            kind: 'sqlite',
            path: config.database.path,
            walMaxBytes: config.database.walMaxBytes,
          })
  }
  try {
    if (store === undefined) {
      await migrateToLatest(database, [...CONTROL_PLANE_MIGRATIONS], { table: MIGRATION_TABLE })
      store = createKyselyStore(database)
    }
    const metrics = overrides.metrics ?? createMetrics()
    if (database.walStats) metrics.setSqliteWalSource(database.walStats)
    const random = overrides.random ?? ((size: number) => new Uint8Array(randomBytes(size)))
    const bus =
      overrides.bus ??
      (database.kind === 'postgres' && database.pool
        ? await createPostgresEventBus({
            pool: database.pool,
            loadEvent: createEventHistory(store).load,
            instanceId: Buffer.from(random(8)).toString('hex'),
            metrics,
          })
        : createMemoryEventBus())
    return {
      clock: () => new Date(),
      secrets: overrides.secrets ?? (await loadSecretKeyring(config)),
      ...overrides,
      random,
      metrics,
      bus,
      domainPacks,
      store,
      database,
    }
  } catch (error) {
    await (store ?? database).close()
    throw error
  }
}

/** Releases what {@link createDeps} opened: stops the bus, closes the store and its database. */
export async function closeDeps(deps: ControlPlaneDeps): Promise<void> {
  try {
    await deps.bus.close()
  } finally {
    await deps.store.close()
  }
}
