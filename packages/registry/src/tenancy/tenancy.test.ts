import { describe, expect, it } from 'vitest'
import { type RegistryConfigInput, resolveConfig } from '../core/config.js'
import { RegistryError } from '../core/errors.js'
import { createTenancyPolicy, resolveTenant, type TenantSignals, tenancyStatus } from './tenancy.js'

const ALICE = 'did:web:agents.example.com:alice'

function policy(auth: RegistryConfigInput['auth'] = {}, proxies: string[] = []) {
  return createTenancyPolicy(
    resolveConfig({ registry: { authority: 'registry.example.com' }, auth, rate_limit: { trusted_proxies: proxies } }),
  )
}

function outcome(p: ReturnType<typeof policy>, signals: Partial<TenantSignals>): string {
  try {
    return resolveTenant(p, { agentDid: null, header: undefined, peerAddress: '192.0.2.1', ...signals })
  } catch (error) {
    return error instanceof RegistryError ? `${error.status} ${error.code}` : 'thrown'
  }
}

describe('resolveTenant', () => {
  const bound = policy({ require_tenant: true, tenant_agents: [{ agent_did: ALICE, tenant_id: 'acme' }] })
  const proxied = policy({ tenant_header_trust: 'trusted_proxies' }, ['10.0.0.0/8'])

  it.each<[string, ReturnType<typeof policy>, Partial<TenantSignals>, string]>([
    ['no signal: the default tenant', policy(), {}, 'default'],
    ['header under trust none', policy(), { header: 'acme' }, '403 not_authorized'],
    ['header under trust none, admin caller', policy(), { header: 'acme', admin: true }, 'acme'],
    ['header from any peer', policy({ tenant_header_trust: 'any_peer' }), { header: 'acme' }, 'acme'],
    ['header from a listed proxy', proxied, { header: 'acme', peerAddress: '10.2.3.4' }, 'acme'],
    ['header from an unlisted peer', proxied, { header: 'acme', peerAddress: '192.0.2.1' }, '403 not_authorized'],
    ['trusted header "default"', proxied, { header: 'default', peerAddress: '10.2.3.4' }, '400 schema_violation'],
    ['trusted malformed header', proxied, { header: 'a b', peerAddress: '10.2.3.4' }, '400 schema_violation'],
    ['trusted repeated header', proxied, { header: ['a', 'b'], peerAddress: '10.2.3.4' }, '400 schema_violation'],
    ['binding', bound, { agentDid: ALICE }, 'acme'],
    ['binding with the same header from an untrusted peer', bound, { agentDid: ALICE, header: 'acme' }, 'acme'],
    ['binding with another header', bound, { agentDid: ALICE, header: 'globex' }, '403 not_authorized'],
    ['claim wins over binding', bound, { agentDid: ALICE, claim: 'initech' }, 'initech'],
    ['claim with a conflicting header', bound, { claim: 'initech', header: 'acme' }, '403 not_authorized'],
    ['require_tenant without any signal', bound, { agentDid: 'did:web:other.example' }, '403 not_authorized'],
    ['require_tenant, admin without header', bound, { admin: true }, '403 not_authorized'],
  ])('%s', (_name, p, signals, expected) => {
    expect(outcome(p, signals)).toBe(expected)
  })
})

describe('tenancyStatus', () => {
  it('reports the effective trust, whether it was written, and the proxy count', () => {
    const written = resolveConfig({
      registry: { authority: 'registry.example.com' },
      auth: { tenant_header_trust: 'trusted_proxies' },
      rate_limit: { trusted_proxies: ['10.0.0.1', '10.0.0.2'] },
    })
    expect(tenancyStatus(written)).toEqual({
      require_tenant: false,
      tenant_header_trust: 'trusted_proxies',
      tenant_header_trust_configured: true,
      trusted_proxies: 2,
    })
    expect(tenancyStatus(resolveConfig({ registry: { authority: 'registry.example.com' } }))).toMatchObject({
      tenant_header_trust: 'none',
      tenant_header_trust_configured: false,
      trusted_proxies: 0,
    })
  })
})
