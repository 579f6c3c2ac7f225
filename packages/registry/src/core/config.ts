/**
 * The registry's configuration: one closed TypeBox schema, loaded as built-in defaults < TOML file <
 * environment (`ACDP_REGISTRY_<SECTION>__<FIELD>`), validated once, checked against every startup refusal,
 * and deep-frozen. This is the only module that reads `process.env`.
 *
 * docs/registry/configuration.md lists every key, its default, its environment name and each refusal.
 */
import { createPrivateKey } from 'node:crypto'
import { existsSync } from 'node:fs'
import { isIP } from 'node:net'
import { ConfigError, isPlainObject, layeredConfig } from '@acdp/service-kit'
import { parse as parseToml } from 'smol-toml'
import { type Static, Type } from 'typebox'
import { corsOriginProblem } from './http/cors.js'
import { pinnedKeyProblem } from '../auth/pinned-keys.js'

const Str = (description: string, options: Record<string, unknown> = {}) => Type.String({ description, ...options })
const Int = (description: string, options: Record<string, unknown> = {}) => Type.Integer({ description, ...options })
const Bool = (description: string) => Type.Boolean({ description })
const StrList = (description: string) => Type.Array(Type.String(), { description })
const closed = { additionalProperties: false } as const

/** The seven registry profiles of RFC-ACDP-0007 §3.2 (acdp-log-witness is a witness profile, never a registry's). */
export const REGISTRY_PROFILES = [
  'acdp-registry-core',
  'acdp-registry-discovery',
  'acdp-registry-federated',
  'acdp-registry-receipts',
  'acdp-registry-head-receipts',
  'acdp-registry-transparency-log',
  'acdp-registry-lifecycle',
] as const

const RegistrySection = Type.Object(
  {
    authority: Str('bare lowercase DNS hostname of this registry; ctx_ids are acdp://<authority>/<uuid>'),
    port: Int('TCP port to listen on', { minimum: 0, maximum: 65535 }),
    bind: Str('address to bind'),
    allow_public_bind: Bool('allow a non-loopback bind with neither TLS nor auth'),
    base_url: Str('public base URL; "{authority}" is replaced by registry.authority'),
    profiles: StrList('profiles advertised in /.well-known/acdp.json'),
    cross_registry_resolution: Bool('resolve foreign-authority ctx_ids against their origin registry'),
    trusted_origins: Type.Array(Type.Object({ authority: Type.String(), registry_did: Type.String() }, closed), {
      description: 'origins whose registry DID the operator verified out of band (none by default)',
    }),
    log_level: Type.Union(
      [
        Type.Literal('fatal'),
        Type.Literal('error'),
        Type.Literal('warn'),
        Type.Literal('info'),
        Type.Literal('debug'),
        Type.Literal('trace'),
        Type.Literal('silent'),
      ],
      { description: 'pino log level' },
    ),
    access_log: Type.Union([Type.Literal('all'), Type.Literal('errors'), Type.Literal('off')], {
      description: 'one info line per request (all), only for status >= 400 (errors), or none (off)',
    }),
    memory_release_on_idle: Bool(
      'the acdp-registry bin runs one memory-reducing collection when it turns idle after its resident set grew',
    ),
    tls: Type.Object(
      {
        enabled: Bool('serve HTTPS directly'),
        cert_path: Str('PEM certificate chain'),
        key_path: Str('PEM private key'),
      },
      closed,
    ),
    cors: Type.Object({ allowed_origins: StrList('origins allowed by CORS (none by default)') }, closed),
  },
  closed,
)

const StorageSection = Type.Object(
  {
    backend: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')], { description: 'storage engine' }),
    sqlite_path: Str('SQLite file, or ":memory:"'),
    sqlite_wal_max_bytes: Int('SQLite WAL size that triggers a TRUNCATE checkpoint (bytes)', {
      minimum: 1_048_576,
      maximum: 68_719_476_736,
    }),
    postgres_url: Str('PostgreSQL connection URL (backend = "postgres")'),
    max_connections: Int('PostgreSQL pool size', { minimum: 1, maximum: 1000 }),
  },
  closed,
)

const TenantAgent = Type.Object({ agent_did: Type.String(), tenant_id: Type.String() }, closed)
const RevocationFeed = Type.Object(
  {
    issuer: Type.String(),
    feed_url: Type.String(),
    admin_token: Type.String(),
    poll_seconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  },
  closed,
)

