/**
 * The control plane's configuration: environment variables (product spec control-plane.md,
 * where each setting is named) parsed and validated once into one frozen object.
 *
 * Each variable's kind, default and bounds are declared once in config-variables.ts and parsed by
 * @acdp/service-kit's `parseEnv`; the rules that join several variables (production refusals, key formats,
 * witness identity, telemetry URL) are the plain functions below, run on the parsed values.
 *
 * `loadConfig(env)` is pure: it reads only the object it is given, so tests and the CLI pass their own. Every
 * problem is collected and reported at once as one line per variable, naming the variable and the fix; dangerous
 * combinations are refused outright (STYLE rule 9). Only this file and `main.ts` touch `process.env`.
 */
import { createPrivateKey } from 'node:crypto'
import { isIP } from 'node:net'
import { ConfigError, deepFreeze, parseEnv } from '@acdp/service-kit'
import { readTokenConfig, type TokenConfig } from '../auth/token-settings.js'
import { CONTROL_PLANE_VARIABLES, type ControlPlaneVariables } from './config-variables.js'
import { type PolicyConfig, readPolicyConfig } from '../policy/policy-settings.js'

/** Runtime environment. Anything else is refused so a typo ("prod") cannot silently enable development bypasses. */
export type NodeEnv = 'development' | 'test' | 'production'

/** A key bound to one tenant (TENANT_API_KEYS entry `tenantId:key`). */
export interface TenantApiKey {
  tenantId: string
  key: string
}

/** Where the store lives: embedded SQLite by default, PostgreSQL when DATABASE_URL is set. */
export type DatabaseConfig =
  { kind: 'sqlite'; path: string; walMaxBytes: number } | { kind: 'postgres'; url: string; poolMax: number }

