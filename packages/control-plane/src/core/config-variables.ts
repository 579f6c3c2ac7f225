/**
 * Every environment variable the control plane reads: name, kind, default, bounds and meaning, as one TypeBox
 * schema (@acdp/service-kit `Env`). `loadConfig` (config.ts) parses the environment against it, then applies the
 * rules that join several variables. docs/control-plane/configuration.md documents exactly these names
 * (config-variables.test.ts keeps the two equal).
 *
 * A boolean without a default here has one that depends on NODE_ENV; config.ts applies it.
 */
import { Env } from '@acdp/service-kit'
import { type Static, Type } from 'typebox'

const MIB = 1024 * 1024
const MAX_TIMER_MS = 2_147_483_647

/** Listed in the order config.ts reads them, grouped as the configuration page groups them. */
export const CONTROL_PLANE_VARIABLES = Type.Object({
  // Environment and server.
  NODE_ENV: Env.enum(['development', 'test', 'production'], {
    description: 'runtime environment',
    default: 'development',
  }),
  LOG_LEVEL: Env.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    description: 'pino log level',
    default: 'info',
  }),
  PORT: Env.integer({ description: 'listen port (0 = any free port)', default: 3001, minimum: 0, maximum: 65535 }),
  HOST: Env.string({ description: 'listen address', default: '0.0.0.0' }),
  PUBLIC_HOST: Env.string({ description: 'host name clients use; a did:web WITNESS_ID must name it' }),
  TRUST_PROXY: Env.string({ description: 'X-Forwarded-For trust: a hop count 1-10 or proxy addresses/CIDRs' }),
  HTTP_MAX_BODY_BYTES: Env.integer({
    description: 'body cap of every JSON route except the HMAC routes',
    default: MIB,
    minimum: 1024,
    maximum: 64 * MIB,
  }),
  HTTP_HEADERS_TIMEOUT_MS: Env.integer({
    description: "a request's headers must arrive within this (slowloris bound)",
    default: 10_000,
    minimum: 1000,
    maximum: 3_600_000,
  }),
  HTTP_REQUEST_TIMEOUT_MS: Env.integer({
    description: 'a whole request (headers and body) must arrive within this',
    default: 30_000,
    minimum: 1000,
    maximum: 3_600_000,
  }),
  SWAGGER_ENABLED: Env.boolean({ description: 'serve the OpenAPI document (default: true in development only)' }),
  SWAGGER_PATH: Env.string({ description: 'path of the API docs', default: 'docs' }),
  CONSOLE_ENABLED: Env.boolean({ description: "serve the web console's static build at /console", default: true }),
  CONSOLE_ASSETS_DIR: Env.string({ description: "directory of the console build ('' = packages/console/dist)" }),

  // Storage.
  DATA_DIR: Env.string({
    description: 'where the SQLite file and the development secrets key live',
    default: './data',
  }),
  DATABASE_URL: Env.string({ description: 'postgres:// URL selecting PostgreSQL (empty: SQLite)', secret: true }),
  DB_POOL_MAX: Env.integer({ description: 'PostgreSQL pool size', default: 20, minimum: 1, maximum: 1000 }),
  SQLITE_PATH: Env.string({ description: 'SQLite file (default <DATA_DIR>/control-plane.db)' }),
  SQLITE_WAL_MAX_BYTES: Env.integer({
    description: 'WAL size at which the checkpoint worker runs a TRUNCATE checkpoint',
    default: 64 * MIB,
    minimum: MIB,
    maximum: 64 * 1024 * MIB,
  }),

  // Ingest (HMAC routes).
  WEBHOOK_SECRET: Env.string({ description: 'global HMAC secret of the ingest routes', secret: true }),
  WEBHOOK_SECRET_PREVIOUS: Env.string({ description: 'the old WEBHOOK_SECRET during a rotation', secret: true }),
  INGEST_REQUIRE_ENROLLMENT: Env.boolean({
    description: 'refuse events from authorities not enrolled',
    default: false,
  }),
  INGEST_STRICT_TENANT: Env.boolean({ description: 'unenrolled senders may not assert X-Tenant-Id', default: false }),
  INGEST_ALLOW_UNSIGNED_TENANT: Env.boolean({
    description: "an unenrolled sender's unsigned X-Tenant-Id chooses the tenant (default: false in production)",
  }),
  INGEST_MAX_BODY_BYTES: Env.integer({
    description: 'ingest body cap, enforced while the body streams in',
    default: MIB,
    minimum: 1024,
    maximum: 64 * MIB,
  }),
  INGEST_MAX_JSON_DEPTH: Env.integer({ description: 'JSON nesting bound', default: 64, minimum: 2, maximum: 1024 }),
  INGEST_SIGNATURE_TOLERANCE_SECONDS: Env.integer({
    description: 'window of the timestamped signature',
    default: 300,
    minimum: 1,
    maximum: 86_400,
  }),
  INGEST_REQUIRE_TIMESTAMPED_SIGNATURE: Env.boolean({
    description: 'refuse deliveries signed only with the plain X-ACDP-Signature (default: true in production)',
  }),
  ENROLLMENT_CACHE_MS: Env.integer({
    description: 'how long a cached enrollment may be used (0 = no cache)',
    default: 5000,
    minimum: 0,
    maximum: 3_600_000,
  }),

  // API keys and tenants.
  AUTH_API_KEYS: Env.list({ description: 'API keys', unique: true, secret: true }),
  AUTH_ADMIN_API_KEYS: Env.list({ description: 'API keys also allowed on admin routes', unique: true, secret: true }),
  TENANT_API_KEYS: Env.list({ description: 'tenantId:key pairs binding a key to one tenant', secret: true }),
  AUTH_REQUIRE_TENANT: Env.boolean({
    description: 'refuse requests resolving only to the default tenant',
    default: false,
  }),

  // Secrets at rest.
  SECRETS_ENCRYPTION_KEY: Env.string({ description: '32-byte AES-256-GCM key (base64 or hex)', secret: true }),
  SECRETS_ENCRYPTION_KEY_PREVIOUS: Env.list({ description: 'older keys still accepted for decryption', secret: true }),

  // Outbound HTTP.
  OUTBOUND_ALLOW_CIDRS: Env.list({ description: 'allowlist of loopback/private destinations (not in production)' }),
  OUTBOUND_ALLOW_HTTP: Env.boolean({ description: 'plain http to allowlisted destinations only', default: false }),
  OUTBOUND_MAX_POOLS: Env.integer({
    description: 'origins whose idle keep-alive connection is kept',
    default: 1024,
    minimum: 1,
    maximum: 100_000,
  }),

  // Transparency-log witness.
  LOG_WITNESS_ENABLED: Env.boolean({ description: "poll enrolled registries' checkpoints", default: false }),
  WITNESS_COSIGNING_ENABLED: Env.boolean({ description: 'cosign witnessed checkpoints', default: false }),
  WITNESS_ID: Env.string({ description: 'our witness DID (did:web or did:key)' }),
  WITNESS_KEY_ID: Env.string({ description: 'witness key id (default <WITNESS_ID>#witness-key-1)' }),
  WITNESS_SIGNING_PRIVATE_KEY_PEM: Env.string({ description: 'dedicated Ed25519 witness key (PEM)', secret: true }),
  WITNESS_QUORUM_ENABLED: Env.boolean({ description: 'count registry-aggregated cosignatures', default: false }),
  WITNESS_QUORUM_TRUSTED: Env.list({ description: 'witness DIDs whose cosignatures count', unique: true }),
  LOG_WITNESS_SCHEDULE: Env.boolean({ description: 'run the witness sweep on this instance', default: true }),
  LOG_WITNESS_INTERVAL_SECONDS: Env.integer({
    description: 'time between two polls of one registry',
    default: 300,
    minimum: 1,
    maximum: 86_400,
  }),
  LOG_WITNESS_EXCLUDE_AUTHORITIES: Env.list({ description: 'enrolled authorities never polled' }),
  LOG_WITNESS_CONCURRENCY: Env.integer({ description: 'polls run at once', default: 64, minimum: 1, maximum: 1024 }),
  LOG_WITNESS_POLL_TIMEOUT_MS: Env.integer({
    description: 'deadline of one whole poll',
    default: 15_000,
    minimum: 1000,
    maximum: 120_000,
  }),
  LOG_WITNESS_UNREACHABLE_THRESHOLD: Env.integer({
    description: 'consecutive failed polls before the unreachable alert',
    default: 5,
    minimum: 1,
    maximum: 10_000,
  }),
  LOG_WITNESS_MAX_CLOCK_SKEW_SECONDS: Env.integer({
    description: 'how far a checkpoint timestamp may lead our clock',
    default: 120,
    minimum: 0,
    maximum: 3600,
  }),
  LOG_WITNESS_CHECKPOINTS_KEPT: Env.integer({
    description: 'witnessed checkpoints kept per registry',
    default: 100,
    minimum: 1,
    maximum: 10_000_000,
  }),
  WITNESS_COSIGNATURES_KEPT_PER_LOG: Env.integer({
    description: 'cosignatures served per log',
    default: 100,
    minimum: 1,
    maximum: 1_000_000,
  }),
  WITNESS_QUORUM_MIN_WITNESSES: Env.integer({
    description: 'trusted cosignatures needed',
    default: 1,
    minimum: 1,
    maximum: 100,
  }),
  WITNESS_QUORUM_MAX_CLOCK_SKEW_SECONDS: Env.integer({
    description: 'a cosignature dated further ahead is refused',
    default: 120,
    minimum: 0,
    maximum: 3600,
  }),

  // OpenTelemetry export of runs (read only when an endpoint is set and OTEL_SDK_DISABLED is not true).
  OTEL_EXPORTER_OTLP_ENDPOINT: Env.string({ description: 'OTLP/HTTP base endpoint', secret: true }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Env.string({ description: 'full OTLP traces URL', secret: true }),
  OTEL_SDK_DISABLED: Env.boolean({ description: 'turn the export off', default: false }),
  OTEL_EXPORTER_OTLP_PROTOCOL: Env.string({ description: 'OTLP encoding (http/json only)' }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Env.string({ description: 'OTLP encoding of traces (http/json only)' }),
  OTEL_EXPORTER_OTLP_HEADERS: Env.list({ description: 'key=value headers of every export', secret: true }),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: Env.list({ description: 'key=value headers of trace exports', secret: true }),
  OTEL_BSP_MAX_QUEUE_SIZE: Env.integer({
    description: 'spans waiting or in flight',
    default: 2048,
    minimum: 1,
    maximum: 1_000_000,
  }),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: Env.integer({
    description: 'spans per export (at most the queue size)',
    default: 512,
    minimum: 1,
    maximum: 100_000,
  }),
  OTEL_EXPORTER_OTLP_TIMEOUT: Env.integer({
    description: 'ms one export may take',
    default: 10_000,
    minimum: 100,
    maximum: 600_000,
  }),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: Env.integer({
    description: 'ms one trace export may take (wins over OTEL_EXPORTER_OTLP_TIMEOUT)',
    default: 10_000,
    minimum: 100,
    maximum: 600_000,
  }),
  OTEL_SERVICE_NAME: Env.string({ description: 'service.name of exported spans', default: 'acdp-control-plane' }),
  OTEL_BSP_SCHEDULE_DELAY: Env.integer({
    description: 'ms between two exports of a partial batch',
    default: 5000,
    minimum: 1,
    maximum: 3_600_000,
  }),

  // Domain packs, streams and webhooks.
  DOMAIN_PACKS: Env.list({ description: 'domain packs to activate', unique: true }),
  STREAM_SSE_HEARTBEAT_MS: Env.integer({
    description: 'SSE heartbeat period',
    default: 15_000,
    minimum: 1000,
    maximum: 3_600_000,
  }),
  STREAM_SSE_SHUTDOWN_RETRY_MS: Env.integer({
    description: 'the retry: hint of the shutdown frame',
    default: 1000,
    minimum: 0,
    maximum: 3_600_000,
  }),
  WEBHOOK_RETRY_INTERVAL_MS: Env.integer({
    description: 'period of the retry sweep (<= 0 disables it)',
    default: 300_000,
    minimum: -1,
    maximum: MAX_TIMER_MS,
  }),
  WEBHOOK_MAX_ATTEMPTS: Env.integer({
    description: 'attempts before a delivery is marked failed',
    default: 12,
    minimum: 1,
    maximum: 100,
  }),
  WEBHOOK_RETRY_BASE_MS: Env.integer({
    description: 'first retry delay (doubled per attempt, jittered)',
    default: 1000,
    minimum: 10,
    maximum: 3_600_000,
  }),
  WEBHOOK_RETRY_MAX_MS: Env.integer({
    description: 'longest retry delay',
    default: 600_000,
    minimum: 10,
    maximum: 86_400_000,
  }),
  WEBHOOK_TIMEOUT_MS: Env.integer({
    description: 'deadline of one delivery attempt',
    default: 10_000,
    minimum: 1000,
    maximum: 30_000,
  }),
  WEBHOOK_CONCURRENCY: Env.integer({
    description: 'deliveries sent in parallel',
    default: 16,
    minimum: 1,
    maximum: 256,
  }),
  WEBHOOK_DELIVERED_RETENTION_HOURS: Env.integer({
    description: 'delivered outbox rows are deleted after this (0 keeps them)',
    default: 168,
    minimum: 0,
    maximum: 87_600,
  }),

  // Receipt audit.
  RECEIPT_AUDIT_ENABLED: Env.boolean({ description: 'audit receipts of ingested publications (default: not in test)' }),
  RECEIPT_AUDIT_SCHEDULE: Env.boolean({ description: 'run the audit sweep on this instance', default: true }),
  RECEIPT_AUDIT_INTERVAL_MS: Env.integer({
    description: 'pause between two sweeps',
    default: 5000,
    minimum: 100,
    maximum: 3_600_000,
  }),
  RECEIPT_AUDIT_BATCH: Env.integer({ description: 'publications per round', default: 100, minimum: 1, maximum: 1000 }),
  RECEIPT_AUDIT_CONCURRENCY: Env.integer({ description: 'audits in flight', default: 8, minimum: 1, maximum: 64 }),
  RECEIPT_AUDIT_SETTLE_MS: Env.integer({
    description: 'how far behind the newest event the cursor stays',
    default: 2000,
    minimum: 0,
    maximum: 600_000,
  }),
  RECEIPT_AUDIT_MAX_ATTEMPTS: Env.integer({
    description: 'tries of an environmental failure',
    default: 5,
    minimum: 1,
    maximum: 100,
  }),
  RECEIPT_AUDIT_RETRY_BASE_MS: Env.integer({
    description: 'first retry delay (doubled per attempt)',
    default: 30_000,
    minimum: 100,
    maximum: 86_400_000,
  }),
  RECEIPT_AUDIT_TIMEOUT_MS: Env.integer({
    description: 'deadline of each request to a registry or DID host',
    default: 10_000,
    minimum: 100,
    maximum: 30_000,
  }),

  // Log reconciliation.
  LOG_RECONCILE_ENABLED: Env.boolean({ description: "reconcile the registries' logs (default: not in test)" }),
  LOG_RECONCILE_SCHEDULE: Env.boolean({ description: 'run the reconciliation sweep on this instance', default: true }),
  LOG_RECONCILE_INTERVAL_SECONDS: Env.integer({
    description: "time between two walks of one registry's log",
    default: 60,
    minimum: 1,
    maximum: 86_400,
  }),
  LOG_RECONCILE_MAX_ENTRIES: Env.integer({
    description: 'log leaves per registry per walk',
    default: 5000,
    minimum: 1,
    maximum: 1_000_000,
  }),
  LOG_RECONCILE_CONCURRENCY: Env.integer({
    description: 'registries walked at once',
    default: 4,
    minimum: 1,
    maximum: 64,
  }),
  LOG_RECONCILE_TIMEOUT_MS: Env.integer({
    description: 'deadline of each request to a registry',
    default: 10_000,
    minimum: 100,
    maximum: 30_000,
  }),
  LOG_RECONCILE_LIFECYCLE_PAGE_SIZE: Env.integer({
    description: 'held publications whose lifecycle events are re-read per walk (0: off)',
    default: 100,
    minimum: 0,
    maximum: 10_000,
  }),

  // Tokens (auth/token-settings.ts).
  TOKEN_ISSUANCE_ENABLED: Env.boolean({ description: '/auth/challenge and /auth/token answer', default: false }),
  JWT_SIGNING_ALG: Env.enum(['HS256', 'EdDSA'], {
    description: 'signing algorithm of issued tokens',
    default: 'HS256',
  }),
  JWT_SECRET: Env.string({ description: 'HS256 secret (at least 32 bytes)', secret: true }),
  JWT_PRIVATE_KEY_PEM: Env.string({ description: 'EdDSA key (PKCS#8 PEM Ed25519)', secret: true }),
  JWT_AUTHORITY: Env.string({ description: 'iss of issued tokens', default: 'control-plane.local' }),
  JWT_AUDIENCE: Env.string({ description: 'aud of issued tokens (default JWT_AUTHORITY)' }),
  CONTROL_PLANE_PINNED_KEYS: Env.string({ description: 'pinned agent keys (auth/pinned-keys.ts)' }),
  TENANT_AGENTS: Env.list({ description: 'tenantId:agent_did pairs stamped at minting' }),
  TENANT_HEADER_TRUST: Env.enum(['none', 'any_peer'], {
    description: 'whether a JWT without tenant claim may send X-Tenant-Id',
    default: 'none',
  }),
  TRUSTED_ISSUERS: Env.list({ description: 'foreign issuers whose tokens are accepted', secret: true }),
  JWT_KID: Env.string({ description: 'kid header (default derived from the key)' }),
  JWT_TTL_SECONDS: Env.integer({ description: 'issued token lifetime', default: 3600, minimum: 60, maximum: 86_400 }),
  CHALLENGE_TTL_SECONDS: Env.integer({ description: 'challenge lifetime', default: 300, minimum: 30, maximum: 3600 }),
  REVOCATION_FEEDS: Env.list({ description: 'peer revocation feeds polled', secret: true }),
  REVOCATION_SYNC_INTERVAL_MS: Env.integer({
    description: 'how often revocations written by other instances are reloaded',
    default: 2000,
    minimum: 100,
    maximum: 600_000,
  }),
  AUTH_THROTTLE_LIMIT: Env.integer({
    description: 'requests per window per client IP on /auth/*',
    default: 20,
    minimum: 1,
    maximum: 100_000,
  }),
  AUTH_THROTTLE_WINDOW_MS: Env.integer({
    description: 'the /auth/* throttle window',
    default: 60_000,
    minimum: 1000,
    maximum: 3_600_000,
  }),

  // Policy and quotas (policy/policy-settings.ts).
  POLICY_RULES: Env.string({ description: 'ordered policy rules (policy/policy-rules.ts)' }),
  POLICY_DEFAULT: Env.enum(['allow', 'deny'], { description: 'decision when no rule matches', default: 'allow' }),
  TENANT_QUOTAS: Env.string({ description: 'tenant quota rules (policy/quota-rules.ts)' }),
  AGENT_QUOTAS: Env.string({ description: 'agent quota rules (policy/quota-rules.ts)' }),
  QUOTA_STORE: Env.enum(['memory', 'database'], { description: 'where quota counters live', default: 'memory' }),

  // Federation, routing, dashboard, lifecycle.
  FEDERATION_VERIFY_CONTEXTS: Env.boolean({ description: 'verify relayed contexts before a 2xx', default: false }),
  FEDERATION_TIMEOUT_MS: Env.integer({
    description: 'whole-request deadline of a federated call',
    default: 10_000,
    minimum: 100,
    maximum: 10_000,
  }),
  BANDIT_EXPLORATION_FRACTION: Env.number({
    description: 'share of routing decisions drawn uniformly',
    default: 0.05,
    minimum: 0,
    maximum: 1,
  }),
  DASHBOARD_CACHE_MS: Env.integer({
    description: 'how long an overview is reused (0 = no cache)',
    default: 1000,
    minimum: 0,
    maximum: 60_000,
  }),
  DASHBOARD_CACHE_MAX_ENTRIES: Env.integer({
    description: 'overviews kept at most',
    default: 1024,
    minimum: 1,
    maximum: 1_000_000,
  }),
  SHUTDOWN_TIMEOUT_MS: Env.integer({
    description: 'hard deadline of a graceful shutdown',
    default: 10_000,
    minimum: 1000,
    maximum: MAX_TIMER_MS,
  }),
  SHUTDOWN_DRAIN_DELAY_MS: Env.integer({
    description: 'time /readyz reports draining before the listener closes',
    default: 0,
    minimum: 0,
    maximum: 600_000,
  }),
  READINESS_DB_TIMEOUT_MS: Env.integer({
    description: 'deadline of the readiness database check',
    default: 1000,
    minimum: 10,
    maximum: 60_000,
  }),
  READINESS_CACHE_MS: Env.integer({
    description: 'how long a database check verdict is reused',
    default: 1000,
    minimum: 0,
    maximum: 60_000,
  }),
  MEMORY_RELEASE_ON_IDLE: Env.boolean({
    description: 'one memory-reducing collection when the process turns idle after its resident set grew',
    default: true,
  }),
})

/** The parsed environment: every variable above, typed. */
export type ControlPlaneVariables = Static<typeof CONTROL_PLANE_VARIABLES>
