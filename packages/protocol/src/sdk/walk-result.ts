/**
 * What a `derived_from` walk returns (walk-derived-from.ts). The complete and the truncated result have different
 * shapes on purpose: a caller must not be able to take a bounded walk for an exhausted graph (RFC-ACDP-0006 §4.1
 * "Partial-walk reporting", fixture fed-010).
 */
import type { VerificationReport } from './verify-context.js'
import type { WalkControl } from './walk-controls.js'

/**
 * A fetched context whose body verified (the producer's signed content). `verification.ok` is false when only
 * registry-evidence stages failed (receipt, log inclusion, cosignatures, lifecycle events): the body stands, the
 * registry's attestation of it does not (RFC-ACDP-0010 §8); the caller decides what that is worth.
 */
export interface WalkedNode {
  ctxId: string
  /** `derived_from` hops from the root (root 0). */
  depth: number
  authority: string
  /** The context whose `derived_from` led here first (`null` for the root). */
  referencedBy: string | null
  envelope: Record<string, unknown> & { body: Record<string, unknown> }
  verification: VerificationReport
}

/**
 * A reference that could not be used (§5): `unresolvable` (404 — not "never existed" —, transport failure,
 * unusable registry) or `untrustworthy` (the body failed verification; it is never used as evidence).
 */
export interface WalkFailure {
  ctxId: string
  depth: number
  referencedBy: string | null
  outcome: 'unresolvable' | 'untrustworthy'
  reason: string
  detail: string
  verification?: VerificationReport
}

/** Where a control cut the walk: the context whose `derived_from` entries were not followed. */
export interface WalkTruncation {
  control: Extract<WalkControl, 'max_depth' | 'max_fanout_per_context'>
  ctxId: string
  depth: number
  unwalked: string[]
}

/** A walk that exhausted the graph: every reachable reference was fetched. */
export interface CompleteWalk {
  complete: true
  nodes: WalkedNode[]
  failures: WalkFailure[]
}

/** A walk a control cut short: the nodes are NOT the whole evidence set (§4.1 "Partial-walk reporting"). */
export interface TruncatedWalk {
  complete: false
  /** The first control that fired. */
  truncatedBy: WalkTruncation['control']
  truncations: WalkTruncation[]
  nodes: WalkedNode[]
  failures: WalkFailure[]
  /** ctx_ids whose subtrees were not walked (each once, in the order the walk met them). */
  unwalkedFrontier: string[]
}

export type WalkResult = CompleteWalk | TruncatedWalk
