/**
 * Tenant resolution (product spec "Authentication" rule 6; an authenticated binding outranks a header):
 * a bound tenant (tenant key, JWT claim) wins; then X-Tenant-Id; then `default`.
 */
import { DEFAULT_TENANT, TENANT_ID_PATTERN } from '../core/config.js'
import { ControlPlaneError } from '../core/errors.js'
import type { Principal } from './credentials.js'

/**
 * Reads the X-Tenant-Id header.
 *
 * @param header attacker-controlled: the raw header value(s).
 * @returns the tenant id, or undefined when absent.
 * @throws ControlPlaneError VALIDATION_ERROR for a repeated or malformed header.
 */
export function readTenantHeader(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (Array.isArray(header) || !TENANT_ID_PATTERN.test(header)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'X-Tenant-Id must be one tenant id ([A-Za-z0-9._-], at most 128)')
  }
  return header
}

/**
 * Resolves the tenant of an authenticated request.
 *
 * @throws ControlPlaneError TENANT_RESERVED when `default` is asserted; TENANT_MISMATCH when the header
 *   disagrees with a bound tenant; TENANT_HEADER_UNTRUSTED when the credential may not choose a tenant;
 *   TENANT_REQUIRED when `requireTenant` and the request resolves only to `default`.
 */
export function resolveTenant(principal: Principal, header: string | undefined, requireTenant: boolean): string {
  if (header === DEFAULT_TENANT) {
    throw new ControlPlaneError('TENANT_RESERVED', 'the tenant "default" cannot be asserted')
  }
  let tenant: string = DEFAULT_TENANT
  if (principal.boundTenant === DEFAULT_TENANT) {
    // A token claiming the reserved tenant is refused like a header asserting it (rule 6).
    throw new ControlPlaneError('TENANT_RESERVED', 'the tenant "default" cannot be asserted')
  }
  if (principal.boundTenant !== undefined) {
    if (header !== undefined && header !== principal.boundTenant) {
      throw new ControlPlaneError('TENANT_MISMATCH', 'X-Tenant-Id does not match the tenant of the credential')
    }
    tenant = principal.boundTenant
  } else if (header !== undefined) {
    if (!principal.mayAssertTenant) {
      throw new ControlPlaneError('TENANT_HEADER_UNTRUSTED', 'this credential cannot choose a tenant with X-Tenant-Id')
    }
    tenant = header
  }
  if (requireTenant && tenant === DEFAULT_TENANT) {
    throw new ControlPlaneError('TENANT_REQUIRED', 'a tenant is required (tenant-bound key or X-Tenant-Id)')
  }
  return tenant
}