const AuthSection = Type.Object(
  {
    enabled: Bool('require bearer JWTs on reads and writes'),
    did_methods: StrList('DID methods accepted for agent_id / key_id: did:web (always) and optionally did:key'),
    anonymous_public_reads: Bool('allow unauthenticated reads of public contexts'),
    jwt_signing_alg: Type.Union([Type.Literal('HS256'), Type.Literal('EdDSA')]),
    jwt_secret: Str('HS256 secret (base64, >= 32 bytes)'),
    allow_ephemeral_secret: Bool('generate a per-process HS256 secret when none is set'),
    jwt_private_key_pem: Str('EdDSA private key (PEM)'),
    jwt_kid: Str('kid published in the JWKS'),
    token_ttl_seconds: Int('issued token lifetime', { minimum: 1 }),
    challenge_ttl_seconds: Int('challenge lifetime', { minimum: 1 }),
    token_leeway_seconds: Int('clock leeway on token checks', { minimum: 0 }),
    require_tenant: Bool('require a tenant on every request'),
    tenant_header_trust: Type.Union([Type.Literal('none'), Type.Literal('trusted_proxies'), Type.Literal('any_peer')]),
    admin_tokens: StrList('bearer tokens for admin routes (constant-time compare)'),
    tenant_agents: Type.Array(TenantAgent),
    revocation_feeds: Type.Array(RevocationFeed),
  },
  closed,
)

const WebhookSection = Type.Object(
  {
    enabled: Bool('deliver webhook events'),
    url: Str('receiver URL (HTTPS, public address)'),
    secret: Str('HMAC-SHA256 secret'),
    timeout_seconds: Int('per-delivery timeout', { minimum: 1 }),
    max_retries: Int('retries on 429/5xx/transport errors', { minimum: 0 }),
    queue_capacity: Int('in-memory queue capacity', { minimum: 1 }),
  },
  closed,
)

const LimitsSection = Type.Object(
  {
    max_payload_bytes: Int('largest accepted request body', { minimum: 1024 }),
    max_embedded_bytes: Int('largest decoded embedded DataRef (fixed by the spec at 65536)'),
    idempotency_key_ttl_seconds: Int('Idempotency-Key retention', { minimum: 86400, maximum: 604800 }),
    publish_rate_per_minute: Int('per-agent publish budget; 0 disables', { minimum: 0 }),
    challenge_rate_per_minute: Int('per-agent /auth/challenge budget; 0 disables', { minimum: 0 }),
    headers_timeout_seconds: Int("a request's headers must arrive within this (slowloris bound)", {
      minimum: 1,
      maximum: 3600,
    }),
    request_timeout_seconds: Int('a whole request (headers and body) must arrive within this', {
      minimum: 1,
      maximum: 3600,
    }),
  },
  closed,
)

const RateLimitSection = Type.Object(
  {
    enabled: Bool('per-IP and global limits on /auth/*'),
    per_ip_per_minute: Int('per-IP budget', { minimum: 0 }),
    global_per_minute: Int('global budget (per process, or shared with backend = "postgres")', { minimum: 0 }),
    trusted_proxies: StrList('peers whose X-Forwarded-For is trusted (CIDRs or addresses)'),
    backend: Type.Union([Type.Literal('memory'), Type.Literal('postgres')], {
      description: 'where budgets live: per process, or shared by every instance on the storage database',
    }),
    backend_unavailable: Type.Union([Type.Literal('allow'), Type.Literal('deny')], {
      description: 'shared backend slow or down: admit on the per-process budget, or answer 429',
    }),
    backend_timeout_ms: Int('shared limiter statement/lock timeout', { minimum: 0 }),
    backend_prune_seconds: Int('interval between deletions of idle shared buckets', { minimum: 0 }),
  },
  closed,
)

const MetricsSection = Type.Object(
  {
    enabled: Bool('mount GET /metrics'),
    bearer_token: Str('bearer required on /metrics when set'),
    duration_buckets: Type.Array(Type.Number(), { description: 'latency histogram buckets (seconds)' }),
  },
  closed,
)

const PinnedKey = Type.Object(
  {
    agent_did: Type.String(),
    public_key_b64: Type.String(),
    algorithm: Type.Union([Type.Literal('ed25519'), Type.Literal('ecdsa-p256')]),
    valid_from: Type.Integer(),
    valid_until: Type.Integer(),
  },
  closed,
)

const PlaygroundSection = Type.Object(
  {
    enabled: Bool('playground build features'),
    pinned_only: Bool('accept only pinned keys'),
    pinned_keys: Type.Array(PinnedKey),
  },
  closed,
)

const ReceiptSection = Type.Object(
  {
    signing_key_seed_b64: Str('32-byte Ed25519 seed (base64)'),
    signing_key_path: Str('file holding the seed'),
    key_id_fragment: Str('fragment of the receipt key id'),
    head_receipts: Bool('mint lineage-head receipts'),
    retired_keys: Type.Array(Type.Object({ public_key_b64: Type.String(), key_id_fragment: Type.String() }, closed)),
  },
  closed,
)

const OutboundSection = Type.Object(
  {
    allow_cidrs: StrList('operator allowlist of otherwise-refused ranges (tests and local dev only)'),
    allow_http_for_allowlisted: Bool('allow plain http:// to allowlisted addresses'),
    trusted_ca_paths: StrList('extra PEM CA files trusted for outbound TLS'),
    connect_timeout_ms: Int('outbound connect timeout', { minimum: 1, maximum: 5000 }),
    total_timeout_ms: Int('outbound total deadline', { minimum: 1, maximum: 30000 }),
    max_redirects: Int('same-authority redirects followed', { minimum: 0, maximum: 3 }),
  },
  closed,
)

