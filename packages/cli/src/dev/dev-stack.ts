/**
 * `acdp dev`'s engine: the registry and the control plane started IN-PROCESS (one Node process, one Ctrl-C,
 * one log stream) on embedded SQLite under the data directory, and wired for real:
 *
 * - the registry's webhook points at the control plane's POST /ingest/acdp, signed with a generated secret;
 * - the registry is enrolled in the control plane (POST /registries/enroll, over HTTP with the dev admin key)
 *   with that secret and its base URL, so the control plane verifies events claiming the registry's authority
 *   with that secret only (never with its global WEBHOOK_SECRET, which signs run notifications);
 * - the trust layer is on (dev/dev-trust.ts): receipts, lineage-head receipts, the transparency log and lifecycle
 *   in the registry, signed with a receipt key kept in the dev secrets; the control plane witnesses that log and
 *   cosigns it with a dev witness key, and the registry collects and serves the cosignatures;
 * - loopback is reachable by both services' outbound clients only through the explicit operator allowlist
 *   (`127.0.0.1/32`, `::1/128`) with plain HTTP allowed only to allowlisted addresses — never a global switch.
 *   The services refuse that allowlist when NODE_ENV=production, and so does `acdp dev` (docs/dev-stack.md).
 *
 * On `--postgres URL` both services keep their data in PostgreSQL, one schema each (dev/dev-postgres.ts).
 *
 * Tests call {@link startDevStack} directly with temp directories and free ports.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig as loadControlPlaneConfig, type RunningControlPlane, startControlPlane } from '@acdp/control-plane'
import { type RunningRegistry, resolveConfig as resolveRegistryConfig, startRegistry } from '@acdp/registry'
import { CliError, EXIT } from '../exit-codes.js'
import { DEV_SECRETS_FILE, DEV_STACK_FILE } from '../stack-target.js'
import { createDevLogger } from './dev-logger.js'
import {
  devPostgresSchemas,
  DEV_POSTGRES_SCHEMA_PREFIX,
  prepareDevPostgres,
  urlWithSearchPath,
} from './dev-postgres.js'
import { type DevSecrets, loadOrCreateDevSecrets, writeFileAtomically } from './dev-secrets.js'
import { controlPlaneWitnessEnv, devWitnessIdentity, registryTrustSettings } from './dev-trust.js'
import { findFreePort, isPortFree, isPortInUseError } from './port-probe.js'

/** The outbound allowlist `acdp dev` opens: loopback only, both families. */
export const DEV_ALLOW_CIDRS = ['127.0.0.1/32', '::1/128'] as const

/** The registry's authority in the dev stack: a bare hostname, so ctx_ids read `acdp://localhost/<uuid>`. */
export const DEV_REGISTRY_AUTHORITY = 'localhost'

/** What lives in the data directory (and what `--reset` removes; nothing else there is touched). */
const DATA_ENTRIES = [
  'registry.db',
  'registry.db-wal',
  'registry.db-shm',
  'control-plane',
  DEV_SECRETS_FILE,
  DEV_STACK_FILE,
]

/** Options of {@link startDevStack}. */
export interface DevStackOptions {
  dataDir: string
  /** Loopback address both services bind, e.g. `127.0.0.1`. */
  host: string
  /** 0 = pick a free port. */
  registryPort: number
  controlPlanePort: number
  /** Remove the stack's data (databases, secrets) before starting. */
  reset?: boolean
  /** Minimum log level of both services; default `info`. */
  logLevel?: string
  /** Receives every log line of both services. */
  writeLog: (line: string) => void
  /** Colour the `[registry]` / `[control-plane]` prefixes. */
  color?: boolean
  /** The caller's NODE_ENV; `production` is refused. */
  nodeEnv?: string | undefined
  /** HTTP client for the enrollment call and health checks. */
  fetch?: typeof globalThis.fetch
  /**
   * Keep both services' data in this PostgreSQL database instead of SQLite files, each in its own schema
   * `<schemaPrefix>_registry` / `<schemaPrefix>_control_plane` (default prefix `acdp_dev`).
   */
  postgres?: { url: string; schemaPrefix?: string }
  /** Extra control-plane settings (tests: e.g. the log witness), applied over the stack's own. */
  controlPlaneEnv?: Record<string, string>
  /**
   * OpenTelemetry settings for the control plane (the caller's `OTEL_*` variables, e.g.
   * `OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318` to see runs in a local Jaeger). Only `OTEL_*` names are
   * taken; the stack's own settings cannot be overridden through them.
   */
  telemetryEnv?: Readonly<Record<string, string | undefined>>
}

