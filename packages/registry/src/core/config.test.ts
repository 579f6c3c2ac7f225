import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  ConfigError,
  DEFAULT_CONFIG,
  isTenantHeaderTrustExplicit,
  loadConfig,
  type RegistryConfigInput,
  resolveConfig,
} from './config.js'

const base: RegistryConfigInput = { registry: { authority: 'registry.example.com' } }
const PG = { backend: 'postgres', postgres_url: 'postgres://127.0.0.1/x' } as const
const FEED = {
  issuer: 'did:web:peer.example',
  feed_url: 'https://peer.example/auth/revocations',
  admin_token: 'peer-admin-token',
  poll_seconds: 60,
}
/** A test-only 32-byte Ed25519 seed (base64). */
const SEED = Buffer.alloc(32, 0x11).toString('base64')

function tomlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-registry-config-'))
  const path = join(dir, 'registry.toml')
  writeFileSync(path, text)
  return path
}

function refusal(input: RegistryConfigInput, nodeEnv?: string): string {
  try {
    resolveConfig(input, nodeEnv ? { nodeEnv } : {})
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message).not.toContain('\n')
    return message
  }
  throw new Error('expected a refusal')
}

describe('loading', () => {
  it('fills every default and freezes the result', () => {
    const config = resolveConfig(base)
    expect(config.limits).toEqual(DEFAULT_CONFIG.limits)
    expect(config.registry.base_url).toBe('https://registry.example.com')
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.auth.did_methods)).toBe(true)
  })

  it('layers defaults < TOML < environment', () => {
    const path = tomlFile(
      '[registry]\nauthority = "reg.example.org"\nport = 9000\n[limits]\nmax_payload_bytes = 4096\n',
    )
    const config = loadConfig({
      path,
      env: { ACDP_REGISTRY_REGISTRY__PORT: '9100', ACDP_REGISTRY_AUTH__DID_METHODS: 'did:web, did:key' },
    })
    expect(config.registry.authority).toBe('reg.example.org')
    expect(config.registry.port).toBe(9100)
    expect(config.limits.max_payload_bytes).toBe(4096)
    expect(config.auth.did_methods).toEqual(['did:web', 'did:key'])
  })

  it('releases memory on idle by default; the environment turns it off', () => {
    expect(resolveConfig(base).registry.memory_release_on_idle).toBe(true)
    const config = loadConfig({
      path: tomlFile('[registry]\nauthority = "reg.example.org"\n'),
      env: { ACDP_REGISTRY_REGISTRY__MEMORY_RELEASE_ON_IDLE: 'false' },
    })
    expect(config.registry.memory_release_on_idle).toBe(false)
  })

  it('reads the file named by ACDP_REGISTRY_CONFIG', () => {
    const path = tomlFile('[registry]\nauthority = "named.example.org"\n')
    expect(loadConfig({ env: { ACDP_REGISTRY_CONFIG: path } }).registry.authority).toBe('named.example.org')
  })

  it('treats an empty environment variable as absent', () => {
    const config = loadConfig({
      env: { ACDP_REGISTRY_REGISTRY__AUTHORITY: 'env.example.org', ACDP_REGISTRY_REGISTRY__PORT: '' },
    })
    expect(config.registry.port).toBe(8443)
  })

  it.each([
    [
      'boolean',
      'ACDP_REGISTRY_AUTH__ANONYMOUS_PUBLIC_READS',
      'false',
      (c: ReturnType<typeof loadConfig>) => c.auth.anonymous_public_reads,
      false,
    ],
    [
      'integer',
      'ACDP_REGISTRY_LIMITS__IDEMPOTENCY_KEY_TTL_SECONDS',
      '172800',
      (c: ReturnType<typeof loadConfig>) => c.limits.idempotency_key_ttl_seconds,
      172800,
    ],
    [
      'nested',
      'ACDP_REGISTRY_REGISTRY__TLS__ENABLED',
      'false',
      (c: ReturnType<typeof loadConfig>) => c.registry.tls.enabled,
      false,
    ],
    [
      'JSON list',
      'ACDP_REGISTRY_OUTBOUND__ALLOW_CIDRS',
      '["127.0.0.1/32"]',
      (c: ReturnType<typeof loadConfig>) => c.outbound.allow_cidrs,
      ['127.0.0.1/32'],
    ],
    [
      '_JSON escape hatch',
      'ACDP_REGISTRY_AUTH__TENANT_AGENTS_JSON',
      '[]',
      (c: ReturnType<typeof loadConfig>) => c.auth.tenant_agents,
      [],
    ],
  ])('coerces a %s environment value by the schema type', (_kind, name, value, pick, expected) => {
    const config = loadConfig({ env: { ACDP_REGISTRY_REGISTRY__AUTHORITY: 'env.example.org', [name]: value } })
    expect(pick(config)).toEqual(expected)
  })

  it.each([
    [
      'unknown environment key',
      { ACDP_REGISTRY_REGISTRY__PROT: '1' },
      /ACDP_REGISTRY_REGISTRY__PROT: no such configuration key/,
    ],
    [
      'non-integer',
      { ACDP_REGISTRY_REGISTRY__PORT: 'eighty' },
      /ACDP_REGISTRY_REGISTRY__PORT: expected integer for registry.port/,
    ],
    ['non-boolean', { ACDP_REGISTRY_AUTH__ENABLED: 'maybe' }, /expected true or false for auth.enabled/],
    ['a whole section', { ACDP_REGISTRY_REGISTRY: 'x' }, /registry is a section/],
    [
      'headers timeout above the request timeout',
      { ACDP_REGISTRY_LIMITS__HEADERS_TIMEOUT_SECONDS: '40' },
      /limits.headers_timeout_seconds must not exceed limits.request_timeout_seconds/,
    ],
  ])('refuses a bad environment value: %s', (_name, env, pattern) => {
    expect(() => loadConfig({ env: { ACDP_REGISTRY_REGISTRY__AUTHORITY: 'env.example.org', ...env } })).toThrow(pattern)
  })

  it('refuses an unknown TOML key, naming it', () => {
    const path = tomlFile('[registry]\nauthority = "a.example"\nprot = 1\n')
    expect(() => loadConfig({ path, env: {} })).toThrow(/registry\.prot: no such configuration key/)
  })

  it('reads [[registry.trusted_origins]] from TOML and from the environment; none by default', () => {
    const toml = tomlFile(
      '[registry]\nauthority = "a.example"\n[[registry.trusted_origins]]\nauthority = "b.example"\nregistry_did = "did:web:c.example"\n',
    )
    expect(loadConfig({ path: toml, env: {} }).registry.trusted_origins).toEqual([
      { authority: 'b.example', registry_did: 'did:web:c.example' },
    ])
    const env = {
      ACDP_REGISTRY_REGISTRY__AUTHORITY: 'a.example',
      ACDP_REGISTRY_REGISTRY__TRUSTED_ORIGINS: '[{"authority":"b.example","registry_did":"did:web:c.example"}]',
    }
    expect(loadConfig({ env }).registry.trusted_origins).toEqual([
      { authority: 'b.example', registry_did: 'did:web:c.example' },
    ])
    expect(loadConfig({ env: { ACDP_REGISTRY_REGISTRY__AUTHORITY: 'a.example' } }).registry.trusted_origins).toEqual([])
  })

  it('refuses invalid TOML and unreadable files with one line', () => {
    expect(() => loadConfig({ path: tomlFile('[registry\n'), env: {} })).toThrow(/invalid TOML/)
    expect(() => loadConfig({ path: '/nonexistent/registry.toml', env: {} })).toThrow(/cannot be read/)
  })

  it('names the key of a type error', () => {
    expect(refusal({ ...base, limits: { max_payload_bytes: 10 } })).toMatch(/^limits\.max_payload_bytes: /)
  })
})