const SearchSection = Type.Object(
  {
    cursor_secret_b64: Str('base64 key (>= 32 bytes) sealing search cursors; shared by instances behind one balancer'),
    cursor_ttl_seconds: Int('search cursor lifetime', { minimum: 3600 }),
  },
  closed,
)

const DidResolutionSection = Type.Object(
  {
    cache_ttl_seconds: Int('DID document cache lifetime', { minimum: 300, maximum: 86400 }),
    min_refetch_interval_seconds: Int('shortest interval between forced refetches of one DID', { minimum: 0 }),
    max_entries: Int('DID documents kept in cache', { minimum: 1 }),
  },
  closed,
)

export const RegistryConfigSchema = Type.Object(
  {
    registry: RegistrySection,
    storage: StorageSection,
    auth: AuthSection,
    webhook: WebhookSection,
    limits: LimitsSection,
    rate_limit: RateLimitSection,
    metrics: MetricsSection,
    playground: PlaygroundSection,
    receipt: ReceiptSection,
    lifecycle: Type.Object({ enabled: Bool('retract / republish (acdp-registry-lifecycle)') }, closed),
    log: Type.Object(
      { enabled: Bool('transparency log (acdp-registry-transparency-log)'), instance: Str('log instance id') },
      closed,
    ),
    witnesses: Type.Array(
      Type.Object({ did: Type.String(), url: Type.String(), poll_seconds: Type.Integer({ minimum: 1 }) }, closed),
    ),
    outbound: OutboundSection,
    did_resolution: DidResolutionSection,
    search: SearchSection,
  },
  closed,
)

/** The validated, frozen configuration. */
export type RegistryConfig = Static<typeof RegistryConfigSchema>

/**
 * The tenant of every request that names none, and of every context stored before tenancy (migration 0005). It is
 * reserved: no binding, token claim or header may assert it.
 */
export const DEFAULT_TENANT = 'default'
/**
 * A tenant id: what `[[auth.tenant_agents]]`, the token `tenant` claim and X-Tenant-Id may carry. The control plane
 * accepts the same form on the X-Tenant-Id of this registry's webhooks.
 */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** Configurations whose `auth.tenant_header_trust` was written (file or environment) rather than defaulted. */
const tenantHeaderTrustWritten = new WeakSet<RegistryConfig>()

/** True when `auth.tenant_header_trust` was set explicitly, false when it took the default (`/admin/status`). */
export function isTenantHeaderTrustExplicit(config: RegistryConfig): boolean {
  return tenantHeaderTrustWritten.has(config)
}

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K]
}
/** Input accepted by `resolveConfig`: any subset of the keys, as a TOML file or a test would give them. */
export type RegistryConfigInput = DeepPartial<RegistryConfig>

/** Built-in defaults. Units are in the key names. */
export const DEFAULT_CONFIG: Omit<RegistryConfig, 'registry'> & {
  registry: Omit<RegistryConfig['registry'], 'authority'>
} = {
  registry: {
    port: 8443,
    bind: '127.0.0.1',
    allow_public_bind: false,
    base_url: 'https://{authority}',
    profiles: ['acdp-registry-core', 'acdp-registry-discovery'],
    cross_registry_resolution: true,
    trusted_origins: [],
    log_level: 'info',
    access_log: 'all',
    memory_release_on_idle: true,
    tls: { enabled: false, cert_path: '', key_path: '' },
    cors: { allowed_origins: [] },
  },
  storage: {
    backend: 'sqlite',
    sqlite_path: './data/registry.db',
    sqlite_wal_max_bytes: 67_108_864,
    postgres_url: '',
    max_connections: 20,
  },
  auth: {
    enabled: false,
    did_methods: ['did:web', 'did:key'],
    anonymous_public_reads: true,
    jwt_signing_alg: 'HS256',
    jwt_secret: '',
    allow_ephemeral_secret: false,
    jwt_private_key_pem: '',
    jwt_kid: '',
    token_ttl_seconds: 3600,
    challenge_ttl_seconds: 300,
    token_leeway_seconds: 30,
    require_tenant: false,
    tenant_header_trust: 'none',
    admin_tokens: [],
    tenant_agents: [],
    revocation_feeds: [],
  },
  webhook: { enabled: false, url: '', secret: '', timeout_seconds: 5, max_retries: 3, queue_capacity: 1024 },
  limits: {
    max_payload_bytes: 1_048_576,
    max_embedded_bytes: 65_536,
    idempotency_key_ttl_seconds: 86_400,
    publish_rate_per_minute: 60,
    challenge_rate_per_minute: 60,
    headers_timeout_seconds: 10,
    request_timeout_seconds: 30,
  },
  rate_limit: {
    enabled: true,
    per_ip_per_minute: 60,
    global_per_minute: 6000,
    trusted_proxies: [],
    backend: 'memory',
    backend_unavailable: 'allow',
    backend_timeout_ms: 250,
    backend_prune_seconds: 300,
  },
  metrics: {
    enabled: false,
    bearer_token: '',
    duration_buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0],
  },
  playground: { enabled: false, pinned_only: false, pinned_keys: [] },
  receipt: {
    signing_key_seed_b64: '',
    signing_key_path: '',
    key_id_fragment: 'receipt-key-1',
    head_receipts: false,
    retired_keys: [],
  },
  lifecycle: { enabled: false },
  log: { enabled: false, instance: '1' },
  witnesses: [],
  outbound: {
    allow_cidrs: [],
    allow_http_for_allowlisted: false,
    trusted_ca_paths: [],
    connect_timeout_ms: 5000,
    total_timeout_ms: 30000,
    max_redirects: 3,
  },
  did_resolution: { cache_ttl_seconds: 300, min_refetch_interval_seconds: 30, max_entries: 10_000 },
  search: { cursor_secret_b64: '', cursor_ttl_seconds: 3600 },
}