/** The validated, frozen configuration. Holds secrets: never log or serialise it. */
export interface ControlPlaneConfig {
  readonly nodeEnv: NodeEnv
  readonly isProduction: boolean
  readonly isDevelopment: boolean
  readonly server: {
    /** PORT, default 3001. */
    readonly port: number
    /** HOST, default 0.0.0.0. */
    readonly host: string
    /** PUBLIC_HOST: the host name clients use (a did:web WITNESS_ID must name it); empty when unset. */
    readonly publicHost: string
    /** TRUST_PROXY: false, a hop count (1–10) or a list of proxy addresses/CIDRs. */
    readonly trustProxy: false | number | readonly string[]
    /** LOG_LEVEL, default info. */
    readonly logLevel: string
    /** HTTP_MAX_BODY_BYTES: body cap of every JSON route except the HMAC routes, default 1 MiB. */
    readonly maxBodyBytes: number
    /** HTTP_HEADERS_TIMEOUT_MS, default 10000: a request's headers must arrive within this (slowloris bound). */
    readonly headersTimeoutMs: number
    /** HTTP_REQUEST_TIMEOUT_MS, default 30000: a whole request (headers and body) must arrive within this. */
    readonly requestTimeoutMs: number
  }
  readonly database: Readonly<DatabaseConfig>
  /** DATA_DIR, default ./data: the SQLite file and the development secrets key live here. */
  readonly dataDir: string
  readonly ingest: {
    /** WEBHOOK_SECRET: global HMAC secret; '' only in development, where verification is then skipped. */
    readonly webhookSecret: string
    /**
     * WEBHOOK_SECRET_PREVIOUS: during a rotation of WEBHOOK_SECRET, the old secret, accepted as well until it is
     * removed from the configuration; '' when no rotation is in progress.
     */
    readonly webhookSecretPrevious: string
    /** INGEST_REQUIRE_ENROLLMENT: refuse (403) events from authorities that are not enrolled. */
    readonly requireEnrollment: boolean
    /** INGEST_STRICT_TENANT: unenrolled senders may not assert X-Tenant-Id (403 TENANT_HEADER_UNTRUSTED). */
    readonly strictTenant: boolean
    /** INGEST_MAX_BODY_BYTES, default 1 MiB: enforced while the body streams in. */
    readonly maxBodyBytes: number
    /** INGEST_MAX_JSON_DEPTH, default 64: enforced before any value is built. */
    readonly maxJsonDepth: number
    /** INGEST_SIGNATURE_TOLERANCE_SECONDS, default 300: window of the timestamped signature. */
    readonly signatureToleranceSeconds: number
    /**
     * INGEST_REQUIRE_TIMESTAMPED_SIGNATURE, default true in production, false otherwise: refuse deliveries signed
     * only with the plain X-ACDP-Signature (it carries no time, so a captured one replays forever).
     */
    readonly requireTimestampedSignature: boolean
    /**
     * INGEST_ALLOW_UNSIGNED_TENANT, default false in production, true otherwise: an unenrolled sender's X-Tenant-Id
     * chooses the tenant even when X-ACDP-Signature-V2 does not cover it (the product spec's plain scheme). In
     * production it is refused unless INGEST_REQUIRE_ENROLLMENT or INGEST_STRICT_TENANT keeps the header from
     * choosing anything.
     */
    readonly allowUnsignedTenant: boolean
    /** ENROLLMENT_CACHE_MS, default 5000: how long an instance may use a cached enrollment (0 = no cache). */
    readonly enrollmentCacheMs: number
  }
  readonly auth: {
    /** AUTH_API_KEYS. */
    readonly apiKeys: readonly string[]
    /** AUTH_ADMIN_API_KEYS: accepted as credentials and allowed on admin routes. */
    readonly adminApiKeys: readonly string[]
    /** TENANT_API_KEYS: keys bound to one tenant. */
    readonly tenantApiKeys: readonly Readonly<TenantApiKey>[]
    /** AUTH_REQUIRE_TENANT: a request resolving only to `default` is refused. */
    readonly requireTenant: boolean
    /** True when no key at all is configured outside production: authentication is bypassed (spec rule 3). */
    readonly isBypassed: boolean
  }
  /** DOMAIN_PACKS: names of the domain packs to activate (resolved by the domain-pack registry). */
  readonly domainPacks: readonly string[]
  readonly streams: {
    /** STREAM_SSE_HEARTBEAT_MS, default 15000. */
    readonly sseHeartbeatMs: number
    /** STREAM_SSE_SHUTDOWN_RETRY_MS, default 1000: the `retry:` hint of the shutdown frame. */
    readonly sseShutdownRetryMs: number
  }
  readonly webhooks: {
    /** WEBHOOK_RETRY_INTERVAL_MS, default 300000 (<= 0 disables the retry sweep). */
    readonly retryIntervalMs: number
    /** WEBHOOK_MAX_ATTEMPTS, default 12: attempts before a delivery is marked failed. */
    readonly maxAttempts: number
    /** WEBHOOK_RETRY_BASE_MS, default 1000: first retry delay (doubles per attempt, jittered 50–100 %). */
    readonly retryBaseMs: number
    /** WEBHOOK_RETRY_MAX_MS, default 600000: longest retry delay. */
    readonly retryMaxMs: number
    /** WEBHOOK_TIMEOUT_MS, default 10000: deadline of one delivery attempt. */
    readonly requestTimeoutMs: number
    /** WEBHOOK_CONCURRENCY, default 16: deliveries one instance sends in parallel. */
    readonly concurrency: number
    /** WEBHOOK_DELIVERED_RETENTION_HOURS, default 168: delivered outbox rows are deleted after this (0 keeps them). */
    readonly deliveredRetentionHours: number
  }
  readonly swagger: {
    /** SWAGGER_ENABLED, default true only in development. */
    readonly enabled: boolean
    /** SWAGGER_PATH, default /docs. */
    readonly path: string
  }
  readonly console: {
    /** CONSOLE_ENABLED, default true: serve the web console's static build at /console (false → 404). */
    readonly enabled: boolean
    /** CONSOLE_ASSETS_DIR: directory of the console build; '' = packages/console/dist beside this package. */
    readonly assetsDir: string
  }
  readonly secrets: {
    /** SECRETS_ENCRYPTION_KEY: 32-byte AES-256-GCM key (base64 or hex); unset in development = key file. */
    readonly key: string | undefined
    /** SECRETS_ENCRYPTION_KEY_PREVIOUS: older keys still accepted for decryption during rotation. */
    readonly previousKeys: readonly string[]
  }
  readonly outbound: {
    /** OUTBOUND_ALLOW_CIDRS: operator allowlist for loopback/private destinations (refused in production). */
    readonly allowCidrs: readonly string[]
    /** OUTBOUND_ALLOW_HTTP: plain http to allowlisted destinations only. */
    readonly allowHttpForAllowlisted: boolean
    /**
     * OUTBOUND_MAX_POOLS, default 1024: origins whose idle keep-alive connection is kept (least recently used
     * closed beyond). The log witness polls every enrolled registry: at least that many keeps each poll off a new
     * TCP and TLS handshake.
     */
    readonly maxPools: number
  }
  readonly witness: WitnessConfig
  readonly receiptAudit: ReceiptAuditConfig
  readonly logReconcile: LogReconcileConfig
  /** Token authentication: issuance, pinned keys, trusted issuers, revocation (auth/token-settings.ts). */
  readonly tokens: TokenConfig
  /** Policy rules and quotas of the gated actions (policy/policy-settings.ts). */
  readonly policy: PolicyConfig
  readonly federation: {
    /**
     * FEDERATION_VERIFY_CONTEXTS, default false: before relaying a 2xx, verify the producer signature (and the
     * registry receipt when present) of the context; failures answer 502 CONTEXT_BINDING_UNVERIFIABLE.
     */
    readonly verifyContexts: boolean
    /** FEDERATION_TIMEOUT_MS, default 10000 (the product spec's deadline, also the maximum): whole-request deadline. */
    readonly timeoutMs: number
  }
  readonly routing: {
    /** BANDIT_EXPLORATION_FRACTION, default 0.05: share of routing decisions drawn uniformly. */
    readonly explorationFraction: number
  }
  readonly dashboard: {
    /** DASHBOARD_CACHE_MS, default 1000: how long an overview is reused per (tenant, window); 0 = no cache. */
    readonly cacheMs: number
    /** DASHBOARD_CACHE_MAX_ENTRIES, default 1024: (tenant, window) overviews kept at most. */
    readonly cacheMaxEntries: number
  }
  /** OpenTelemetry export of runs (telemetry/); `undefined` when OTEL_EXPORTER_OTLP_ENDPOINT is unset. */
  readonly telemetry: Readonly<TelemetryConfig> | undefined
  readonly lifecycle: {
    /** SHUTDOWN_TIMEOUT_MS, default 10000: hard deadline of a graceful shutdown. */
    readonly shutdownTimeoutMs: number
    /** SHUTDOWN_DRAIN_DELAY_MS, default 0: time /readyz reports draining before the listener closes. */
    readonly shutdownDrainDelayMs: number
    /** READINESS_DB_TIMEOUT_MS, default 1000. */
    readonly readinessDbTimeoutMs: number
    /** READINESS_CACHE_MS, default 1000: how long a database check verdict is reused. */
    readonly readinessCacheMs: number
    /**
     * MEMORY_RELEASE_ON_IDLE, default true: the bin runs one memory-reducing collection when the process turns
     * idle after its resident set grew (@acdp/service-kit, memory/idle-memory-release.ts).
     */
    readonly memoryReleaseOnIdle: boolean
  }
}

