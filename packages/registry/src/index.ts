/**
 * @acdp/registry — the ACDP registry server. Embedders (the `acdp` CLI, tests) build it in-process:
 *
 * ```ts
 * const config = resolveConfig({ registry: { authority: 'registry.localhost' }, storage: { sqlite_path: ':memory:' } })
 * const registry = await startRegistry(config)       // opens + migrates storage, builds the app (not listening)
 * await registry.app.listen({ port: 0, host: '127.0.0.1' })
 * await registry.close()
 * ```
 */
export { buildApp, IDEMPOTENCY_SWEEP_INTERVAL_MS, REGISTRY_VERSION } from './app.js'
export { type CliProcess, type CliRun, runRegistryCli, SHUTDOWN_GRACE_MS } from './cli.js'
export {
  CONFIG_PATH_ENV,
  ConfigError,
  DEFAULT_CONFIG,
  loadConfig,
  REGISTRY_PROFILES,
  type RegistryConfig,
  type RegistryConfigInput,
  RegistryConfigSchema,
  resolveConfig,
} from './core/config.js'
export {
  allowedDidMethods,
  type CrossRegistryResolver,
  createDefaultDeps,
  createRandomPool,
  type ForeignContext,
  type KeyResolver,
  type ReaderAuthenticator,
  type RegistryDeps,
} from './core/deps.js'
export {
  ACDP_MEDIA_TYPE,
  INTERNAL_ERROR_MESSAGE,
  isRegistryError,
  REGISTRY_ERROR_STATUS,
  type RegistryCode,
  RegistryError,
  renderErrorEnvelope,
} from './core/errors.js'
export { ACDP_VERSION, buildCapabilitiesDocument } from './discovery/capabilities.js'
export { registryDidOf } from './core/registry-did.js'
export { contextLocation, parseCtxIdPath } from './core/context-id.js'
export { loadReceiptKeyring, type ReceiptKeyring } from './receipts/receipt-keyring.js'
export { TransparencyLog, type TransparencyLogOptions } from './log/transparency-log.js'
export {
  type ContextPublishedEvent,
  type ContextRetrievedEvent,
  type PublishOutcomeEvent,
  type RegistryEvent,
  RegistryEvents,
} from './core/registry-events.js'
export { type RunningRegistry, startRegistry } from './start.js'
export { authSigningInput } from './auth/auth-challenge.js'
export { type AuthStore, createAuthStore, type StoredChallenge, type TokenRevocation } from './auth/auth-store.js'
export { createKyselyStore } from './store/kysely-store.js'
export { logNodePosition } from './store/log-node-position.js'
export { migrateRegistryDatabase, type OpenedRegistryStore, openRegistryStore } from './store/open-store.js'
export type { RegistryDatabase } from './store/schema.js'
export type { IdempotencyRecord, InsertContextResult, NewContext, RegistryStore, StoredContext } from './store/store.js'