/** A configuration the registry refuses to start with: `message` is one line naming the key and the fix. */
export { ConfigError }

const ENV_PREFIX = 'ACDP_REGISTRY_'
/** Read by `loadConfig`; names the TOML file. Not a config key. */
export const CONFIG_PATH_ENV = 'ACDP_REGISTRY_CONFIG'

const layers = layeredConfig({
  schema: RegistryConfigSchema,
  defaults: DEFAULT_CONFIG,
  file: { name: 'TOML', parse: parseToml },
  // Two lists also take comma-separated environment values; every other list takes a JSON array.
  env: { prefix: ENV_PREFIX, ignore: [CONFIG_PATH_ENV], commaLists: ['auth.did_methods', 'registry.profiles'] },
  prepare(merged) {
    const registry = merged.registry as Record<string, unknown>
    if (typeof registry.authority !== 'string' || registry.authority === '') {
      throw new ConfigError(
        'registry.authority is required (a bare lowercase DNS hostname, e.g. "registry.example.com")',
      )
    }
    fillRevocationFeedDefaults(merged)
  },
})

/**
 * Loads the configuration: defaults < TOML file (`options.path`, else `ACDP_REGISTRY_CONFIG`, else none) <
 * environment. Throws `ConfigError` (one line, naming the key) on any invalid value or startup refusal.
 */
export function loadConfig(options: { path?: string; env?: NodeJS.ProcessEnv } = {}): RegistryConfig {
  const env = options.env ?? process.env
  const path = options.path ?? nonEmpty(env[CONFIG_PATH_ENV])
  return resolveConfig(layers.read({ path, env }) as RegistryConfigInput, { nodeEnv: env.NODE_ENV })
}

/**
 * Validates an in-memory configuration (defaults filled in) and applies every startup refusal. This is what
 * embedders (the CLI, tests) call instead of `loadConfig`.
 */
export function resolveConfig(input: RegistryConfigInput, options: { nodeEnv?: string } = {}): RegistryConfig {
  return layers.resolve(input, (config) => {
    config.registry.base_url = config.registry.base_url.replaceAll('{authority}', config.registry.authority)
    refuseUnsafe(config, options.nodeEnv)
    if (input.auth?.tenant_header_trust !== undefined) tenantHeaderTrustWritten.add(config)
  })
}

/** `[[auth.revocation_feeds]]` entries without `poll_seconds` poll every 300 s: a peer's revocation
 * takes effect here within five minutes, for one request per peer every five minutes. */
const DEFAULT_FEED_POLL_SECONDS = 300

function fillRevocationFeedDefaults(merged: Record<string, unknown>): void {
  const auth = merged.auth as Record<string, unknown> | undefined
  if (!isPlainObject(auth) || !Array.isArray(auth.revocation_feeds)) return
  auth.revocation_feeds = auth.revocation_feeds.map((feed: unknown) =>
    isPlainObject(feed) && feed.poll_seconds === undefined
      ? { ...feed, poll_seconds: DEFAULT_FEED_POLL_SECONDS }
      : feed,
  )
}

const AUTHORITY = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/

