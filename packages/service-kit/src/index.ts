export { buildLazySerializer, compileOnFirstUse } from './http/lazy-schema-compilers.js'
export { applyRequestTimeouts } from './http/server-timeouts.js'
export { loadJose } from './jose-module.js'
export { registerSqliteWalMetrics } from './metrics/sqlite-wal-metrics.js'
export { admitBody, type BodyContract, bodyContractOf, settleUnparsedBody } from './http/body-contract.js'
export {
  type ClientErrorAnswer,
  classifyClientError,
  createClientErrorHandler,
  type ParserError,
} from './http/client-error.js'
export { type HttpObservation, observeEveryResponse } from './metrics/http-metrics-hook.js'
export {
  DEFAULT_IDLE_MEMORY_RELEASE,
  type IdleMemoryRelease,
  type IdleMemoryReleaseOptions,
  type IdleMemoryReleaseProbes,
  startIdleMemoryRelease,
} from './memory/idle-memory-release.js'
export { FEED_PAGE_LIMIT, type FeedPage, type FeedPollResult, type FeedSource } from './revocation/feed-polling.js'
export {
  type FeedPollOutcome,
  type FeedRecording,
  RevocationFeedPoller,
  type RevocationFeedPollerOptions,
  type RevocationFeedSource,
} from './revocation/revocation-feed-poller.js'
export {
  createFeedCursorStore,
  type FeedCursorState,
  type FeedCursorStore,
  type FeedCursorTable,
} from './revocation/feed-cursor-store.js'
export { cappedExponentialMs, jitterFraction } from './backoff/exponential-backoff.js'
export { cutFeedRows, type FeedRows, feedPageOf } from './revocation/feed-page.js'
export {
  type DurationUnit,
  describeEnv,
  Env,
  type EnvKind,
  type EnvParse,
  type EnvProblem,
  type EnvSource,
  type EnvVariableDescription,
  loadEnv,
  parseEnv,
} from './config/env-schema.js'
export { ConfigError } from './config/config-error.js'
export { deepFreeze } from './config/deep-freeze.js'
export type { EnvOverlayOptions } from './config/env-overlay.js'
export {
  type ConfigFileFormat,
  isPlainObject,
  type LayeredConfig,
  layeredConfig,
  type LayeredConfigDefinition,
  type LayeredConfigSources,
} from './config/layered-config.js'
export type { RouteAuthKind, RouteAuthKinds } from './http/route-auth-kinds.js'
export { type Ed25519SigningKey, loadEd25519SigningKey, tokenHeader } from './tokens/ed25519-signing-key.js'
export { challengeSigningInput } from './tokens/challenge-signing-input.js'
export {
  type CheckedJwt,
  type JwtCheck,
  JwtRefusal,
  type JwtVerificationKey,
  verifyJwt,
} from './tokens/jwt-verification.js'
export { type CachedVerification, VerifiedTokenCache } from './tokens/verified-token-cache.js'
