import { describe, expect, it } from 'vitest'
import { ConfigError, decodeKey, loadConfig } from './config.js'

const KEY = Buffer.alloc(32, 1).toString('base64')
const PRODUCTION = {
  NODE_ENV: 'production',
  WEBHOOK_SECRET: 'production-secret-0123456789',
  AUTH_API_KEYS: 'production-key-0123456789',
  SECRETS_ENCRYPTION_KEY: KEY,
}

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('loadConfig', () => {
  it('applies the documented defaults in development', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      nodeEnv: 'development',
      isDevelopment: true,
      server: { port: 3001, host: '0.0.0.0', maxBodyBytes: 1_048_576 },
      database: { kind: 'sqlite', path: './data/control-plane.db', walMaxBytes: 67_108_864 },
      ingest: { webhookSecret: '', requireEnrollment: false, maxBodyBytes: 1_048_576, maxJsonDepth: 64 },
      auth: { isBypassed: true, requireTenant: false },
      streams: { sseHeartbeatMs: 15_000 },
      swagger: { enabled: true, path: '/docs' },
    })
  })

  it('returns a deeply frozen object', () => {
    const config = loadConfig({ AUTH_API_KEYS: 'a-key' })
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.auth)).toBe(true)
    expect(Object.isFrozen(config.auth.apiKeys)).toBe(true)
  })

  it('is pure: it reads only the object it is given', () => {
    expect(loadConfig({ PORT: '4000' }).server.port).toBe(4000)
    expect(loadConfig({}).server.port).toBe(3001)
  })

  it('selects PostgreSQL when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', DB_POOL_MAX: '5' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
      poolMax: 5,
    })
  })

  it('reads the SQLite WAL threshold and refuses one below 1 MiB', () => {
    expect(loadConfig({ SQLITE_WAL_MAX_BYTES: '8388608' }).database).toMatchObject({ walMaxBytes: 8_388_608 })
    expect(problemsOf({ SQLITE_WAL_MAX_BYTES: '4096' })).toEqual([
      'SQLITE_WAL_MAX_BYTES must be between 1048576 and 68719476736, got 4096',
    ])
  })

  it('reads the outbound keep-alive pool bound (OUTBOUND_MAX_POOLS), default 1024, and refuses 0', () => {
    expect(loadConfig({}).outbound.maxPools).toBe(1024)
    expect(loadConfig({ OUTBOUND_MAX_POOLS: '5000' }).outbound.maxPools).toBe(5000)
    expect(problemsOf({ OUTBOUND_MAX_POOLS: '0' })).toEqual(['OUTBOUND_MAX_POOLS must be between 1 and 100000, got 0'])
  })

  it('accepts a complete production configuration', () => {
    const config = loadConfig(PRODUCTION)
    expect(config).toMatchObject({ isProduction: true, auth: { isBypassed: false }, swagger: { enabled: false } })
  })

  it('defaults ingest to timestamped signatures and signed tenants in production only', () => {
    expect(loadConfig(PRODUCTION).ingest).toMatchObject({
      requireTimestampedSignature: true,
      allowUnsignedTenant: false,
    })
    expect(loadConfig({ WEBHOOK_SECRET: 'dev-secret-0123456789' }).ingest).toMatchObject({
      requireTimestampedSignature: false,
      allowUnsignedTenant: true,
    })
    // The plain scheme stays an explicit opt-in in production.
    const optedIn = { ...PRODUCTION, INGEST_REQUIRE_TIMESTAMPED_SIGNATURE: 'false' }
    expect(loadConfig(optedIn).ingest.requireTimestampedSignature).toBe(false)
  })

  it('refuses to start in production when an unsigned X-Tenant-Id could choose the tenant', () => {
    const insecure = { ...PRODUCTION, INGEST_ALLOW_UNSIGNED_TENANT: 'true' }
    expect(problemsOf(insecure)).toEqual([expect.stringMatching(/INGEST_ALLOW_UNSIGNED_TENANT=true lets an unsigned/)])
    expect(problemsOf({ ...insecure, INGEST_REQUIRE_ENROLLMENT: 'true' })).toEqual([])
    expect(problemsOf({ ...insecure, INGEST_STRICT_TENANT: 'true' })).toEqual([])
    expect(problemsOf({ ...insecure, NODE_ENV: 'test' })).toEqual([])
  })

  it.each([
    ['empty WEBHOOK_SECRET outside development', { ...PRODUCTION, WEBHOOK_SECRET: '' }, /WEBHOOK_SECRET is empty/],
    ['empty WEBHOOK_SECRET in test', { NODE_ENV: 'test' }, /WEBHOOK_SECRET is empty/],
    ['short WEBHOOK_SECRET', { WEBHOOK_SECRET: 'short' }, /WEBHOOK_SECRET must be at least 16/],
    ['no API key in production', { ...PRODUCTION, AUTH_API_KEYS: '' }, /no API key is configured in production/],
    ['short API key in production', { ...PRODUCTION, AUTH_API_KEYS: 'short' }, /at least 16 characters in production/],
    [
      'missing secrets key in production',
      { ...PRODUCTION, SECRETS_ENCRYPTION_KEY: '' },
      /SECRETS_ENCRYPTION_KEY is required/,
    ],
    ['malformed secrets key', { SECRETS_ENCRYPTION_KEY: 'abc' }, /SECRETS_ENCRYPTION_KEY must be 32 bytes/],
    [
      'outbound allowlist in production',
      { ...PRODUCTION, OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' },
      /OUTBOUND_ALLOW_CIDRS must be empty/,
    ],
    ['http without allowlist', { OUTBOUND_ALLOW_HTTP: 'true' }, /OUTBOUND_ALLOW_HTTP=true needs/],
    ['bad CIDR', { OUTBOUND_ALLOW_CIDRS: '10.0.0.0/33' }, /is not an IP address or CIDR/],
    ['unknown NODE_ENV', { NODE_ENV: 'prod' }, /NODE_ENV must be/],
    ['non-boolean flag', { INGEST_REQUIRE_ENROLLMENT: 'yes' }, /INGEST_REQUIRE_ENROLLMENT must be true or false/],
    ['non-integer port', { PORT: '30a' }, /PORT must be an integer/],
    ['port out of range', { PORT: '70000' }, /PORT must be between 0 and 65535/],
    ['non-postgres DATABASE_URL', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a postgres/],
    ['TRUST_PROXY=true', { TRUST_PROXY: 'true' }, /TRUST_PROXY=true/],
    [
      'tenant key without a tenant',
      { TENANT_API_KEYS: 'justakey', AUTH_REQUIRE_TENANT: 'true' },
      /must have the form tenantId:key/,
    ],
    ['tenant key bound to default', { TENANT_API_KEYS: 'default:k', AUTH_REQUIRE_TENANT: 'true' }, /reserved tenant/],
    ['key bound to two tenants', { TENANT_API_KEYS: 'a:k,b:k', AUTH_REQUIRE_TENANT: 'true' }, /already bound/],
    ['tenant keys without AUTH_REQUIRE_TENANT', { TENANT_API_KEYS: 'a:k' }, /set AUTH_REQUIRE_TENANT=true/],
    [
      'admin key bound to a tenant',
      { AUTH_ADMIN_API_KEYS: 'k', TENANT_API_KEYS: 'a:k', AUTH_REQUIRE_TENANT: 'true' },
      /also bound/,
    ],
    ['duplicate API key', { AUTH_API_KEYS: 'k,k' }, /lists the same entry twice/],
    [
      'headers timeout above the request timeout',
      { HTTP_HEADERS_TIMEOUT_MS: '40000' },
      /HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS/,
    ],
  ])('refuses %s with a one-line reason', (_name, env, reason) => {
    const problems = problemsOf(env)
    expect(problems.some((p) => reason.test(p))).toBe(true)
    for (const p of problems) expect(p).not.toContain('\n')
  })

  it('reports every problem at once', () => {
    expect(problemsOf({ PORT: 'x', NODE_ENV: 'prod', INGEST_STRICT_TENANT: 'maybe' })).toHaveLength(3)
  })

  it('never echoes a secret value in a refusal', () => {
    const problems = problemsOf({ ...PRODUCTION, WEBHOOK_SECRET: 'tiny-secret' })
    expect(problems.join(' ')).not.toContain('tiny-secret')
  })

  it('bypasses authentication only when no key at all is configured outside production', () => {
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOK_SECRET: 'x'.repeat(16) }).auth.isBypassed).toBe(true)
    expect(loadConfig({ AUTH_ADMIN_API_KEYS: 'admin' }).auth.isBypassed).toBe(false)
  })

  it('parses tenant-bound keys', () => {
    const config = loadConfig({ TENANT_API_KEYS: 'acme:key-1, beta:key:with:colons', AUTH_REQUIRE_TENANT: 'true' })
    expect(config.auth.tenantApiKeys).toEqual([
      { tenantId: 'acme', key: 'key-1' },
      { tenantId: 'beta', key: 'key:with:colons' },
    ])
  })

  it.each([
    ['', false],
    ['2', 2],
    ['10.0.0.1,192.168.0.0/16', ['10.0.0.1', '192.168.0.0/16']],
  ])('TRUST_PROXY=%j gives %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).server.trustProxy).toEqual(expected)
  })

  it('normalises SWAGGER_PATH to one leading slash', () => {
    expect(loadConfig({ SWAGGER_PATH: '/api-docs/' }).swagger.path).toBe('/api-docs')
  })
})

