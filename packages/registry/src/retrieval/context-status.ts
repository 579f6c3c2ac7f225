/**
 * Status derivation (RFC-ACDP-0004 §4, amended by RFC-ACDP-0013 §7.2): computed at read time from stored inputs,
 * never stored. Precedence retracted > superseded > expired > active. Retraction state only exists on registries
 * running the lifecycle profile (startup refuses stored lifecycle state otherwise), so nothing else gates it.
 */

export type ContextStatus = 'active' | 'superseded' | 'expired' | 'retracted'

/** `expired` only when now is strictly after `expires_at`; equality is still active. */
export function deriveStatus(
  inputs: { supersededBy: string | null; expiresAtMs: number | null; retracted: boolean },
  nowMs: number,
): ContextStatus {
  if (inputs.retracted) return 'retracted'
  if (inputs.supersededBy !== null) return 'superseded'
  if (inputs.expiresAtMs !== null && nowMs > inputs.expiresAtMs) return 'expired'
  return 'active'
}