/** Every cross-field refusal; each throws one line naming the key and the way out. */
function refuseUnsafe(c: RegistryConfig, nodeEnv: string | undefined): void {
  const refuse = (condition: boolean, message: string) => {
    if (condition) throw new ConfigError(message)
  }
  // Identity (RFC-ACDP-0002 §3.1): the authority is a bare hostname, never a DID, URL or host:port.
  refuse(
    !AUTHORITY.test(c.registry.authority) || c.registry.authority.length > 253,
    `registry.authority "${c.registry.authority}" is not a bare lowercase DNS hostname (no scheme, port or did: prefix)`,
  )
  refuse(!/^https?:\/\/[^/]+/.test(c.registry.base_url), 'registry.base_url must be an absolute http(s) URL')

  // Profiles: only registry profiles, core always, and only features this build can serve.
  const profiles = c.registry.profiles
  for (const p of profiles) {
    refuse(
      p === 'acdp-log-witness',
      'registry.profiles: "acdp-log-witness" is a witness profile, not a registry profile',
    )
    refuse(
      !(REGISTRY_PROFILES as readonly string[]).includes(p),
      `registry.profiles: unknown profile "${p}" (known: ${REGISTRY_PROFILES.join(', ')})`,
    )
  }
  refuse(new Set(profiles).size !== profiles.length, 'registry.profiles: duplicate entries')
  refuse(!profiles.includes('acdp-registry-core'), 'registry.profiles must include "acdp-registry-core"')
  refuse(
    profiles.includes('acdp-registry-federated') && !c.registry.cross_registry_resolution,
    'registry.profiles: "acdp-registry-federated" requires registry.cross_registry_resolution = true',
  )
  checkTrustedOrigins(c, refuse)
  // Trust layer: each feature is switched on by its setting and advertised exactly when on (the profile is
  // added below); listing a profile without its feature is refused rather than advertised falsely.
  // The lifecycle profile is advertised exactly when lifecycle.enabled (capabilities.ts adds it).
  refuse(
    profiles.includes('acdp-registry-lifecycle') && !c.lifecycle.enabled,
    'registry.profiles: "acdp-registry-lifecycle" requires lifecycle.enabled = true',
  )
  refuse(
    c.receipt.signing_key_seed_b64 !== '' && c.receipt.signing_key_path !== '',
    'receipt: set only one of signing_key_seed_b64 and signing_key_path',
  )
  const receipts = c.receipt.signing_key_seed_b64 !== '' || c.receipt.signing_key_path !== ''
  if (receipts) checkReceiptKeyConfig(c, refuse)
  refuse(
    profiles.includes('acdp-registry-receipts') && !receipts,
    'registry.profiles: "acdp-registry-receipts" needs a receipt key (receipt.signing_key_seed_b64 or receipt.signing_key_path)',
  )
  refuse(
    profiles.includes('acdp-registry-head-receipts') && !c.receipt.head_receipts,
    'registry.profiles: "acdp-registry-head-receipts" needs receipt.head_receipts = true',
  )
  refuse(
    profiles.includes('acdp-registry-transparency-log') && !c.log.enabled,
    'registry.profiles: "acdp-registry-transparency-log" needs log.enabled = true',
  )
  refuse(
    c.receipt.head_receipts && !receipts,
    'receipt.head_receipts = true needs a receipt key (receipt.signing_key_seed_b64 or receipt.signing_key_path)',
  )
  refuse(
    c.log.enabled && !receipts,
    'log.enabled = true needs a receipt key (receipt.signing_key_seed_b64 or receipt.signing_key_path)',
  )
  refuse(!/^[a-z0-9-]{1,32}$/.test(c.log.instance), 'log.instance must match [a-z0-9-]{1,32}')
  refuse(c.witnesses.length > 0 && !c.log.enabled, '[[witnesses]] requires log.enabled = true')
  for (const witness of c.witnesses) {
    refuse(
      !/^did:(web:[a-zA-Z0-9.%:-]+|key:z[1-9A-HJ-NP-Za-km-z]+)$/.test(witness.did),
      `[[witnesses]]: did "${witness.did}" must be a did:web or did:key DID (RFC-ACDP-0015 §4)`,
    )
    refuse(
      !witness.url.startsWith('https://') &&
        !(c.outbound.allow_http_for_allowlisted && witness.url.startsWith('http://')),
      `[[witnesses]]: url "${witness.url}" must be https:// (http:// only with outbound.allow_http_for_allowlisted)`,
    )
  }
  if (receipts) addProfile(profiles, 'acdp-registry-receipts')
  if (c.receipt.head_receipts) addProfile(profiles, 'acdp-registry-head-receipts')
  if (c.log.enabled) addProfile(profiles, 'acdp-registry-transparency-log')
  for (const origin of c.registry.cors.allowed_origins) {
    const problem = corsOriginProblem(origin)
    refuse(problem !== undefined, `registry.cors.allowed_origins: ${problem}`)
  }
  checkPlaygroundConfig(c, receipts, refuse)

  // Storage.
  refuse(
    c.storage.backend === 'postgres' && c.storage.postgres_url.trim() === '',
    'storage.postgres_url is required when storage.backend = "postgres"',
  )
  refuse(c.storage.backend === 'sqlite' && c.storage.sqlite_path.trim() === '', 'storage.sqlite_path must not be empty')

  refuse(
    c.limits.headers_timeout_seconds > c.limits.request_timeout_seconds,
    'limits.headers_timeout_seconds must not exceed limits.request_timeout_seconds',
  )

  // Limits fixed by the protocol.
  refuse(c.limits.max_embedded_bytes !== 65536, 'limits.max_embedded_bytes is fixed by RFC-ACDP-0002 §6.3 at 65536')

  // DID methods (RFC-ACDP-0007 §3.1): did:web always, did:key optionally, nothing else.
  for (const m of c.auth.did_methods) {
    refuse(
      m !== 'did:web' && m !== 'did:key',
      `auth.did_methods: unsupported method "${m}" (allowed: did:web, did:key)`,
    )
  }
  refuse(!c.auth.did_methods.includes('did:web'), 'auth.did_methods must include "did:web"')

  // Authentication.
  checkTokenSigningConfig(c, refuse)
  for (const token of c.auth.admin_tokens) {
    refuse(
      token.trim() === '' || token !== token.trim(),
      'auth.admin_tokens: entries must be non-blank without surrounding whitespace',
    )
  }

  // Exposure: a public bind needs TLS or auth unless the operator says otherwise (e.g. behind a TLS proxy).
  refuse(
    !isLoopback(c.registry.bind) && !c.registry.tls.enabled && !c.auth.enabled && !c.registry.allow_public_bind,
    `registry.bind "${c.registry.bind}" is not loopback and neither TLS nor auth is enabled; set registry.allow_public_bind = true to accept this`,
  )
  if (c.registry.tls.enabled) {
    refuse(
      c.registry.tls.cert_path === '' || !existsSync(c.registry.tls.cert_path),
      'registry.tls.cert_path: file not found (required when registry.tls.enabled = true)',
    )
    refuse(
      c.registry.tls.key_path === '' || !existsSync(c.registry.tls.key_path),
      'registry.tls.key_path: file not found (required when registry.tls.enabled = true)',
    )
  }

  // Tenancy.
  refuse(
    c.auth.tenant_header_trust === 'trusted_proxies' && c.rate_limit.trusted_proxies.length === 0,
    'auth.tenant_header_trust = "trusted_proxies" requires a non-empty rate_limit.trusted_proxies',
  )
  refuse(
    c.auth.require_tenant && c.auth.tenant_agents.length === 0 && c.auth.tenant_header_trust === 'none',
    'auth.require_tenant = true needs [[auth.tenant_agents]] or a tenant_header_trust other than "none"',
  )
  refuse(
    c.auth.tenant_agents.length > 0 && !c.auth.require_tenant,
    '[[auth.tenant_agents]] requires auth.require_tenant = true',
  )
  const boundAgents = new Set<string>()
  for (const agent of c.auth.tenant_agents) {
    refuse(agent.tenant_id === DEFAULT_TENANT, '[[auth.tenant_agents]]: tenant_id "default" is reserved')
    refuse(
      !TENANT_ID_PATTERN.test(agent.tenant_id),
      `[[auth.tenant_agents]]: tenant_id "${agent.tenant_id}" must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}`,
    )
    refuse(
      !/^did:(web|key):\S+$/.test(agent.agent_did),
      `[[auth.tenant_agents]]: agent_did "${agent.agent_did}" is not a did:web or did:key DID`,
    )
    refuse(
      boundAgents.has(agent.agent_did),
      `[[auth.tenant_agents]]: agent_did "${agent.agent_did}" is bound twice; an agent belongs to one tenant`,
    )
    boundAgents.add(agent.agent_did)
  }
  for (const entry of c.rate_limit.trusted_proxies) checkCidr(entry, 'rate_limit.trusted_proxies', refuse)
  // A proxy list nothing reads is a misconfiguration (the operator believes addresses are
  // taken from X-Forwarded-For), unless tenant header trust uses it.
  refuse(
    c.rate_limit.trusted_proxies.length > 0 &&
      !c.rate_limit.enabled &&
      c.auth.tenant_header_trust !== 'trusted_proxies',
    'rate_limit.trusted_proxies is set while rate_limit.enabled = false and auth.tenant_header_trust is not "trusted_proxies": nothing would use it; remove it or enable the limits',
  )

  // Shared rate-limit backend.
  if (c.rate_limit.backend === 'postgres') {
    refuse(c.storage.backend !== 'postgres', 'rate_limit.backend = "postgres" requires storage.backend = "postgres"')
    refuse(!c.rate_limit.enabled, 'rate_limit.backend = "postgres" requires rate_limit.enabled = true')
    refuse(
      c.rate_limit.global_per_minute <= 0,
      'rate_limit.backend = "postgres" requires rate_limit.global_per_minute > 0',
    )
    refuse(
      c.rate_limit.backend_timeout_ms <= 0,
      'rate_limit.backend = "postgres" requires rate_limit.backend_timeout_ms > 0',
    )
    refuse(
      c.rate_limit.backend_prune_seconds <= 0,
      'rate_limit.backend = "postgres" requires rate_limit.backend_prune_seconds > 0',
    )
  }

  // Revocation feeds: polled through the outbound client, so https (http only where the outbound policy allows
  // plain http to allowlisted addresses); each entry names its issuer and carries the peer's admin bearer.
  const feedUrls = new Set<string>()
  for (const feed of c.auth.revocation_feeds) {
    refuse(feed.issuer.trim() === '', "[[auth.revocation_feeds]]: issuer must be non-empty (the peer tokens' iss)")
    refuse(
      !feed.feed_url.startsWith('https://') &&
        !(c.outbound.allow_http_for_allowlisted && feed.feed_url.startsWith('http://')),
      `[[auth.revocation_feeds]]: feed_url "${feed.feed_url}" must be https:// (http:// only with outbound.allow_http_for_allowlisted)`,
    )
    refuse(!URL.canParse(feed.feed_url), `[[auth.revocation_feeds]]: feed_url "${feed.feed_url}" is not a URL`)
    refuse(feedUrls.has(feed.feed_url), `[[auth.revocation_feeds]]: feed_url "${feed.feed_url}" is listed twice`)
    feedUrls.add(feed.feed_url)
    refuse(
      feed.admin_token.trim() === '' || feed.admin_token !== feed.admin_token.trim(),
      '[[auth.revocation_feeds]]: admin_token must be non-blank without surrounding whitespace',
    )
  }

  // Webhooks: the URL's DNS answer is checked against the outbound policy at startup (main.ts).
  if (c.webhook.enabled) {
    refuse(c.webhook.url === '', 'webhook.url is required when webhook.enabled = true')
    // Plain http:// only alongside outbound.allow_http_for_allowlisted (refused in production), where the outbound
    // client still delivers only to allowlisted addresses (the `acdp dev` stack: loopback).
    refuse(
      !c.webhook.url.startsWith('https://') &&
        !(c.outbound.allow_http_for_allowlisted && c.webhook.url.startsWith('http://')),
      'webhook.url must be an https:// URL (http:// only with outbound.allow_http_for_allowlisted, for allowlisted addresses)',
    )
    refuse(c.webhook.secret === '', 'webhook.secret must be non-empty when webhook.enabled = true')
  }

  // Metrics.
  refuse(
    c.metrics.bearer_token !== '' && c.metrics.bearer_token.trim() === '',
    'metrics.bearer_token is whitespace only; leave it empty to disable or set a real token',
  )
  const buckets = c.metrics.duration_buckets
  refuse(
    buckets.some((b, i) => b <= 0 || (i > 0 && b <= (buckets[i - 1] as number))),
    'metrics.duration_buckets must be positive and strictly increasing',
  )

  // Search cursors.
  if (c.search.cursor_secret_b64 !== '') {
    const bytes = Buffer.from(c.search.cursor_secret_b64, 'base64')
    refuse(
      bytes.byteLength < 32 ||
        bytes.toString('base64').replace(/=+$/, '') !== c.search.cursor_secret_b64.trim().replace(/=+$/, ''),
      'search.cursor_secret_b64 must be base64 of at least 32 bytes',
    )
  }

  // Outbound: the allowlist exists for tests and local development only.
  for (const entry of c.outbound.allow_cidrs) checkCidr(entry, 'outbound.allow_cidrs', refuse)
  refuse(
    nodeEnv === 'production' && c.outbound.allow_cidrs.length > 0,
    'outbound.allow_cidrs must be empty when NODE_ENV=production (the allowlist is for tests and local development)',
  )
  refuse(
    nodeEnv === 'production' && c.outbound.allow_http_for_allowlisted,
    'outbound.allow_http_for_allowlisted must be false when NODE_ENV=production',
  )
  for (const ca of c.outbound.trusted_ca_paths)
    refuse(!existsSync(ca), `outbound.trusted_ca_paths: file not found: ${ca}`)
}