/** Transparency-log witness, cosigning and quorum (product spec "Registries and witness", "Witness cosigning"). */
export interface WitnessConfig {
  /** LOG_WITNESS_ENABLED, default false: poll enrolled registries' checkpoints. */
  readonly enabled: boolean
  /**
   * LOG_WITNESS_SCHEDULE, default true: run the background sweep on this instance. false = serve witness state and
   * cosignatures only (API-only instances beside sweeping ones; tests drive polls themselves).
   */
  readonly schedule: boolean
  /** LOG_WITNESS_INTERVAL_SECONDS, default 300: time between two polls of one registry. */
  readonly intervalSeconds: number
  /** LOG_WITNESS_EXCLUDE_AUTHORITIES: enrolled authorities never polled. */
  readonly excludeAuthorities: readonly string[]
  /** LOG_WITNESS_CONCURRENCY, default 64: polls one instance runs at once (a slot is refilled when a poll ends). */
  readonly concurrency: number
  /** LOG_WITNESS_POLL_TIMEOUT_MS, default 15000: deadline of one whole poll (every request it makes). */
  readonly pollTimeoutMs: number
  /** LOG_WITNESS_UNREACHABLE_THRESHOLD, default 5: consecutive failed polls before the `unreachable` alert. */
  readonly unreachableThreshold: number
  /** LOG_WITNESS_MAX_CLOCK_SKEW_SECONDS, default 120: how far a checkpoint timestamp may lead our clock. */
  readonly maxClockSkewSeconds: number
  /** LOG_WITNESS_CHECKPOINTS_KEPT, default 100: witnessed checkpoints kept per registry (oldest pruned). */
  readonly checkpointsKept: number
  readonly cosigning: {
    /** WITNESS_COSIGNING_ENABLED, default false (needs LOG_WITNESS_ENABLED). */
    readonly enabled: boolean
    /** WITNESS_ID: our witness DID (did:web host = PUBLIC_HOST, or did:key); '' when cosigning is off. */
    readonly witnessId: string
    /** WITNESS_KEY_ID, default `<WITNESS_ID>#witness-key-1`. */
    readonly keyId: string
    /** WITNESS_SIGNING_PRIVATE_KEY_PEM: the dedicated Ed25519 key as its 32-byte seed; never logged. */
    readonly privateKeySeed: Uint8Array | undefined
    /** WITNESS_COSIGNATURES_KEPT_PER_LOG, default 100: cosignatures served per log (oldest pruned). */
    readonly cosignaturesKeptPerLog: number
  }
  readonly quorum: {
    /** WITNESS_QUORUM_ENABLED, default false: count registry-aggregated external cosignatures. */
    readonly enabled: boolean
    /** WITNESS_QUORUM_TRUSTED: witness DIDs whose cosignatures count (never our own WITNESS_ID). */
    readonly trusted: readonly string[]
    /** WITNESS_QUORUM_MIN_WITNESSES, default 1. */
    readonly minWitnesses: number
    /** WITNESS_QUORUM_MAX_CLOCK_SKEW_SECONDS, default 120: a cosignature dated further ahead is refused. */
    readonly maxClockSkewSeconds: number
  }
}

/** The receipt audit (RFC-ACDP-0010 §8 over ingested publications; docs/control-plane/api.md "Receipt audit"). */
export interface ReceiptAuditConfig {
  /** RECEIPT_AUDIT_ENABLED, default true (false under NODE_ENV=test, so suites opt in). */
  readonly enabled: boolean
  /** RECEIPT_AUDIT_SCHEDULE, default true: run the background sweep on this instance (false: tests drive it). */
  readonly schedule: boolean
  /** RECEIPT_AUDIT_INTERVAL_MS, default 5000: pause between two sweeps. */
  readonly intervalMs: number
  /** RECEIPT_AUDIT_BATCH, default 100: publications (and, apart, due retries) audited per round. */
  readonly batchSize: number
  /** RECEIPT_AUDIT_CONCURRENCY, default 8: audits in flight at once. */
  readonly concurrency: number
  /** RECEIPT_AUDIT_SETTLE_MS, default 2000: how far behind the newest event the cursor stays. */
  readonly settleMs: number
  /** RECEIPT_AUDIT_MAX_ATTEMPTS, default 5: tries of an environmental failure before its `error` is final. */
  readonly maxAttempts: number
  /** RECEIPT_AUDIT_RETRY_BASE_MS, default 30000: first retry delay (doubled per attempt). */
  readonly retryBaseMs: number
  /** RECEIPT_AUDIT_TIMEOUT_MS, default 10000: deadline of each request to a registry or DID host. */
  readonly requestTimeoutMs: number
}

/** The log reconciliation (the registries' logs as the change feed of their publications; witness.md). */
export interface LogReconcileConfig {
  /** LOG_RECONCILE_ENABLED, default true (false under NODE_ENV=test, so suites opt in). */
  readonly enabled: boolean
  /** LOG_RECONCILE_SCHEDULE, default true: run the background sweep on this instance. */
  readonly schedule: boolean
  /** LOG_RECONCILE_INTERVAL_SECONDS, default 60: time between two walks of one registry's log. */
  readonly intervalSeconds: number
  /** LOG_RECONCILE_MAX_ENTRIES, default 5000: log leaves reconciled per registry per walk. */
  readonly maxEntries: number
  /** LOG_RECONCILE_CONCURRENCY, default 4: registries walked at once by one instance. */
  readonly concurrency: number
  /** LOG_RECONCILE_TIMEOUT_MS, default 10000: deadline of each request to a registry. */
  readonly requestTimeoutMs: number
  /**
   * LOG_RECONCILE_LIFECYCLE_PAGE_SIZE, default 100 (0: off): held publications of a lifecycle registry whose
   * lifecycle events are re-read per walk, round-robin (witness.md "Lifecycle events").
   */
  readonly lifecyclePageSize: number
}

