/**
 * Public surface of @acdp/control-plane: build, configure and start the control plane in-process, plus the
 * types and hook points its features and the CLI need.
 */
export { buildApp } from './app.js'
export type { CredentialVerifier, Principal } from './auth/credentials.js'
export { ConfigError, type ControlPlaneConfig, DEFAULT_TENANT, type Environment, loadConfig } from './core/config.js'
export { type ControlPlaneDeps, closeDeps, createDeps, type WebhookOutbox } from './core/deps.js'
export { ControlPlaneError, ERROR_STATUS, type ErrorCode } from './core/errors.js'
export {
  createSecretKeyring,
  isSealedWithCurrentKey,
  openSecret,
  type SecretKeyring,
  sealSecret,
} from './core/secret-box.js'
export { type RunningControlPlane, startControlPlane } from './start.js'
export { CONTROL_PLANE_MIGRATIONS, MIGRATION_TABLE } from './store/migrations/index.js'
export type { StoredEvent } from './store/schema.js'
export type { ControlPlaneStore, StoreTransaction } from './store/store.js'
export { SERVICE_NAME, SERVICE_VERSION } from './core/version.js'