/**
 * Token signing (product spec "Authentication" 2–3): a non-empty HS256 secret is checked even with auth off (it
 * may be switched on later by environment alone); the EdDSA key must parse as Ed25519 here, before any database
 * is opened.
 */
function checkTokenSigningConfig(c: RegistryConfig, refuse: (c: boolean, m: string) => void): void {
  const secret = c.auth.jwt_secret
  refuse(
    secret.trim().toLowerCase() === 'changeme',
    'auth.jwt_secret "changeme" is refused; generate a random secret of at least 32 bytes',
  )
  if (secret !== '') {
    refuse(
      (decodeStrictBase64(secret)?.byteLength ?? 0) < 32,
      'auth.jwt_secret must be base64 of at least 32 random bytes (e.g. `openssl rand -base64 32`)',
    )
  }
  if (!c.auth.enabled) return
  if (c.auth.jwt_signing_alg === 'HS256') {
    refuse(
      secret === '' && !c.auth.allow_ephemeral_secret,
      'auth.enabled = true with jwt_signing_alg = "HS256" needs auth.jwt_secret (or auth.allow_ephemeral_secret = true for a single-instance test setup)',
    )
  } else {
    refuse(
      c.auth.jwt_private_key_pem.trim() === '',
      'auth.jwt_signing_alg = "EdDSA" needs auth.jwt_private_key_pem (an Ed25519 private key, PKCS#8 PEM)',
    )
    refuse(
      !isEd25519PrivateKeyPem(c.auth.jwt_private_key_pem),
      'auth.jwt_private_key_pem is not an Ed25519 private key in PEM form',
    )
    refuse(
      c.auth.jwt_kid !== '' && !/^[A-Za-z0-9._-]{1,64}$/.test(c.auth.jwt_kid),
      'auth.jwt_kid must match [A-Za-z0-9._-]{1,64}',
    )
  }
}

