/**
 * Who may retrieve a context (RFC-ACDP-0002 §7, RFC-ACDP-0004 §2.3, RFC-ACDP-0008 §4.5). Audience matching is
 * opaque string equality with the authenticated requester DID; `contributors` never grant access; an anonymous
 * requester has empty audience membership. Callers turn a denial into `not_found`, never a distinct answer.
 */

export interface VisibilityFacts {
  visibility: 'public' | 'restricted' | 'private'
  agentId: string
  audience: readonly string[]
}

/** True when `requesterDid` (null = anonymous) may retrieve the context. */
export function canRetrieve(context: VisibilityFacts, requesterDid: string | null): boolean {
  if (context.visibility === 'public') return true
  if (requesterDid === null) return false
  return requesterDid === context.agentId || context.audience.includes(requesterDid)
}
