/**
 * Status derivation (RFC-ACDP-0004 §4): computed at read time from stored inputs, never stored.
 * Precedence superseded > expired > active (`retracted` joins above both with the lifecycle profile).
 */

export type ContextStatus = 'active' | 'superseded' | 'expired'

/** `expired` only when now is strictly after `expires_at`; equality is still active. */
export function deriveStatus(
  inputs: { supersededBy: string | null; expiresAtMs: number | null },
  nowMs: number,
): ContextStatus {
  if (inputs.supersededBy !== null) return 'superseded'
  if (inputs.expiresAtMs !== null && nowMs > inputs.expiresAtMs) return 'expired'
  return 'active'
}
