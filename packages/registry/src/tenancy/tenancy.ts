/**
 * Tenancy (product spec "Authentication" 6; RFC-ACDP-0008 §6.4): which tenant a request acts
 * in. Tenant attribution rests only on authenticated signals, in this order:
 *
 * 1. the signed `tenant` claim of the request's bearer JWT (minted by POST /auth/token for a bound agent);
 * 2. the `[[auth.tenant_agents]]` binding of the request's agent DID (the bearer's subject, or the signer a write
 *    names: its signature is verified before anything is stored);
 * 3. X-Tenant-Id, only from a peer `auth.tenant_header_trust` trusts: nobody (`none`, the default), the socket
 *    peers in `rate_limit.trusted_proxies` (`trusted_proxies`; X-Forwarded-For is never consulted), anyone
 *    (`any_peer`), and an admin caller in every mode;
 * 4. otherwise the reserved tenant `default`.
 *
 * Every refusal is 403 not_authorized: an X-Tenant-Id from a peer that may not assert one (even with auth off),
 * an X-Tenant-Id differing from the claim or binding, and — with `auth.require_tenant` — a request that resolves
 * to no tenant. A trusted header that is malformed or asserts `default` is 400 schema_violation.
 */
import { DEFAULT_TENANT, isTenantHeaderTrustExplicit, type RegistryConfig, TENANT_ID_PATTERN } from '../core/config.js'
import { RegistryError } from '../core/errors.js'
import { canonicalIp, createProxyMatcher } from '../core/http/client-ip.js'
import type { RequestHead } from '../core/http/request-head.js'

export { DEFAULT_TENANT } from '../core/config.js'

export type TenantHeaderTrust = RegistryConfig['auth']['tenant_header_trust']

/** The configuration's tenancy rules, compiled once. */
export interface TenancyPolicy {
  requireTenant: boolean
  headerTrust: TenantHeaderTrust
  /** True for a socket peer listed in `rate_limit.trusted_proxies`. */
  isTrustedProxy(address: string): boolean
  /** The `[[auth.tenant_agents]]` tenant of an agent DID, or undefined. */
  bindingOf(agentDid: string): string | undefined
  /** False when `[[auth.tenant_agents]]` is empty: no agent's binding can change a tenant. */
  hasBindings: boolean
}

export function createTenancyPolicy(config: RegistryConfig): TenancyPolicy {
  const bindings = new Map(config.auth.tenant_agents.map((a) => [a.agent_did, a.tenant_id]))
  return {
    requireTenant: config.auth.require_tenant,
    headerTrust: config.auth.tenant_header_trust,
    isTrustedProxy: createProxyMatcher(config.rate_limit.trusted_proxies),
    bindingOf: (agentDid) => bindings.get(agentDid),
    hasBindings: bindings.size > 0,
  }
}

/**
 * A write's tenant as far as it may be told before the signature of its claimed signer is verified: the tenant,
 * or the refusal to answer once that signature verifies. A refusal can rest on the `[[auth.tenant_agents]]`
 * binding of a signer nobody has proven yet (a header that contradicts it, or a header only a binding would
 * have allowed); answered at once, it would tell an unauthenticated caller whether that agent is bound to that
 * tenant. Held back, a mis-signed request gets the same answer either way.
 */
export type WriteTenant = { tenant: string; refusal?: undefined } | { tenant?: undefined; refusal: RegistryError }

/** `resolve()`'s tenant, or its tenancy refusal held back (see WriteTenant). */
export function holdRefusal(resolve: () => string): WriteTenant {
  try {
    return { tenant: resolve() }
  } catch (error) {
    if (error instanceof RegistryError) return { refusal: error }
    throw error
  }
}

/** What one request offers as tenant signals. */
export interface TenantSignals {
  /** The verified bearer token's `tenant` claim, if any. */
  claim?: string | undefined
  /** The agent DID whose binding applies (the bearer's subject or the write's signer), or null. */
  agentDid: string | null
  /** attacker-controlled: the raw X-Tenant-Id value(s). */
  header: string | string[] | undefined
  /** The socket peer (never X-Forwarded-For). */
  peerAddress: string
  /** An admin bearer was presented: the header is trusted whatever the trust mode. */
  admin?: boolean
}

/**
 * The tenant of a request.
 *
 * @throws RegistryError not_authorized (untrusted or conflicting X-Tenant-Id; no tenant under require_tenant),
 *   schema_violation (a trusted X-Tenant-Id that is repeated, malformed or `default`).
 */
export function resolveTenant(policy: TenancyPolicy, signals: TenantSignals): string {
  const bound = signals.claim ?? (signals.agentDid === null ? undefined : policy.bindingOf(signals.agentDid))
  const header = signals.header
  let tenant = bound ?? DEFAULT_TENANT
  if (header !== undefined) {
    if (bound !== undefined) {
      // The header may repeat the authenticated tenant, never choose another.
      if (header !== bound) throw refused('X-Tenant-Id does not match the tenant of the credential.')
    } else {
      if (!signals.admin && !isHeaderTrusted(policy, signals.peerAddress)) {
        throw refused('X-Tenant-Id is not accepted from this client; the tenant comes from the credential.')
      }
      if (Array.isArray(header) || !TENANT_ID_PATTERN.test(header) || header === DEFAULT_TENANT) {
        throw new RegistryError(
          'schema_violation',
          'X-Tenant-Id must be one tenant id ([A-Za-z0-9][A-Za-z0-9._-]{0,127}, not "default").',
          { details: { header: 'x-tenant-id' } },
        )
      }
      tenant = header
    }
  }
  if (policy.requireTenant && tenant === DEFAULT_TENANT) {
    throw refused('This registry requires a tenant: a tenant-bound credential or a trusted X-Tenant-Id.')
  }
  return tenant
}

/** The tenant of `request` given its authenticated signals (reads X-Tenant-Id and the socket peer). */
export function tenantOfRequest(
  policy: TenancyPolicy,
  request: Pick<RequestHead, 'headers' | 'socket'>,
  signals: Pick<TenantSignals, 'claim' | 'agentDid' | 'admin'>,
): string {
  return resolveTenant(policy, {
    ...signals,
    header: request.headers['x-tenant-id'],
    peerAddress: canonicalIp(request.socket.remoteAddress ?? ''),
  })
}

function isHeaderTrusted(policy: TenancyPolicy, peerAddress: string): boolean {
  switch (policy.headerTrust) {
    case 'any_peer':
      return true
    case 'trusted_proxies':
      return policy.isTrustedProxy(peerAddress)
    default:
      return false
  }
}

function refused(message: string): RegistryError {
  return new RegistryError('not_authorized', message)
}

/** The `tenancy` group of GET /admin/status (product spec "Endpoints"). */
export interface TenancyStatus {
  require_tenant: boolean
  /** The effective mode (`none` when unset). */
  tenant_header_trust: TenantHeaderTrust
  /** Whether `auth.tenant_header_trust` was written in the file or environment. */
  tenant_header_trust_configured: boolean
  /** Number of `rate_limit.trusted_proxies` entries. */
  trusted_proxies: number
}

export function tenancyStatus(config: RegistryConfig): TenancyStatus {
  return {
    require_tenant: config.auth.require_tenant,
    tenant_header_trust: config.auth.tenant_header_trust,
    tenant_header_trust_configured: isTenantHeaderTrustExplicit(config),
    trusted_proxies: config.rate_limit.trusted_proxies.length,
  }
}