describe('startup refusals', () => {
  it.each<[string, RegistryConfigInput, RegExp, string?]>([
    ['missing authority', {}, /registry\.authority is required/],
    [
      'DID as authority',
      { registry: { authority: 'did:web:registry.example.com' } },
      /registry\.authority .* not a bare/,
    ],
    ['authority with port', { registry: { authority: 'registry.example.com:8443' } }, /registry\.authority/],
    ['uppercase authority', { registry: { authority: 'Registry.example.com' } }, /registry\.authority/],
    ['postgres without url', { ...base, storage: { backend: 'postgres' } }, /storage\.postgres_url is required/],
    ['embedded limit changed', { ...base, limits: { max_embedded_bytes: 131072 } }, /max_embedded_bytes is fixed/],
    [
      'idempotency TTL below 24 h',
      { ...base, limits: { idempotency_key_ttl_seconds: 3600 } },
      /idempotency_key_ttl_seconds/,
    ],
    ['unknown DID method', { ...base, auth: { did_methods: ['did:web', 'did:jwk'] } }, /unsupported method "did:jwk"/],
    ['did:web missing', { ...base, auth: { did_methods: ['did:key'] } }, /must include "did:web"/],
    [
      'unknown profile',
      { ...base, registry: { authority: 'a.example', profiles: ['acdp-registry-core', 'acdp-registry-x'] } },
      /unknown profile/,
    ],
    [
      'witness profile',
      { ...base, registry: { authority: 'a.example', profiles: ['acdp-registry-core', 'acdp-log-witness'] } },
      /witness profile/,
    ],
    [
      'core missing',
      { ...base, registry: { authority: 'a.example', profiles: ['acdp-registry-discovery'] } },
      /must include "acdp-registry-core"/,
    ],
    [
      'federated without resolution',
      {
        registry: {
          authority: 'a.example',
          profiles: ['acdp-registry-core', 'acdp-registry-federated'],
          cross_registry_resolution: false,
        },
      },
      /requires registry\.cross_registry_resolution/,
    ],
    [
      'a trusted origin that is not a bare hostname',
      {
        registry: {
          authority: 'a.example',
          trusted_origins: [{ authority: 'b.example:8443', registry_did: 'did:web:b.example' }],
        },
      },
      /trusted_origins\]\]: authority "b\.example:8443" is not a bare lowercase DNS hostname/,
    ],
    [
      'a trusted origin naming this registry',
      {
        registry: {
          authority: 'a.example',
          trusted_origins: [{ authority: 'a.example', registry_did: 'did:web:x.example' }],
        },
      },
      /"a\.example" is this registry's own authority/,
    ],
    [
      'a trusted origin listed twice',
      {
        registry: {
          authority: 'a.example',
          trusted_origins: [
            { authority: 'b.example', registry_did: 'did:web:b.example' },
            { authority: 'b.example', registry_did: 'did:web:c.example' },
          ],
        },
      },
      /authority "b\.example" is listed twice/,
    ],
    [
      'a trusted origin DID of another method',
      {
        registry: {
          authority: 'a.example',
          trusted_origins: [{ authority: 'b.example', registry_did: 'did:ion:xyz' }],
        },
      },
      /registry_did "did:ion:xyz" must be a did:web or did:key DID/,
    ],
    [
      'receipts profile without a key',
      { registry: { authority: 'a.example', profiles: ['acdp-registry-core', 'acdp-registry-receipts'] } },
      /"acdp-registry-receipts" needs a receipt key/,
    ],
    [
      'head-receipts profile without the setting',
      {
        registry: { authority: 'a.example', profiles: ['acdp-registry-core', 'acdp-registry-head-receipts'] },
        receipt: { signing_key_seed_b64: SEED },
      },
      /needs receipt\.head_receipts = true/,
    ],
    [
      'log profile without the setting',
      {
        registry: { authority: 'a.example', profiles: ['acdp-registry-core', 'acdp-registry-transparency-log'] },
        receipt: { signing_key_seed_b64: SEED },
      },
      /needs log\.enabled = true/,
    ],
    [
      'both receipt key sources',
      { ...base, receipt: { signing_key_seed_b64: SEED, signing_key_path: '/x' } },
      /only one/,
    ],
    ['short receipt seed', { ...base, receipt: { signing_key_seed_b64: 'AAAA' } }, /32-byte Ed25519 seed/],
    ['missing receipt key file', { ...base, receipt: { signing_key_path: '/nonexistent/seed' } }, /file not found/],
    ['head receipts without a key', { ...base, receipt: { head_receipts: true } }, /head_receipts = true needs/],
    ['log without a key', { ...base, log: { enabled: true } }, /log\.enabled = true needs a receipt key/],
    [
      'bad log instance',
      { ...base, receipt: { signing_key_seed_b64: SEED }, log: { enabled: true, instance: 'Log 1' } },
      /log\.instance/,
    ],
    [
      'witnesses without the log',
      { ...base, witnesses: [{ did: 'did:web:w.example', url: 'https://w.example/log/witness', poll_seconds: 60 }] },
      /requires log\.enabled/,
    ],
    [
      'witness over http',
      {
        ...base,
        receipt: { signing_key_seed_b64: SEED },
        log: { enabled: true },
        witnesses: [{ did: 'did:web:w.example', url: 'http://w.example/', poll_seconds: 60 }],
      },
      /must be https/,
    ],
    [
      'retired key reusing the current fragment',
      {
        ...base,
        receipt: {
          signing_key_seed_b64: SEED,
          retired_keys: [{ public_key_b64: SEED, key_id_fragment: 'receipt-key-1' }],
        },
      },
      /used twice/,
    ],
    [
      'lifecycle profile listed while lifecycle is off',
      { registry: { authority: 'a.example', profiles: ['acdp-registry-core', 'acdp-registry-lifecycle'] } },
      /requires lifecycle\.enabled = true/,
    ],
    [
      'CORS origin with a path',
      { registry: { authority: 'a.example', cors: { allowed_origins: ['https://x.example/app'] } } },
      /registry\.cors\.allowed_origins: "https:\/\/x\.example\/app" is not an origin/,
    ],
    [
      'CORS origin with a trailing slash',
      { registry: { authority: 'a.example', cors: { allowed_origins: ['https://x.example/'] } } },
      /registry\.cors\.allowed_origins/,
    ],
    [
      'CORS origin with the default port',
      { registry: { authority: 'a.example', cors: { allowed_origins: ['https://x.example:443'] } } },
      /default port/,
    ],
    [
      'CORS origin in upper case',
      { registry: { authority: 'a.example', cors: { allowed_origins: ['https://X.example'] } } },
      /registry\.cors\.allowed_origins/,
    ],
    [
      'short search cursor secret',
      { ...base, search: { cursor_secret_b64: Buffer.alloc(16).toString('base64') } },
      /search\.cursor_secret_b64/,
    ],
    [
      'trusted proxies that nothing uses',
      { ...base, rate_limit: { enabled: false, trusted_proxies: ['10.0.0.1'] } },
      /rate_limit\.trusted_proxies is set while rate_limit\.enabled = false/,
    ],
    [
      'shared rate-limit backend without PostgreSQL storage',
      { ...base, rate_limit: { backend: 'postgres' } },
      /rate_limit\.backend = "postgres" requires storage\.backend = "postgres"/,
    ],
    [
      'shared rate-limit backend with the limits off',
      { ...base, storage: PG, rate_limit: { backend: 'postgres', enabled: false } },
      /requires rate_limit\.enabled = true/,
    ],
    [
      'shared rate-limit backend without a global budget',
      { ...base, storage: PG, rate_limit: { backend: 'postgres', global_per_minute: 0 } },
      /requires rate_limit\.global_per_minute > 0/,
    ],
    [
      'shared rate-limit backend with a zero timeout',
      { ...base, storage: PG, rate_limit: { backend: 'postgres', backend_timeout_ms: 0 } },
      /requires rate_limit\.backend_timeout_ms > 0/,
    ],
    [
      'shared rate-limit backend never pruned',
      { ...base, storage: PG, rate_limit: { backend: 'postgres', backend_prune_seconds: 0 } },
      /requires rate_limit\.backend_prune_seconds > 0/,
    ],
    [
      'revocation feed over plain http',
      { ...base, auth: { revocation_feeds: [{ ...FEED, feed_url: 'http://peer.example/auth/revocations' }] } },
      /feed_url .* must be https/,
    ],
    [
      'revocation feed without an issuer',
      { ...base, auth: { revocation_feeds: [{ ...FEED, issuer: ' ' }] } },
      /issuer must be non-empty/,
    ],
    [
      'revocation feed listed twice',
      { ...base, auth: { revocation_feeds: [FEED, { ...FEED, issuer: 'did:web:other.example' }] } },
      /listed twice/,
    ],
    [
      'revocation feed with a blank admin token',
      { ...base, auth: { revocation_feeds: [{ ...FEED, admin_token: '' }] } },
      /admin_token must be non-blank/,
    ],
    ['HS256 auth without a secret', { ...base, auth: { enabled: true } }, /needs auth\.jwt_secret/],
    [
      'short HS256 secret (even with auth off)',
      { ...base, auth: { jwt_secret: Buffer.alloc(16, 7).toString('base64') } },
      /auth\.jwt_secret must be base64 of at least 32/,
    ],
    [
      'EdDSA without a key',
      { ...base, auth: { enabled: true, jwt_signing_alg: 'EdDSA' } },
      /needs auth\.jwt_private_key_pem/,
    ],
    [
      'EdDSA with a malformed key',
      {
        ...base,
        auth: {
          enabled: true,
          jwt_signing_alg: 'EdDSA',
          jwt_private_key_pem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
        },
      },
      /jwt_private_key_pem is not an Ed25519 private key/,
    ],
    [
      'EdDSA with a non-Ed25519 key',
      {
        ...base,
        auth: {
          enabled: true,
          jwt_signing_alg: 'EdDSA',
          jwt_private_key_pem: generateKeyPairSync('ec', { namedCurve: 'P-256' })
            .privateKey.export({ format: 'pem', type: 'pkcs8' })
            .toString(),
        },
      },
      /jwt_private_key_pem is not an Ed25519 private key/,
    ],
    ['changeme secret', { ...base, auth: { jwt_secret: ' ChangeMe ' } }, /changeme/],
    ['blank admin token', { ...base, auth: { admin_tokens: [' tok'] } }, /admin_tokens/],
    [
      'public bind without TLS or auth',
      { registry: { authority: 'a.example', bind: '0.0.0.0' } },
      /registry\.bind "0\.0\.0\.0" is not loopback/,
    ],
    ['TLS without files', { registry: { authority: 'a.example', tls: { enabled: true } } }, /registry\.tls\.cert_path/],
    [
      'trusted_proxies trust with no proxies',
      { ...base, auth: { tenant_header_trust: 'trusted_proxies' } },
      /non-empty rate_limit\.trusted_proxies/,
    ],
    ['/0 proxy', { ...base, rate_limit: { trusted_proxies: ['0.0.0.0/0'] } }, /\/0/],
    ['malformed CIDR', { ...base, rate_limit: { trusted_proxies: ['10.0.0.0/33'] } }, /invalid prefix/],
    ['require_tenant with nothing', { ...base, auth: { require_tenant: true } }, /require_tenant/],
    [
      'tenant binding without require_tenant',
      { ...base, auth: { tenant_agents: [{ agent_did: 'did:web:a.example', tenant_id: 'acme' }] } },
      /requires auth\.require_tenant/,
    ],
    [
      'tenant binding to the reserved tenant',
      {
        ...base,
        auth: { require_tenant: true, tenant_agents: [{ agent_did: 'did:web:a.example', tenant_id: 'default' }] },
      },
      /"default" is reserved/,
    ],
    [
      'malformed tenant id',
      {
        ...base,
        auth: { require_tenant: true, tenant_agents: [{ agent_did: 'did:web:a.example', tenant_id: 'a/b' }] },
      },
      /tenant_id "a\/b" must match/,
    ],
    [
      'tenant binding of a non-DID',
      { ...base, auth: { require_tenant: true, tenant_agents: [{ agent_did: 'alice', tenant_id: 'acme' }] } },
      /agent_did "alice" is not a did:web or did:key DID/,
    ],
    [
      'agent bound to two tenants',
      {
        ...base,
        auth: {
          require_tenant: true,
          tenant_agents: [
            { agent_did: 'did:web:a.example', tenant_id: 'acme' },
            { agent_did: 'did:web:a.example', tenant_id: 'globex' },
          ],
        },
      },
      /bound twice/,
    ],
    [
      'postgres limiter on sqlite',
      { ...base, rate_limit: { backend: 'postgres' } },
      /requires storage\.backend = "postgres"/,
    ],
    ['webhook without url', { ...base, webhook: { enabled: true, secret: 's' } }, /webhook\.url is required/],
    ['webhook over http', { ...base, webhook: { enabled: true, secret: 's', url: 'http://hook.example' } }, /https/],
    ['webhook without secret', { ...base, webhook: { enabled: true, url: 'https://hook.example' } }, /webhook\.secret/],
    ['whitespace metrics token', { ...base, metrics: { bearer_token: '   ' } }, /whitespace only/],
    ['non-increasing buckets', { ...base, metrics: { duration_buckets: [0.1, 0.1] } }, /strictly increasing/],
    ['malformed allowlist', { ...base, outbound: { allow_cidrs: ['localhost'] } }, /outbound\.allow_cidrs/],
    [
      'allowlist in production',
      { ...base, outbound: { allow_cidrs: ['127.0.0.1/32'] } },
      /NODE_ENV=production/,
      'production',
    ],
  ])('refuses %s', (_name, input, pattern, nodeEnv) => {
    expect(refusal(input, nodeEnv)).toMatch(pattern)
  })

  it('switches the trust layer on by its settings and advertises exactly the profiles that are on', () => {
    const off = resolveConfig(base)
    expect(off.registry.profiles).not.toContain('acdp-registry-receipts')
    const on = resolveConfig({
      ...base,
      receipt: { signing_key_seed_b64: SEED, head_receipts: true },
      log: { enabled: true },
    })
    expect(on.registry.profiles).toEqual([
      ...off.registry.profiles,
      'acdp-registry-receipts',
      'acdp-registry-head-receipts',
      'acdp-registry-transparency-log',
    ])
    const receiptsOnly = resolveConfig({ ...base, receipt: { signing_key_seed_b64: SEED } })
    expect(receiptsOnly.registry.profiles).toContain('acdp-registry-receipts')
    expect(receiptsOnly.registry.profiles).not.toContain('acdp-registry-transparency-log')
  })

  it('accepts bearer authentication with an HS256 secret, an ephemeral secret or an Ed25519 key', () => {
    const secret = Buffer.alloc(32, 9).toString('base64')
    expect(resolveConfig({ ...base, auth: { enabled: true, jwt_secret: secret } }).auth.enabled).toBe(true)
    expect(resolveConfig({ ...base, auth: { enabled: true, allow_ephemeral_secret: true } }).auth.enabled).toBe(true)
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
    const eddsa = resolveConfig({
      ...base,
      auth: { enabled: true, jwt_signing_alg: 'EdDSA', jwt_private_key_pem: pem },
    })
    expect(eddsa.auth.jwt_signing_alg).toBe('EdDSA')
    // A public bind is acceptable once auth is on.
    expect(
      resolveConfig({
        ...base,
        registry: { ...base.registry, bind: '0.0.0.0' },
        auth: { enabled: true, jwt_secret: secret },
      }).registry.bind,
    ).toBe('0.0.0.0')
  })

  it('accepts exact CORS origins and the wildcard', () => {
    const origins = ['https://app.example.com', 'http://localhost:5173', 'http://[::1]:8080', '*']
    expect(
      resolveConfig({ registry: { authority: 'a.example', cors: { allowed_origins: origins } } }).registry.cors
        .allowed_origins,
    ).toEqual(origins)
  })

  it('accepts a public bind when the operator opts in, and the allowlist outside production', () => {
    expect(
      resolveConfig({ registry: { authority: 'a.example', bind: '0.0.0.0', allow_public_bind: true } }).registry.bind,
    ).toBe('0.0.0.0')
    expect(
      resolveConfig({ ...base, outbound: { allow_cidrs: ['127.0.0.1/32', '::1'] } }, { nodeEnv: 'test' }).outbound
        .allow_cidrs,
    ).toHaveLength(2)
  })

  it('accepts the shared rate-limit backend on PostgreSQL storage', () => {
    const config = resolveConfig({
      ...base,
      storage: PG,
      rate_limit: { backend: 'postgres', backend_unavailable: 'deny' },
    })
    expect(config.rate_limit).toMatchObject({
      backend: 'postgres',
      backend_unavailable: 'deny',
      backend_timeout_ms: 250,
    })
  })

  it('accepts revocation feeds from TOML, polling every 300 s unless told otherwise', () => {
    const path = tomlFile(
      [
        '[registry]',
        'authority = "registry.example.com"',
        '[[auth.revocation_feeds]]',
        'issuer = "did:web:peer.example"',
        'feed_url = "https://peer.example/auth/revocations"',
        'admin_token = "peer-admin-token"',
        '[[auth.revocation_feeds]]',
        'issuer = "did:web:peer2.example"',
        'feed_url = "https://peer2.example/auth/revocations"',
        'admin_token = "peer2-admin-token"',
        'poll_seconds = 30',
      ].join('\n'),
    )
    const feeds = loadConfig({ path, env: {} }).auth.revocation_feeds
    expect(feeds.map((f) => f.poll_seconds)).toEqual([300, 30])
    expect(feeds[0]?.issuer).toBe('did:web:peer.example')
  })

  it('accepts the playground (its admin listing) and a tenancy with header trust or bindings', () => {
    expect(resolveConfig({ ...base, playground: { enabled: true } }).playground.enabled).toBe(true)
    const bound = resolveConfig({
      ...base,
      auth: { require_tenant: true, tenant_agents: [{ agent_did: 'did:key:z6Mkexample', tenant_id: 'acme.eu' }] },
    })
    expect(bound.auth.tenant_agents).toEqual([{ agent_did: 'did:key:z6Mkexample', tenant_id: 'acme.eu' }])
    expect(
      resolveConfig({ ...base, auth: { require_tenant: true, tenant_header_trust: 'any_peer' } }).auth.require_tenant,
    ).toBe(true)
  })

  it('remembers whether auth.tenant_header_trust was written or defaulted', () => {
    expect(isTenantHeaderTrustExplicit(resolveConfig(base))).toBe(false)
    expect(isTenantHeaderTrustExplicit(resolveConfig({ ...base, auth: { tenant_header_trust: 'none' } }))).toBe(true)
    const fromEnv = loadConfig({
      env: { ACDP_REGISTRY_REGISTRY__AUTHORITY: 'env.example.org', ACDP_REGISTRY_AUTH__TENANT_HEADER_TRUST: 'none' },
    })
    expect(isTenantHeaderTrustExplicit(fromEnv)).toBe(true)
  })
})

describe('explicitly set auth.tenant_header_trust (GET /admin/status)', () => {
  it('is explicit when the file or the environment writes it, even as the default value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-config-'))
    const bare = join(dir, 'bare.toml')
    writeFileSync(bare, '[registry]\nauthority = "a.example"\n')
    const written = join(dir, 'written.toml')
    writeFileSync(written, '[registry]\nauthority = "a.example"\n[auth]\ntenant_header_trust = "none"\n')
    expect(isTenantHeaderTrustExplicit(loadConfig({ path: bare, env: {} }))).toBe(false)
    expect(isTenantHeaderTrustExplicit(loadConfig({ path: written, env: {} }))).toBe(true)
    const fromEnv = loadConfig({ path: bare, env: { ACDP_REGISTRY_AUTH__TENANT_HEADER_TRUST: 'none' } })
    expect([fromEnv.auth.tenant_header_trust, isTenantHeaderTrustExplicit(fromEnv)]).toEqual(['none', true])
    // An empty variable counts as absent.
    expect(
      isTenantHeaderTrustExplicit(loadConfig({ path: bare, env: { ACDP_REGISTRY_AUTH__TENANT_HEADER_TRUST: '' } })),
    ).toBe(false)
  })
})