function isEd25519PrivateKeyPem(pem: string): boolean {
  try {
    return createPrivateKey({ key: pem, format: 'pem' }).asymmetricKeyType === 'ed25519'
  } catch {
    return false
  }
}

/** Profiles are kept in the order written, the features' own appended after them. */
/**
 * `[[registry.trusted_origins]]`: out-of-band registry identities for foreign authorities (origin-identity.ts).
 * Each names another registry's bare authority once, with a did:web or did:key DID.
 */
function checkTrustedOrigins(c: RegistryConfig, refuse: (condition: boolean, message: string) => void): void {
  const seen = new Set<string>()
  for (const origin of c.registry.trusted_origins) {
    refuse(
      !AUTHORITY.test(origin.authority) || origin.authority.length > 253,
      `[[registry.trusted_origins]]: authority "${origin.authority}" is not a bare lowercase DNS hostname`,
    )
    refuse(
      origin.authority === c.registry.authority,
      `[[registry.trusted_origins]]: "${origin.authority}" is this registry's own authority`,
    )
    refuse(seen.has(origin.authority), `[[registry.trusted_origins]]: authority "${origin.authority}" is listed twice`)
    seen.add(origin.authority)
    refuse(
      !/^did:(web:[a-zA-Z0-9.%:-]+|key:z[1-9A-HJ-NP-Za-km-z]+)$/.test(origin.registry_did),
      `[[registry.trusted_origins]]: registry_did "${origin.registry_did}" must be a did:web or did:key DID`,
    )
  }
}