/**
 * Where and how runs are exported as OpenTelemetry traces (OTLP/HTTP, JSON encoding). The standard OTEL_* names
 * of the OpenTelemetry SDK environment specification, read here like every other variable.
 */
export interface TelemetryConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly tracesUrl: string
  /** OTEL_EXPORTER_OTLP_HEADERS then OTEL_EXPORTER_OTLP_TRACES_HEADERS (`k=v,…`, values URL-decoded). Secret. */
  readonly headers: Readonly<Record<string, string>>
  /** OTEL_SERVICE_NAME, default acdp-control-plane. */
  readonly serviceName: string
  /** OTEL_BSP_MAX_QUEUE_SIZE, default 2048: spans waiting or in flight; more are dropped (and counted). */
  readonly maxQueueSize: number
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE, default 512 (at most the queue size). */
  readonly maxExportBatchSize: number
  /** OTEL_BSP_SCHEDULE_DELAY, default 5000: ms between two exports of a partial batch. */
  readonly scheduleDelayMs: number
  /** OTEL_EXPORTER_OTLP_TIMEOUT (or the _TRACES_ form), default 10000: ms per export request, retries included. */
  readonly exportTimeoutMs: number
}

/** Thrown by {@link loadConfig}; `problems` holds one line per refused variable. */
export { ConfigError }

/** The environment shape loadConfig reads (process.env or a test's object). */
export type Environment = Readonly<Record<string, string | undefined>>

/** Tenant ids: short, URL- and log-safe. `default` is reserved (spec Authentication rule 6). */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** The reserved tenant every unscoped request falls back to. */
export const DEFAULT_TENANT = 'default'

const MIN_SECRET_LENGTH = 16

/**
 * What each settings reader is handed: the variables parsed against config-variables.ts, and where the refusals
 * of the rules joining several variables go (so every mistake is reported in one run).
 */
export interface ConfigReader {
  /** Every variable, typed; a refused one holds its default. */
  readonly env: ControlPlaneVariables
  /** The variables set to a non-blank value. */
  readonly given: ReadonlySet<string>
  /** Records one refusal: one line naming the variable and the fix. */
  refuse(problem: string): void
}

/**
 * Reads and validates the configuration from `env`. Pure: no file, network or clock access.
 *
 * @throws ConfigError listing every refused variable, one line each.
 */
