import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../core/config.js'

const BASE = {
  NODE_ENV: 'test',
  WEBHOOK_SECRET: 'global-webhook-secret-0123456789',
  AUTH_API_KEYS: 'k-0123456789abcdef',
}
const SECRET = 'jwt-secret-0123456789abcdef0123456789'

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...BASE, ...env })
    return []
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems]
    throw error
  }
}

describe('token settings', () => {
  it('reads the defaults and every variable', () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
    const config = loadConfig({
      ...BASE,
      TOKEN_ISSUANCE_ENABLED: 'true',
      JWT_SIGNING_ALG: 'EdDSA',
      JWT_PRIVATE_KEY_PEM: pem.replace(/\n/g, '\\n'),
      JWT_AUTHORITY: 'cp.example',
      TENANT_AGENTS: 'acme:did:web:bot.example',
      TRUSTED_ISSUERS: `peer.example|HS256|${SECRET}|aud|a b|read_only,idp.example|EdDSA|https://idp.example/jwks|aud2`,
      REVOCATION_FEEDS: `peer.example|https://peer.example/auth/revocations|token|60`,
    })
    expect(config.tokens).toMatchObject({
      issuanceEnabled: true,
      signingAlg: 'EdDSA',
      authority: 'cp.example',
      audience: 'cp.example',
      ttlSeconds: 3600,
      challengeTtlSeconds: 300,
      tenantAgents: [{ tenantId: 'acme', agentDid: 'did:web:bot.example' }],
      tenantHeaderTrust: 'none',
      throttleLimit: 20,
      throttleWindowMs: 60_000,
    })
    expect(config.tokens.trustedIssuers.map((i) => [i.issuer, i.algorithm, i.requiredScopes, i.readOnly])).toEqual([
      ['peer.example', 'HS256', ['a', 'b'], true],
      ['idp.example', 'EdDSA', [], false],
    ])
    expect(config.tokens.revocationFeeds).toEqual([
      { issuer: 'peer.example', url: 'https://peer.example/auth/revocations', token: 'token', pollSeconds: 60 },
    ])
  })

  it.each([
    [{ TOKEN_ISSUANCE_ENABLED: 'true' }, /needs JWT_SECRET/],
    [{ JWT_SECRET: 'short' }, /at least 32 bytes/],
    [{ JWT_SIGNING_ALG: 'RS256' }, /JWT_SIGNING_ALG/],
    [{ TOKEN_ISSUANCE_ENABLED: 'true', JWT_SIGNING_ALG: 'EdDSA' }, /JWT_PRIVATE_KEY_PEM/],
    [{ JWT_PRIVATE_KEY_PEM: 'not a pem' }, /PKCS#8/],
    [{ CONTROL_PLANE_PINNED_KEYS: 'did:web:a=short' }, /CONTROL_PLANE_PINNED_KEYS entry 1/],
    [{ TENANT_AGENTS: 'default:did:web:a' }, /TENANT_AGENTS entry 1/],
    [{ TENANT_AGENTS: 'acme:did:web:a,globex:did:web:a' }, /second tenant/],
    [{ TRUSTED_ISSUERS: 'control-plane.local|HS256|' + SECRET + '|aud' }, /own issuer/],
    [{ TRUSTED_ISSUERS: 'peer|HS256|short|aud' }, /32 bytes/],
    [{ TRUSTED_ISSUERS: 'peer|EdDSA|http://peer/jwks|aud' }, /https/],
    [{ TRUSTED_ISSUERS: `peer|HS256|${SECRET}` }, /form/],
    [{ TRUSTED_ISSUERS: `peer|HS256|${SECRET}|aud||admin` }, /unknown flag/],
    [{ REVOCATION_FEEDS: 'peer|https://peer/feed' }, /REVOCATION_FEEDS entry 1/],
    [{ REVOCATION_FEEDS: 'peer|https://peer/feed|t|0' }, /poll_seconds/],
    [{ TENANT_HEADER_TRUST: 'all' }, /TENANT_HEADER_TRUST/],
    [{ POLICY_RULES: '[{"action":"nope","effect":"deny"}]' }, /POLICY_RULES rule 1/],
    [{ POLICY_DEFAULT: 'maybe' }, /POLICY_DEFAULT/],
    [{ TENANT_QUOTAS: 'acme:x=1/min' }, /TENANT_QUOTAS entry 1/],
    [{ QUOTA_STORE: 'redis' }, /QUOTA_STORE/],
    [{ BANDIT_EXPLORATION_FRACTION: '1.5' }, /BANDIT_EXPLORATION_FRACTION/],
    [{ FEDERATION_TIMEOUT_MS: '20000' }, /FEDERATION_TIMEOUT_MS/],
  ])('refuses %o at boot', (env, pattern) => {
    expect(problems(env as Record<string, string>).join('\n')).toMatch(pattern)
  })
})