function addProfile(profiles: string[], profile: string): void {
  if (!profiles.includes(profile)) profiles.push(profile)
}

/** The receipt key must decode (a 32-byte Ed25519 seed) before anything is opened; retired keys must parse. */
/**
 * `[playground]`: every pinned key entry is checked even while the playground is off (so turning it
 * on never meets a bad entry), `pinned_only` needs a pin, and receipts are signed in a playground only when every
 * publish is verified against a pin (a receipt attests the registry checked the producer's key).
 */
function checkPlaygroundConfig(c: RegistryConfig, receipts: boolean, refuse: (c: boolean, m: string) => void): void {
  for (const entry of c.playground.pinned_keys) {
    const problem = pinnedKeyProblem(entry)
    refuse(problem !== undefined, `[[playground.pinned_keys]]: ${problem}`)
  }
  refuse(
    c.playground.pinned_only && c.playground.pinned_keys.length === 0,
    'playground.pinned_only = true needs at least one [[playground.pinned_keys]] entry',
  )
  refuse(
    c.playground.enabled && receipts && !(c.playground.pinned_only && c.playground.pinned_keys.length > 0),
    'receipts in a playground build need playground.pinned_only = true with at least one pinned key',
  )
}

function checkReceiptKeyConfig(c: RegistryConfig, refuse: (c: boolean, m: string) => void): void {
  const fragment = /^[A-Za-z0-9._-]{1,64}$/
  refuse(!fragment.test(c.receipt.key_id_fragment), 'receipt.key_id_fragment must match [A-Za-z0-9._-]{1,64}')
  if (c.receipt.signing_key_seed_b64 !== '') {
    refuse(
      decodeStrictBase64(c.receipt.signing_key_seed_b64)?.byteLength !== 32,
      'receipt.signing_key_seed_b64 must be base64 of a 32-byte Ed25519 seed',
    )
  } else {
    refuse(!existsSync(c.receipt.signing_key_path), `receipt.signing_key_path: file not found`)
  }
  const fragments = new Set([c.receipt.key_id_fragment])
  for (const retired of c.receipt.retired_keys) {
    refuse(
      !fragment.test(retired.key_id_fragment) || fragments.has(retired.key_id_fragment),
      `receipt.retired_keys: key_id_fragment "${retired.key_id_fragment}" is malformed or used twice`,
    )
    fragments.add(retired.key_id_fragment)
    refuse(
      decodeStrictBase64(retired.public_key_b64)?.byteLength !== 32,
      `receipt.retired_keys: public_key_b64 of "${retired.key_id_fragment}" must be base64 of a 32-byte Ed25519 key`,
    )
  }
}

/** Base64 (standard or url alphabet, padding optional) decoded, or undefined when it is not exactly that. */
export function decodeStrictBase64(text: string): Buffer | undefined {
  const trimmed = text.trim()
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return undefined
  const bytes = Buffer.from(trimmed.replaceAll('-', '+').replaceAll('_', '/'), 'base64')
  const canonical = bytes.toString('base64').replace(/=+$/, '')
  return canonical === trimmed.replaceAll('-', '+').replaceAll('_', '/').replace(/=+$/, '') ? bytes : undefined
}

function checkCidr(entry: string, key: string, refuse: (c: boolean, m: string) => void): void {
  const [address, prefix, extra] = entry.split('/')
  const family = isIP(address ?? '')
  refuse(extra !== undefined || family === 0, `${key}: "${entry}" is not an IP address or CIDR`)
  if (prefix !== undefined) {
    const bits = Number(prefix)
    refuse(
      !/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128),
      `${key}: "${entry}" has an invalid prefix length`,
    )
    refuse(bits === 0, `${key}: "${entry}" (/0) would match every address; list specific ranges`)
  }
}

function isLoopback(bind: string): boolean {
  return bind === 'localhost' || bind === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bind)
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}