export function loadConfig(env: Environment): ControlPlaneConfig {
  const parsed = parseEnv(CONTROL_PLANE_VARIABLES, env)
  const problems: string[] = []
  const read: ConfigReader = { env: parsed.values, given: parsed.given, refuse: (problem) => problems.push(problem) }
  const v = parsed.values
  const unused = unusedVariables(read)
  for (const problem of parsed.problems) if (!unused.has(problem.variable)) problems.push(problem.message)

  const nodeEnv: NodeEnv = v.NODE_ENV
  const isProduction = nodeEnv === 'production'
  const isDevelopment = nodeEnv === 'development'

  const dataDir = v.DATA_DIR
  const database = readDatabase(read, dataDir, isProduction)
  const ingest = readIngest(read, isDevelopment, isProduction)
  const auth = readAuth(read, isProduction)
  const secrets = readSecrets(read, isProduction)
  const outbound = readOutbound(read, isProduction)
  const publicHost = v.PUBLIC_HOST
  const witness = readWitness(read, publicHost)
  const telemetry = readTelemetry(read)

  const swaggerPathRaw = v.SWAGGER_PATH
  const swaggerPath = `/${swaggerPathRaw.replace(/^\/+|\/+$/g, '')}`
  if (!/^\/[A-Za-z0-9._~/-]+$/.test(swaggerPath))
    read.refuse(`SWAGGER_PATH must be a URL path, got "${swaggerPathRaw}"`)

  const config: ControlPlaneConfig = {
    nodeEnv,
    isProduction,
    isDevelopment,
    server: {
      port: v.PORT,
      host: v.HOST,
      publicHost,
      trustProxy: readTrustProxy(read),
      logLevel: v.LOG_LEVEL,
      maxBodyBytes: v.HTTP_MAX_BODY_BYTES,
      ...readRequestTimeouts(read),
    },
    database,
    dataDir,
    ingest,
    auth,
    domainPacks: v.DOMAIN_PACKS,
    streams: {
      sseHeartbeatMs: v.STREAM_SSE_HEARTBEAT_MS,
      sseShutdownRetryMs: v.STREAM_SSE_SHUTDOWN_RETRY_MS,
    },
    webhooks: {
      retryIntervalMs: v.WEBHOOK_RETRY_INTERVAL_MS,
      maxAttempts: v.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: v.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: v.WEBHOOK_RETRY_MAX_MS,
      requestTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
      concurrency: v.WEBHOOK_CONCURRENCY,
      deliveredRetentionHours: v.WEBHOOK_DELIVERED_RETENTION_HOURS,
    },
    swagger: { enabled: v.SWAGGER_ENABLED ?? isDevelopment, path: swaggerPath },
    console: { enabled: v.CONSOLE_ENABLED, assetsDir: v.CONSOLE_ASSETS_DIR },
    secrets,
    outbound,
    witness,
    receiptAudit: {
      enabled: v.RECEIPT_AUDIT_ENABLED ?? nodeEnv !== 'test',
      schedule: v.RECEIPT_AUDIT_SCHEDULE,
      intervalMs: v.RECEIPT_AUDIT_INTERVAL_MS,
      batchSize: v.RECEIPT_AUDIT_BATCH,
      concurrency: v.RECEIPT_AUDIT_CONCURRENCY,
      settleMs: v.RECEIPT_AUDIT_SETTLE_MS,
      maxAttempts: v.RECEIPT_AUDIT_MAX_ATTEMPTS,
      retryBaseMs: v.RECEIPT_AUDIT_RETRY_BASE_MS,
      requestTimeoutMs: v.RECEIPT_AUDIT_TIMEOUT_MS,
    },
    logReconcile: {
      enabled: v.LOG_RECONCILE_ENABLED ?? nodeEnv !== 'test',
      schedule: v.LOG_RECONCILE_SCHEDULE,
      intervalSeconds: v.LOG_RECONCILE_INTERVAL_SECONDS,
      maxEntries: v.LOG_RECONCILE_MAX_ENTRIES,
      concurrency: v.LOG_RECONCILE_CONCURRENCY,
      requestTimeoutMs: v.LOG_RECONCILE_TIMEOUT_MS,
      lifecyclePageSize: v.LOG_RECONCILE_LIFECYCLE_PAGE_SIZE,
    },
    tokens: readTokenConfig(read, isDevelopment),
    policy: readPolicyConfig(read),
    federation: {
      verifyContexts: v.FEDERATION_VERIFY_CONTEXTS,
      timeoutMs: v.FEDERATION_TIMEOUT_MS,
    },
    routing: { explorationFraction: v.BANDIT_EXPLORATION_FRACTION },
    dashboard: {
      cacheMs: v.DASHBOARD_CACHE_MS,
      cacheMaxEntries: v.DASHBOARD_CACHE_MAX_ENTRIES,
    },
    telemetry,
    lifecycle: {
      shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
      shutdownDrainDelayMs: v.SHUTDOWN_DRAIN_DELAY_MS,
      readinessDbTimeoutMs: v.READINESS_DB_TIMEOUT_MS,
      readinessCacheMs: v.READINESS_CACHE_MS,
      memoryReleaseOnIdle: v.MEMORY_RELEASE_ON_IDLE,
    },
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return deepFreeze(config)
}

const TELEMETRY_TUNING = [
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
]

/**
 * Variables this configuration does not use, whose malformed value therefore does not stop the boot: a setting of
 * a feature that is off may stay in a deployment's environment (the SQLite WAL bound beside DATABASE_URL, the
 * OTel batch and timeout settings while export is off or OTEL_SDK_DISABLED=true, and OTEL_EXPORTER_OTLP_TIMEOUT
 * when OTEL_EXPORTER_OTLP_TRACES_TIMEOUT replaces it).
 */
function unusedVariables(read: ConfigReader): Set<string> {
  const unused = new Set<string>()
  if (read.env.DATABASE_URL !== '') unused.add('SQLITE_WAL_MAX_BYTES')
  if (!isTelemetryOn(read)) for (const name of TELEMETRY_TUNING) unused.add(name)
  else if (read.given.has('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT')) unused.add('OTEL_EXPORTER_OTLP_TIMEOUT')
  return unused
}

function readRequestTimeouts(read: ConfigReader): { headersTimeoutMs: number; requestTimeoutMs: number } {
  const headersTimeoutMs = read.env.HTTP_HEADERS_TIMEOUT_MS
  const requestTimeoutMs = read.env.HTTP_REQUEST_TIMEOUT_MS
  if (headersTimeoutMs > requestTimeoutMs)
    read.refuse('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS')
  return { headersTimeoutMs, requestTimeoutMs }
}

function readDatabase(read: ConfigReader, dataDir: string, isProduction: boolean): DatabaseConfig {
  const url = read.env.DATABASE_URL
  const poolMax = read.env.DB_POOL_MAX
  if (url !== '') {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      read.refuse('DATABASE_URL must be a postgres:// or postgresql:// URL (leave it empty for embedded SQLite)')
    }
    if (isProduction && poolMax < 2) read.refuse('DB_POOL_MAX must be at least 2 in production')
    return { kind: 'postgres', url, poolMax }
  }
  const path = read.env.SQLITE_PATH || `${dataDir.replace(/\/+$/, '')}/control-plane.db`
  // WAL size at which the checkpoint worker escalates to a TRUNCATE checkpoint (docs/architecture.md "WAL bound").
  return { kind: 'sqlite', path, walMaxBytes: read.env.SQLITE_WAL_MAX_BYTES }
}

