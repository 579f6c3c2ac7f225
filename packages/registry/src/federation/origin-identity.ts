/**
 * The origin's registry identity (RFC-ACDP-0006 §4.1 steps 2–3, REQUIRED for `acdp-registry-federated`; the
 * same authority binding as RFC-ACDP-0010 §8 step 2): before a foreign context is fetched, the origin's
 * capabilities must name `registry_did` = `did:web:<authority>`, the authority of the requested ctx_id. A
 * ctx_id authority is a bare hostname (RFC-ACDP-0002 §3.1) and the origin is reached on the HTTPS default
 * port, so a DID carrying a `%3A<port>` names another endpoint and does not bind either. Without this check an
 * origin could present itself as another registry (or as an unbound `did:key`) and be served as that registry.
 *
 * Out-of-band trust (`registry.trusted_origins`, off by default): an operator may pin, for one authority, the
 * exact registry DID it has verified by other means (e.g. a registry identified by did:key). That authority's
 * capabilities must then name exactly the pinned DID; no other authority is affected.
 */
import { registryDidForAuthority } from '@acdp/protocol'
import { RegistryError } from '../core/errors.js'
import type { OriginCapabilities } from './origin-capabilities.js'

/** One `[[registry.trusted_origins]]` entry: the registry DID an operator verified out of band for an authority. */
export interface TrustedOrigin {
  authority: string
  registry_did: string
}

/** Why an origin's identity did not bind (`details.reason` of the 502). */
export type OriginIdentityFailure =
  'registry_did_mismatch' | 'registry_did_not_did_web' | 'trusted_registry_did_mismatch'

/**
 * Checks the origin at `baseUrl` for `authority`.
 *
 * @throws RegistryError `cross_registry_resolution_failed` with `details.reason` (an
 *   {@link OriginIdentityFailure} or `capabilities_unavailable`) and `details.expected_registry_did`.
 */
export type OriginIdentityCheck = (authority: string, baseUrl: string) => Promise<void>

export function createOriginIdentityCheck(deps: {
  capabilities: OriginCapabilities
  trustedOrigins?: readonly TrustedOrigin[]
}): OriginIdentityCheck {
  const pinned = new Map((deps.trustedOrigins ?? []).map((entry) => [entry.authority, entry.registry_did]))
  return async (authority, baseUrl) => {
    const claimed = (await deps.capabilities(authority, baseUrl)).registry_did
    const trusted = pinned.get(authority)
    if (trusted !== undefined) {
      if (claimed !== trusted) refuse('trusted_registry_did_mismatch', trusted)
      return
    }
    const expected = registryDidForAuthority(authority)
    if (!claimed.startsWith('did:web:')) refuse('registry_did_not_did_web', expected)
    // did:web hosts are case-insensitive (registryDidForAuthority lowercases the authority).
    if (claimed.toLowerCase() !== expected) refuse('registry_did_mismatch', expected)
  }
}

function refuse(reason: OriginIdentityFailure, expected: string): never {
  throw new RegistryError(
    'cross_registry_resolution_failed',
    "The origin registry's capabilities do not name the registry of that authority.",
    { details: { reason, expected_registry_did: expected } },
  )
}