/** A running, wired stack. */
export interface RunningDevStack {
  registryUrl: string
  controlPlaneUrl: string
  /** Interactive API docs of the control plane. */
  docsUrl: string
  /** The registry's OpenAPI document. */
  registryOpenApiUrl: string
  secrets: DevSecrets
  /** True when this run generated the secrets (first run or after --reset). */
  isFirstRun: boolean
  /** The control plane's witness DID (a did:key of the dev witness key). */
  witnessDid: string
  /** Where the data lives: `sqlite`, or the PostgreSQL schemas. */
  storage: { kind: 'sqlite' } | { kind: 'postgres'; registrySchema: string; controlPlaneSchema: string }
  /** Migrations the registry applied while starting (empty when reusing data). */
  registryMigrationsApplied: string[]
  registry: RunningRegistry
  controlPlane: RunningControlPlane
  /** Stops both services gracefully (registry first, so no webhook chases a closed control plane). Idempotent. */
  close(): Promise<void>
}

/**
 * Starts and wires both services.
 *
 * @throws CliError `production_refused` (exit 2) when NODE_ENV=production; `port_in_use` (exit 3) when a port
 *   is taken; `dev_stack_failed` (exit 1) when a service refuses its configuration or enrollment fails, or
 *   when the dev secrets (the receipt key) are gone while the registry's data survives.
 */