function readIngest(read: ConfigReader, isDevelopment: boolean, isProduction: boolean): ControlPlaneConfig['ingest'] {
  const webhookSecret = read.env.WEBHOOK_SECRET
  if (!isDevelopment && webhookSecret === '') {
    read.refuse(
      'WEBHOOK_SECRET is empty: ingest signatures would not be checked; set a secret of at least 16 characters',
    )
  } else if (webhookSecret !== '' && webhookSecret.length < MIN_SECRET_LENGTH) {
    read.refuse(`WEBHOOK_SECRET must be at least ${MIN_SECRET_LENGTH} characters`)
  }
  const webhookSecretPrevious = read.env.WEBHOOK_SECRET_PREVIOUS
  if (webhookSecretPrevious !== '') {
    if (webhookSecret === '') read.refuse('WEBHOOK_SECRET_PREVIOUS is set without WEBHOOK_SECRET')
    else if (webhookSecretPrevious.length < MIN_SECRET_LENGTH) {
      read.refuse(`WEBHOOK_SECRET_PREVIOUS must be at least ${MIN_SECRET_LENGTH} characters`)
    } else if (webhookSecretPrevious === webhookSecret) {
      read.refuse('WEBHOOK_SECRET_PREVIOUS equals WEBHOOK_SECRET: put the new secret in WEBHOOK_SECRET')
    }
  }
  const requireEnrollment = read.env.INGEST_REQUIRE_ENROLLMENT
  const strictTenant = read.env.INGEST_STRICT_TENANT
  const allowUnsignedTenant = read.env.INGEST_ALLOW_UNSIGNED_TENANT ?? !isProduction
  if (isProduction && allowUnsignedTenant && !requireEnrollment && !strictTenant) {
    // One captured delivery could then be stored once per tenant named in an unsigned header.
    read.refuse(
      'INGEST_ALLOW_UNSIGNED_TENANT=true lets an unsigned X-Tenant-Id choose the tenant in production: ' +
        'remove it, or set INGEST_REQUIRE_ENROLLMENT=true or INGEST_STRICT_TENANT=true',
    )
  }
  return {
    webhookSecret,
    webhookSecretPrevious,
    requireEnrollment,
    strictTenant,
    allowUnsignedTenant,
    maxBodyBytes: read.env.INGEST_MAX_BODY_BYTES,
    maxJsonDepth: read.env.INGEST_MAX_JSON_DEPTH,
    signatureToleranceSeconds: read.env.INGEST_SIGNATURE_TOLERANCE_SECONDS,
    requireTimestampedSignature: read.env.INGEST_REQUIRE_TIMESTAMPED_SIGNATURE ?? isProduction,
    enrollmentCacheMs: read.env.ENROLLMENT_CACHE_MS,
  }
}

function readAuth(read: ConfigReader, isProduction: boolean): ControlPlaneConfig['auth'] {
  const apiKeys = read.env.AUTH_API_KEYS
  const adminApiKeys = read.env.AUTH_ADMIN_API_KEYS
  const tenantApiKeys: TenantApiKey[] = []
  const boundTo = new Map<string, string>()
  read.env.TENANT_API_KEYS.forEach((entry, index) => {
    const colon = entry.indexOf(':')
    const label = `TENANT_API_KEYS entry ${index + 1}`
    if (colon <= 0 || colon === entry.length - 1) {
      read.refuse(`${label} must have the form tenantId:key`)
      return
    }
    const tenantId = entry.slice(0, colon)
    const key = entry.slice(colon + 1)
    if (!TENANT_ID_PATTERN.test(tenantId)) read.refuse(`${label} has an invalid tenant id "${tenantId}"`)
    else if (tenantId === DEFAULT_TENANT) read.refuse(`${label} binds a key to the reserved tenant "default"`)
    const previous = boundTo.get(key)
    if (previous !== undefined && previous !== tenantId)
      read.refuse(`${label} binds a key already bound to another tenant`)
    boundTo.set(key, tenantId)
    if (previous === undefined) tenantApiKeys.push({ tenantId, key })
  })
  const adminSet = new Set(adminApiKeys)
  for (const { key } of tenantApiKeys) {
    if (adminSet.has(key)) read.refuse('a key in AUTH_ADMIN_API_KEYS is also bound to a tenant in TENANT_API_KEYS')
  }
  const requireTenant = read.env.AUTH_REQUIRE_TENANT
  if (tenantApiKeys.length > 0 && !requireTenant) {
    read.refuse('TENANT_API_KEYS is set but AUTH_REQUIRE_TENANT is not true: set AUTH_REQUIRE_TENANT=true')
  }
  const allKeys = [...apiKeys, ...adminApiKeys, ...tenantApiKeys.map((t) => t.key)]
  if (isProduction) {
    if (allKeys.length === 0) {
      read.refuse('no API key is configured in production: set AUTH_API_KEYS (and AUTH_ADMIN_API_KEYS)')
    }
    if (allKeys.some((key) => key.length < MIN_SECRET_LENGTH)) {
      read.refuse(`every API key must be at least ${MIN_SECRET_LENGTH} characters in production`)
    }
  }
  return {
    apiKeys,
    adminApiKeys,
    tenantApiKeys,
    requireTenant,
    isBypassed: !isProduction && allKeys.length === 0,
  }
}

function readSecrets(read: ConfigReader, isProduction: boolean): ControlPlaneConfig['secrets'] {
  const key = read.env.SECRETS_ENCRYPTION_KEY
  const previousKeys = read.env.SECRETS_ENCRYPTION_KEY_PREVIOUS
  if (key === '') {
    if (isProduction) {
      read.refuse(
        'SECRETS_ENCRYPTION_KEY is required in production (32 bytes, base64 or hex; e.g. openssl rand -base64 32)',
      )
    }
    if (previousKeys.length > 0) read.refuse('SECRETS_ENCRYPTION_KEY_PREVIOUS is set without SECRETS_ENCRYPTION_KEY')
  } else if (decodeKey(key) === undefined) {
    read.refuse('SECRETS_ENCRYPTION_KEY must be 32 bytes encoded as base64 (44 characters) or hex (64 characters)')
  }
  previousKeys.forEach((previous, index) => {
    if (decodeKey(previous) === undefined) {
      read.refuse(`SECRETS_ENCRYPTION_KEY_PREVIOUS entry ${index + 1} must be 32 bytes as base64 or hex`)
    }
  })
  return { key: key === '' ? undefined : key, previousKeys }
}