describe('loadConfig: OpenTelemetry export', () => {
  it('is off without an endpoint, and off when OTEL_SDK_DISABLED=true', () => {
    expect(loadConfig({}).telemetry).toBeUndefined()
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).telemetry,
    ).toBeUndefined()
  })

  it('appends /v1/traces to the base endpoint and takes the traces endpoint as given', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).telemetry).toMatchObject({
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'acdp-control-plane',
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduleDelayMs: 5000,
      exportTimeoutMs: 10_000,
    })
    const traces = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/otlp/traces',
    })
    expect(traces.telemetry?.tracesUrl).toBe('https://collector.example/otlp/traces')
  })

  it('parses headers (percent-decoded, traces headers win) without echoing a malformed one', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc,x-team=ops',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
    })
    expect(config.telemetry?.headers).toEqual({ authorization: 'Bearer abc', 'x-team': 'traces' })
    const problems = problemsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'ok=1,secret-without-equals',
    })
    expect(problems).toEqual(['OTEL_EXPORTER_OTLP_HEADERS entry 2 must have the form key=value'])
  })

  it.each([
    ['a non-URL endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be/],
    ['a non-http scheme', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c/v1/traces' }, /_TRACES_ENDPOINT must be/],
    ['credentials in the URL', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://u:p@c:4318' }, /must not carry credentials/],
    [
      'another OTLP encoding',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /must be http\/json/,
    ],
    [
      'a batch larger than the queue',
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_BSP_MAX_QUEUE_SIZE: '10',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20',
      },
      /must not exceed OTEL_BSP_MAX_QUEUE_SIZE/,
    ],
  ])('refuses %s', (_name, env, message) => {
    const problems = problemsOf(env)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(message)
  })
})

describe('decodeKey', () => {
  it.each([
    ['base64', Buffer.alloc(32, 2).toString('base64'), true],
    ['base64url without padding', Buffer.alloc(32, 250).toString('base64url'), true],
    ['hex', 'ab'.repeat(32), true],
    ['31 bytes', Buffer.alloc(31).toString('base64'), false],
    ['33 bytes', Buffer.alloc(33).toString('base64'), false],
    ['garbage', 'not a key', false],
  ])('%s → %s', (_name, text, ok) => {
    expect(decodeKey(text)?.length === 32).toBe(ok)
  })
})
