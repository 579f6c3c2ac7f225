/**
 * RFC-ACDP-0014 §7 consumer semantics: placing a context signed by a revoked key relative to the compromise
 * boundary T, using only a receipt-attested publish time.
 */

/** §7 verdicts for a context whose signing key has a verified revocation. */
export type CompromiseBoundaryVerdict =
  | {
      readonly outcome: 'historically_authorized'
      readonly status: 'historically_authorized_pre_compromise_receipt_attested'
    }
  | { readonly outcome: 'fail_closed'; readonly reason: 'at_or_after_compromise' | 'publish_time_unverifiable' }

/** Input of {@link evaluateCompromiseBoundary}. */
export interface CompromiseBoundaryInput {
  /** The effective boundary T (`selectEffectiveCompromisedSince` across the revocation lineage). */
  readonly compromisedSince: string
  /**
   * `created_at` of a registry receipt verified per RFC-ACDP-0010 §8 (whose key binding attests the revoked
   * key) — or `undefined` when there is no verified receipt. NEVER the bare `body.created_at` (§7 step 1).
   */
  readonly receiptCreatedAt: string | undefined
}

/**
 * RFC-ACDP-0014 §7 steps 2–4 (fixture rev-002): strictly before T → historically authorized
 * (pre-compromise, receipt-attested); at or after T → fail closed, whatever the receipt and DID document
 * say; no verifiable publish time → fail closed under the strict profile. Times that do not parse are
 * unverifiable. The body signature itself must still verify (under the §10 historical rule) for success.
 */
export function evaluateCompromiseBoundary(input: CompromiseBoundaryInput): CompromiseBoundaryVerdict {
  const boundaryMs = Date.parse(input.compromisedSince)
  const publishedMs = input.receiptCreatedAt === undefined ? Number.NaN : Date.parse(input.receiptCreatedAt)
  if (!Number.isFinite(boundaryMs) || !Number.isFinite(publishedMs)) {
    return { outcome: 'fail_closed', reason: 'publish_time_unverifiable' }
  }
  if (publishedMs < boundaryMs) {
    return { outcome: 'historically_authorized', status: 'historically_authorized_pre_compromise_receipt_attested' }
  }
  return { outcome: 'fail_closed', reason: 'at_or_after_compromise' }
}

/**
 * RFC-ACDP-0014 §4: across a revocation lineage the EARLIEST `compromised_since` is effective, so a
 * supersession can widen but never quietly shrink the window. `undefined` for an empty list; values that do
 * not parse are ignored (the §4 shape check refuses them first).
 */
export function selectEffectiveCompromisedSince(compromisedSince: readonly string[]): string | undefined {
  let earliest: { value: string; ms: number } | undefined
  for (const value of compromisedSince) {
    const ms = Date.parse(value)
    if (Number.isFinite(ms) && (earliest === undefined || ms < earliest.ms)) earliest = { value, ms }
  }
  return earliest?.value
}
