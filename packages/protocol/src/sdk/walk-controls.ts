/**
 * The four traversal controls of a `derived_from` walk (RFC-ACDP-0006 §4.1 step 7, the control table), their
 * RECOMMENDED defaults, and the typed error a walk aborts with. The controls are joined by AND: each one bounds
 * its own axis, so a depth cap never excuses a missing node cap.
 */
import { ProtocolError } from '../errors.js'

/** Names of the controls as a truncation marker or an abort reason reports them. */
export type WalkControl = 'max_depth' | 'max_total_nodes' | 'max_fanout_per_context' | 'total_walk_timeout'

/** Why a walk was aborted as a whole (`details.reason` of the `cross_registry_resolution_failed` error). */
export type WalkAbortReason = Exclude<WalkControl, 'max_depth'> | 'cycle' | 'aborted'

/** The configurable limits. Every member optional; absent ones take {@link WALK_DEFAULTS}. */
export interface WalkControls {
  /** Hops below the root that are fetched (the root is depth 0). Overrun: partial result. */
  maxDepth?: number
  /** Contexts fetched in one walk, root included. Overrun: abort. */
  maxTotalNodes?: number
  /** `derived_from` entries followed per context. Overrun: abort, or partial when the caller opts in. */
  maxFanoutPerContext?: number
  /** End-to-end budget of the whole walk in milliseconds (not per fetch). Overrun: abort. */
  totalWalkTimeoutMs?: number
}

/** RFC-ACDP-0006 §4.1 RECOMMENDED defaults. */
export const WALK_DEFAULTS: Readonly<Required<WalkControls>> = Object.freeze({
  maxDepth: 10,
  maxTotalNodes: 500,
  maxFanoutPerContext: 100,
  totalWalkTimeoutMs: 30_000,
})

/**
 * Fills in the defaults and checks the caller's values.
 *
 * @throws TypeError for a value that is not a positive integer (a depth of 0 is allowed: root only).
 */
export function resolveWalkControls(controls: WalkControls = {}): Required<WalkControls> {
  const resolved = { ...WALK_DEFAULTS, ...definedOnly(controls) }
  for (const [name, value] of Object.entries(resolved)) {
    const min = name === 'maxDepth' ? 0 : 1
    if (!Number.isSafeInteger(value) || value < min) {
      throw new TypeError(`walk control ${name} must be an integer >= ${min}, got ${String(value)}`)
    }
  }
  return resolved
}

/** The typed abort of a whole walk. */
export function walkAborted(
  reason: WalkAbortReason,
  message: string,
  details: Record<string, unknown> = {},
): ProtocolError {
  return new ProtocolError('cross_registry_resolution_failed', message, { details: { reason, ...details } })
}

function definedOnly(controls: WalkControls): WalkControls {
  return Object.fromEntries(Object.entries(controls).filter(([, value]) => value !== undefined)) as WalkControls
}