export async function startDevStack(options: DevStackOptions): Promise<RunningDevStack> {
  if (options.nodeEnv === 'production') {
    throw new CliError(
      EXIT.usage,
      'production_refused',
      'acdp dev is a development stack (loopback allowlist, plain HTTP, generated secrets); it refuses NODE_ENV=production',
    )
  }
  const fetchFn = options.fetch ?? globalThis.fetch
  const { host, dataDir } = options
  if (options.reset) for (const entry of DATA_ENTRIES) rmSync(join(dataDir, entry), { recursive: true, force: true })
  mkdirSync(join(dataDir, 'control-plane'), { recursive: true, mode: 0o700 })
  const postgres = options.postgres
  const schemas =
    postgres === undefined ? undefined : devPostgresSchemas(postgres.schemaPrefix ?? DEV_POSTGRES_SCHEMA_PREFIX)
  const dataSurvives =
    postgres === undefined || schemas === undefined
      ? existsSync(join(dataDir, 'registry.db'))
      : await startService('PostgreSQL setup', 0, () =>
          prepareDevPostgres(postgres.url, schemas, options.reset === true),
        )
  let loaded: ReturnType<typeof loadOrCreateDevSecrets>
  try {
    loaded = loadOrCreateDevSecrets(dataDir, { dataSurvives })
  } catch (error) {
    throw new CliError(EXIT.failure, 'dev_stack_failed', (error as Error).message, { cause: error })
  }
  const { secrets, generated } = loaded
  const witness = devWitnessIdentity(secrets.witness_key_seed)

  const controlPlanePort = await choosePort(host, options.controlPlanePort, 'control plane', 'control-plane-port')
  const registryPort = await choosePort(host, options.registryPort, 'registry', 'registry-port')
  const urlHost = host.includes(':') ? `[${host}]` : host
  const registryUrl = `http://${urlHost}:${registryPort}`
  const prefixWidth = 'control-plane'.length
  const logger = (name: string, color: number) =>
    createDevLogger({
      name,
      prefixWidth,
      write: options.writeLog,
      level: options.logLevel ?? 'info',
      ...(options.color ? { color } : {}),
    })

  const controlPlaneUrl = `http://${urlHost}:${controlPlanePort}`
  const webhookUrl = `${controlPlaneUrl}/ingest/acdp`
  const controlPlaneStart = startService('control plane', controlPlanePort, async () =>
    startControlPlane(
      loadControlPlaneConfig({
        ...otelVariables(options.telemetryEnv),
        NODE_ENV: 'development',
        HOST: host,
        PORT: String(controlPlanePort),
        DATA_DIR: join(dataDir, 'control-plane'),
        WEBHOOK_SECRET: secrets.run_secret,
        AUTH_ADMIN_API_KEYS: secrets.control_plane_api_key,
        OUTBOUND_ALLOW_CIDRS: DEV_ALLOW_CIDRS.join(','),
        OUTBOUND_ALLOW_HTTP: 'true',
        SWAGGER_ENABLED: 'true',
        LOG_LEVEL: options.logLevel ?? 'info',
        ...controlPlaneWitnessEnv(witness),
        ...(postgres === undefined || schemas === undefined
          ? {}
          : { DATABASE_URL: urlWithSearchPath(postgres.url, schemas.controlPlane) }),
        ...options.controlPlaneEnv,
      }),
      { logger: logger('control-plane', 35) },
    ),
  )
  // Meanwhile the registry opens its database and builds its routes. It binds its port only after the enrollment,
  // so no publish (and no webhook) can happen before the control plane knows the registry's secret.
  const registryBuild = startService('registry', registryPort, async () =>
    startRegistry(
      resolveRegistryConfig(
        {
          registry: { authority: DEV_REGISTRY_AUTHORITY, port: registryPort, bind: host, base_url: registryUrl },
          storage:
            postgres === undefined || schemas === undefined
              ? { backend: 'sqlite', sqlite_path: join(dataDir, 'registry.db') }
              : { backend: 'postgres', postgres_url: urlWithSearchPath(postgres.url, schemas.registry) },
          auth: { did_methods: ['did:web', 'did:key'], admin_tokens: [secrets.registry_admin_token] },
          webhook: { enabled: true, url: webhookUrl, secret: secrets.webhook_secret },
          outbound: { allow_cidrs: [...DEV_ALLOW_CIDRS], allow_http_for_allowlisted: true },
          ...registryTrustSettings(secrets, witness, controlPlaneUrl),
        },
        { nodeEnv: 'development' },
      ),
      { logger: logger('registry', 36) },
    ),
  )
  const [controlPlaneResult, registryResult] = await Promise.allSettled([controlPlaneStart, registryBuild])
  if (controlPlaneResult.status === 'rejected' || registryResult.status === 'rejected') {
    if (controlPlaneResult.status === 'fulfilled') await controlPlaneResult.value.close()
    if (registryResult.status === 'fulfilled') await registryResult.value.close()
    throw controlPlaneResult.status === 'rejected'
      ? controlPlaneResult.reason
      : (registryResult as PromiseRejectedResult).reason
  }
  const controlPlane = controlPlaneResult.value
  const registry = registryResult.value
  try {
    await enrollRegistry(fetchFn, controlPlane.url, secrets, registryUrl)
    await startService('registry', registryPort, async () => {
      // As the registry's own main does: the webhook URL must pass the outbound policy before serving.
      await registry.deps.outbound?.checkUrl(webhookUrl)
      await registry.app.listen({ host, port: registryPort })
    })
  } catch (error) {
    await registry.close()
    await controlPlane.close()
    throw error
  }

  const stack: RunningDevStack = {
    registryUrl,
    controlPlaneUrl: controlPlane.url,
    docsUrl: `${controlPlane.url}/docs`,
    registryOpenApiUrl: `${registryUrl}/openapi.json`,
    secrets,
    isFirstRun: generated,
    witnessDid: witness.did,
    storage:
      schemas === undefined
        ? { kind: 'sqlite' }
        : { kind: 'postgres', registrySchema: schemas.registry, controlPlaneSchema: schemas.controlPlane },
    registryMigrationsApplied: registry.migrationsApplied,
    registry,
    controlPlane,
    close: onceOnly(async () => {
      rmSync(join(dataDir, DEV_STACK_FILE), { force: true })
      try {
        await registry.close()
      } finally {
        await controlPlane.close()
      }
    }),
  }
  writeFileAtomically(
    join(dataDir, DEV_STACK_FILE),
    `${JSON.stringify({ registry_url: stack.registryUrl, control_plane_url: stack.controlPlaneUrl, docs_url: stack.docsUrl, pid: process.pid }, null, 2)}\n`,
    0o600,
  )
  return stack
}