function readOutbound(read: ConfigReader, isProduction: boolean): ControlPlaneConfig['outbound'] {
  const allowCidrs = read.env.OUTBOUND_ALLOW_CIDRS
  const allowHttpForAllowlisted = read.env.OUTBOUND_ALLOW_HTTP
  if (isProduction && allowCidrs.length > 0) {
    read.refuse('OUTBOUND_ALLOW_CIDRS must be empty in production: it opens private and loopback destinations')
  }
  if (allowHttpForAllowlisted && allowCidrs.length === 0) {
    read.refuse('OUTBOUND_ALLOW_HTTP=true needs OUTBOUND_ALLOW_CIDRS: plain http is only for allowlisted destinations')
  }
  for (const cidr of allowCidrs) {
    if (!isCidr(cidr)) read.refuse(`OUTBOUND_ALLOW_CIDRS entry "${cidr}" is not an IP address or CIDR`)
  }
  const maxPools = read.env.OUTBOUND_MAX_POOLS
  return { allowCidrs, allowHttpForAllowlisted, maxPools }
}

const WITNESS_DID = /^did:(web:[a-zA-Z0-9.%-]+(:[a-zA-Z0-9.%-]+)*|key:z[1-9A-HJ-NP-Za-km-z]+)$/

function readWitness(read: ConfigReader, publicHost: string): WitnessConfig {
  const enabled = read.env.LOG_WITNESS_ENABLED
  const cosigningEnabled = read.env.WITNESS_COSIGNING_ENABLED
  const witnessId = read.env.WITNESS_ID
  const keyId = read.env.WITNESS_KEY_ID || (witnessId === '' ? '' : `${witnessId}#witness-key-1`)
  const pem = read.env.WITNESS_SIGNING_PRIVATE_KEY_PEM.replace(/\\n/g, '\n')
  let privateKeySeed: Uint8Array | undefined
  if (witnessId !== '' && !WITNESS_DID.test(witnessId)) {
    read.refuse(`WITNESS_ID must be a did:web or did:key DID, got "${witnessId}"`)
  }
  if (cosigningEnabled) {
    if (!enabled) read.refuse('WITNESS_COSIGNING_ENABLED=true needs LOG_WITNESS_ENABLED=true: only polls are cosigned')
    if (witnessId === '') read.refuse('WITNESS_COSIGNING_ENABLED=true needs WITNESS_ID (the witness DID)')
    if (pem === '') read.refuse('WITNESS_COSIGNING_ENABLED=true needs WITNESS_SIGNING_PRIVATE_KEY_PEM (an Ed25519 key)')
    else privateKeySeed = readEd25519Seed(read, pem)
    if (keyId !== '' && witnessId !== '' && !keyId.startsWith(`${witnessId}#`)) {
      read.refuse('WITNESS_KEY_ID must be a DID URL under WITNESS_ID (<WITNESS_ID>#<fragment>)')
    }
    if (pem !== '' && pem === read.env.JWT_PRIVATE_KEY_PEM.replace(/\\n/g, '\n')) {
      read.refuse('WITNESS_SIGNING_PRIVATE_KEY_PEM must be a dedicated key, not the JWT/JWKS signing key')
    }
    if (witnessId.startsWith('did:web:')) {
      const host = decodeURIComponent(witnessId.slice('did:web:'.length).split(':')[0] ?? '')
      if (publicHost === '') read.refuse('WITNESS_ID is a did:web DID: set PUBLIC_HOST to its host')
      else if (host.toLowerCase() !== publicHost.toLowerCase()) {
        read.refuse(`WITNESS_ID host "${host}" must equal PUBLIC_HOST "${publicHost}"`)
      }
    }
  }
  const quorumEnabled = read.env.WITNESS_QUORUM_ENABLED
  const trusted = read.env.WITNESS_QUORUM_TRUSTED
  for (const did of trusted) {
    if (!WITNESS_DID.test(did)) read.refuse(`WITNESS_QUORUM_TRUSTED entry "${did}" is not a did:web or did:key DID`)
    if (did === witnessId) read.refuse('WITNESS_QUORUM_TRUSTED must not list our own WITNESS_ID')
  }
  if (quorumEnabled && !enabled) read.refuse('WITNESS_QUORUM_ENABLED=true needs LOG_WITNESS_ENABLED=true')
  if (quorumEnabled && trusted.length === 0) read.refuse('WITNESS_QUORUM_ENABLED=true needs WITNESS_QUORUM_TRUSTED')
  return {
    enabled,
    schedule: read.env.LOG_WITNESS_SCHEDULE,
    intervalSeconds: read.env.LOG_WITNESS_INTERVAL_SECONDS,
    excludeAuthorities: read.env.LOG_WITNESS_EXCLUDE_AUTHORITIES.map((a) => a.toLowerCase()),
    concurrency: read.env.LOG_WITNESS_CONCURRENCY,
    pollTimeoutMs: read.env.LOG_WITNESS_POLL_TIMEOUT_MS,
    unreachableThreshold: read.env.LOG_WITNESS_UNREACHABLE_THRESHOLD,
    maxClockSkewSeconds: read.env.LOG_WITNESS_MAX_CLOCK_SKEW_SECONDS,
    checkpointsKept: read.env.LOG_WITNESS_CHECKPOINTS_KEPT,
    cosigning: {
      enabled: cosigningEnabled,
      witnessId,
      keyId,
      privateKeySeed,
      cosignaturesKeptPerLog: read.env.WITNESS_COSIGNATURES_KEPT_PER_LOG,
    },
    quorum: {
      enabled: quorumEnabled,
      trusted,
      minWitnesses: read.env.WITNESS_QUORUM_MIN_WITNESSES,
      maxClockSkewSeconds: read.env.WITNESS_QUORUM_MAX_CLOCK_SKEW_SECONDS,
    },
  }
}

