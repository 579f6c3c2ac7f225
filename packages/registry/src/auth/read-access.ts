/**
 * Who is calling and in which tenant, for every route that reads or writes contexts: the caller's DID
 * (pluggable, RFC-ACDP-0008 §6.2), the anonymous-read gate (§6.3: without `anonymous_public_reads`, an anonymous
 * read is refused with 403 before any lookup, so the answer never depends on whether the id exists), and the
 * tenant (tenancy/tenancy.ts).
 */
import { RegistryError } from '../core/errors.js'
import type { RequestHead } from '../core/http/request-head.js'
import { type RouteAuth, routeAuthOf } from '../core/http/route-auth.js'
import type { LifecycleCaller } from '../lifecycle/lifecycle.js'
import type { Reader } from '../retrieval/retrieval.js'
import { holdRefusal, type TenancyPolicy, tenantOfRequest, type WriteTenant } from '../tenancy/tenancy.js'

/** What a request's credential says: its DID (null for none) and, for a registry bearer JWT, its tenant claim. */
export interface CallerIdentity {
  did: string | null
  tenantClaim?: string | undefined
}

/**
 * Identifies the caller. Throws `RegistryError('not_authorized')` for a credential that is present but invalid.
 * Called at most once per request by the resolvers below.
 */
export type CallerIdentifier = (request: RequestHead) => Promise<CallerIdentity>

/**
 * A publisher: the bearer's DID (null without one) and the tenant the write lands in, or the tenancy refusal
 * held back until the signature proves the signer (tenancy/tenancy.ts WriteTenant).
 */
export interface Writer {
  did: string | null
  tenant: WriteTenant
}

export interface RequestScopes {
  /** A reader behind the anonymous-read gate (retrieval, lineages, search, proofs by ctx_id). */
  reader(request: RequestHead): Promise<Reader>
  /** A reader without the gate: anonymous auditors still get leaf hashes, never leaf contents they may not see. */
  auditor(request: RequestHead): Promise<Reader>
  /**
   * A publish by `agentId` (the body's signer, verified before anything is stored). With `requireBearer`
   * (`auth.enabled`) the bearer's agent must be `agentId`, else 403 before anything is verified or stored.
   */
  publisher(request: RequestHead, agentId: string): Promise<Writer>
  /** A lifecycle event's caller (the event's actor is claimed; its signature is the authentication). */
  lifecycleActor(request: RequestHead): Promise<LifecycleCaller>
  /** An admin caller (admin bearer already checked): X-Tenant-Id is honoured in every trust mode. */
  adminTenant(request: RequestHead): string
}

export function createRequestScopes(options: {
  identify: CallerIdentifier
  tenancy: TenancyPolicy
  anonymousPublicReads: boolean
  requireBearer: boolean
}): RequestScopes {
  const { identify, tenancy } = options
  const tenantOf = (request: RequestHead, caller: CallerIdentity, agentDid: string | null) =>
    tenantOfRequest(tenancy, request, { claim: caller.tenantClaim, agentDid })
  return {
    async reader(request) {
      declared(request, 'reader')
      const caller = await identify(request)
      if (caller.did === null && !options.anonymousPublicReads) {
        throw new RegistryError('not_authorized', 'This registry does not serve anonymous reads; authenticate first.')
      }
      return { did: caller.did, tenant: tenantOf(request, caller, caller.did) }
    },
    async auditor(request) {
      declared(request, 'reader')
      const caller = await identify(request)
      return { did: caller.did, tenant: tenantOf(request, caller, caller.did) }
    },
    async publisher(request, agentId) {
      declared(request, 'agent')
      const caller = await identify(request)
      if (options.requireBearer && caller.did !== agentId) {
        throw new RegistryError('not_authorized', 'Publishing needs a bearer token issued to the agent_id.')
      }
      // The binding that applies is the signer's: a publish that does not verify as agentId stores nothing, and
      // unless the credential already proved agentId (or no agent is bound at all), a refusal waits for the
      // signature (WriteTenant).
      const resolve = () => tenantOf(request, caller, agentId)
      const proven = caller.did === agentId || !tenancy.hasBindings
      return { did: caller.did, tenant: proven ? { tenant: resolve() } : holdRefusal(resolve) }
    },
    async lifecycleActor(request) {
      declared(request, 'agent')
      const caller = await identify(request)
      if (caller.did !== null || !tenancy.hasBindings) {
        const tenant = tenantOf(request, caller, caller.did)
        return { did: caller.did, tenant, settled: true, tenantOf: () => tenant }
      }
      const before = holdRefusal(() => tenantOf(request, caller, null))
      return { did: null, tenant: before.tenant, settled: false, tenantOf: (actor) => tenantOf(request, caller, actor) }
    },
    adminTenant(request) {
      declared(request, 'admin')
      return tenantOfRequest(tenancy, request, { agentDid: null, admin: true })
    },
  }
}

/**
 * The scopes serve only routes that declared they identify their caller this way (`config.auth`,
 * core/http/route-auth.ts): a route that resolves a caller while declaring `public` is a wiring bug, refused
 * loudly rather than served.
 */
function declared(request: RequestHead, kind: RouteAuth): void {
  const actual = routeAuthOf(request)
  if (actual !== kind) {
    throw new TypeError(`route ${request.routeOptions.url ?? ''} declares auth ${String(actual)}, not ${kind}`)
  }
}

/** `Cache-Control` by visibility (RFC-ACDP-0004 §6): never `public` on a non-public body. */
export function cacheControlFor(visibility: string, form: 'body' | 'envelope'): string {
  if (visibility !== 'public') return 'private, no-store'
  return form === 'body' ? 'public, max-age=31536000, immutable' : 'public, max-age=60'
}