async function choosePort(host: string, port: number, service: string, flag: string): Promise<number> {
  if (port === 0) return findFreePort(host)
  if (!(await isPortFree(host, port))) throw portInUse(host, port, service, flag)
  return port
}

function portInUse(host: string, port: number, service: string, flag: string): CliError {
  return new CliError(
    EXIT.unreachable,
    'port_in_use',
    `port ${port} on ${host} is in use (needed by the ${service}); stop whatever holds it or pass --${flag} <port>`,
  )
}

// A bind can still lose a race after the probe; report it the same clear way. Configuration refusals come
// back as one line naming the service.
async function startService<T>(service: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start()
  } catch (error) {
    if (error instanceof CliError) throw error
    if (isPortInUseError(error)) {
      throw portInUse('this host', port, service, service === 'registry' ? 'registry-port' : 'control-plane-port')
    }
    const message = error instanceof Error ? error.message.split('\n').join(' ') : String(error)
    throw new CliError(EXIT.failure, 'dev_stack_failed', `the ${service} did not start: ${message}`, { cause: error })
  }
}

/**
 * Enrolls the registry through the control plane's admin API (POST /registries/enroll, an upsert), so the
 * control plane verifies the registry's webhooks with the registry's own secret and knows its base URL for the
 * federation proxy. Repeated on every start because the base URL follows the chosen port.
 */
async function enrollRegistry(
  fetchFn: typeof globalThis.fetch,
  controlPlaneUrl: string,
  secrets: DevSecrets,
  registryUrl: string,
): Promise<void> {
  let response: Response
  try {
    response = await fetchFn(`${controlPlaneUrl}/registries/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets.control_plane_api_key}` },
      body: JSON.stringify({
        authority: DEV_REGISTRY_AUTHORITY,
        baseUrl: registryUrl,
        webhookSecret: secrets.webhook_secret,
        enabled: true,
      }),
      signal: AbortSignal.timeout(10_000),
    })
  } catch (error) {
    throw new CliError(EXIT.failure, 'dev_stack_failed', `enrolling the registry failed: ${(error as Error).message}`, {
      cause: error,
    })
  }
  if (!response.ok) {
    const text = (await response.text()).slice(0, 300)
    throw new CliError(
      EXIT.failure,
      'dev_stack_failed',
      `enrolling the registry failed: HTTP ${response.status} ${text}`,
    )
  }
}

function onceOnly(action: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  return () => {
    running ??= action()
    return running
  }
}

/** The `OTEL_*` members of `env` that have a value. */
function otelVariables(env: Readonly<Record<string, string | undefined>> | undefined): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const [name, value] of Object.entries(env ?? {})) {
    if (name.startsWith('OTEL_') && value !== undefined) picked[name] = value
  }
  return picked
}