/** The 32-byte seed of an Ed25519 PKCS#8 PEM (RFC 8410), or undefined (with a refusal) for anything else. */
function readEd25519Seed(read: ConfigReader, pem: string): Uint8Array | undefined {
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' })
    if (key.asymmetricKeyType !== 'ed25519') {
      read.refuse('WITNESS_SIGNING_PRIVATE_KEY_PEM must be an Ed25519 private key')
      return undefined
    }
    const d = key.export({ format: 'jwk' }).d
    return d === undefined ? undefined : new Uint8Array(Buffer.from(d, 'base64url'))
  } catch {
    read.refuse('WITNESS_SIGNING_PRIVATE_KEY_PEM is not a readable PEM private key')
    return undefined
  }
}

/**
 * OTEL_* variables (OpenTelemetry SDK environment specification). Export is on only when an endpoint is given and
 * OTEL_SDK_DISABLED is not true; only the http/json protocol is offered (every OTLP/HTTP receiver accepts it).
 */
function isTelemetryOn(read: ConfigReader): boolean {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: traces } = read.env
  return (base !== '' || traces !== '') && !read.env.OTEL_SDK_DISABLED
}

function readTelemetry(read: ConfigReader): TelemetryConfig | undefined {
  if (!isTelemetryOn(read)) return undefined
  const base = read.env.OTEL_EXPORTER_OTLP_ENDPOINT
  const traces = read.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  const name = traces !== '' ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'
  const tracesUrl = traces !== '' ? traces : `${base.replace(/\/+$/, '')}/v1/traces`
  let url: URL | undefined
  try {
    url = new URL(tracesUrl)
  } catch {
    read.refuse(`${name} must be an http:// or https:// URL`)
  }
  if (url !== undefined) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') read.refuse(`${name} must be an http:// or https:// URL`)
    if (url.username !== '' || url.password !== '') {
      read.refuse(`${name} must not carry credentials; put them in OTEL_EXPORTER_OTLP_HEADERS`)
    }
  }
  for (const protocolName of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] as const) {
    const protocol = read.env[protocolName]
    if (protocol !== '' && protocol !== 'http/json') {
      read.refuse(`${protocolName} must be http/json (the only OTLP encoding this service exports), got "${protocol}"`)
    }
  }
  const headers = {
    ...readOtlpHeaders(read, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...readOtlpHeaders(read, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
  }
  const maxQueueSize = read.env.OTEL_BSP_MAX_QUEUE_SIZE
  const maxExportBatchSize = read.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE
  if (maxExportBatchSize > maxQueueSize) {
    read.refuse('OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not exceed OTEL_BSP_MAX_QUEUE_SIZE')
  }
  return {
    tracesUrl,
    headers,
    serviceName: read.env.OTEL_SERVICE_NAME || 'acdp-control-plane',
    maxQueueSize,
    maxExportBatchSize,
    scheduleDelayMs: read.env.OTEL_BSP_SCHEDULE_DELAY,
    exportTimeoutMs: read.given.has('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT')
      ? read.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT
      : read.env.OTEL_EXPORTER_OTLP_TIMEOUT,
  }
}

/** `key=value` pairs separated by commas, values percent-decoded (W3C Baggage octets, as the OTel spec says). */
function readOtlpHeaders(
  read: ConfigReader,
  name: 'OTEL_EXPORTER_OTLP_HEADERS' | 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
): Record<string, string> {
  const headers: Record<string, string> = {}
  read.env[name].forEach((entry, index) => {
    const equals = entry.indexOf('=')
    const key = equals > 0 ? entry.slice(0, equals).trim().toLowerCase() : ''
    let value: string | undefined
    try {
      value = equals > 0 ? decodeURIComponent(entry.slice(equals + 1).trim()) : undefined
    } catch {
      value = undefined
    }
    // The entry may hold a credential: the message names its position, never its text.
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key) || value === undefined || /[\r\n]/.test(value)) {
      read.refuse(`${name} entry ${index + 1} must have the form key=value`)
      return
    }
    headers[key] = value
  })
  return headers
}

function readTrustProxy(read: ConfigReader): false | number | string[] {
  const value = read.env.TRUST_PROXY.toLowerCase()
  if (value === '' || value === 'false' || value === 'off') return false
  if (value === 'true') {
    read.refuse('TRUST_PROXY=true trusts every X-Forwarded-For hop; give a hop count (1-10) or proxy addresses/CIDRs')
    return false
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops < 1 || hops > 10) read.refuse('TRUST_PROXY hop count must be between 1 and 10')
    return hops
  }
  // Addresses as given (IPv6 case kept), split like every list variable.
  const entries = read.env.TRUST_PROXY.split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
  for (const entry of entries) {
    if (!isCidr(entry)) read.refuse(`TRUST_PROXY entry "${entry}" is not an IP address or CIDR`)
  }
  return entries
}

function isCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/')
  if (rest.length > 0 || address === undefined) return false
  const family = isIP(address)
  if (family === 0) return false
  if (prefix === undefined) return true
  if (!/^\d{1,3}$/.test(prefix)) return false
  return Number(prefix) <= (family === 4 ? 32 : 128)
}

/**
 * Decodes a 32-byte key given as 64 hex digits or base64/base64url (with or without padding).
 * Returns undefined for anything else.
 */
export function decodeKey(text: string): Uint8Array | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return new Uint8Array(Buffer.from(text, 'hex'))
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
  return bytes.length === 32 ? new Uint8Array(bytes) : undefined
}
