/**
 * The four states a verification stage ends in, so a report never passes over a stage in silence: `verified`
 * (it ran and passed), `failed` (it ran and did not), `not_available` (nothing was served to check, e.g. the
 * registry attaches no receipt) and `not_checked` (there was something to check but this run did not, e.g. the
 * body failed first or the lookup was not asked for). Each carries the reason as a sentence.
 */

export type StageState = 'verified' | 'failed' | 'not_available' | 'not_checked'

/** One stage of a report. `reason` says what was verified, what failed, or why the stage did not run. */
export interface VerificationStage {
  name: string
  state: StageState
  reason: string
  /**
   * Whether the context and its registry's advertised profiles call for this stage (registry-profiles.ts). Set
   * on every stage of a {@link verifyContext} report; a stage not called for never makes the summary incomplete.
   */
  called_for?: boolean
}

/**
 * Report order of the known stages (RFC-ACDP-0001 §5.11 stage names); stages not listed (an application's
 * envelope checks, `data_ref[i]`) follow in the order they were added.
 */
const STAGE_ORDER = [
  'schema',
  'producer_content_hash',
  'key_binding',
  'did_resolution',
  'signature',
  'registry_receipt',
  'lineage_head_receipt',
  'log_inclusion',
  'witness_signatures',
  'historical_key',
  'key_revocation',
  'lifecycle_events',
]

/** Sorts stages into report order (stable for the unlisted ones). */
export function inReportOrder(stages: readonly VerificationStage[]): VerificationStage[] {
  const rank = (name: string) => {
    const index = STAGE_ORDER.indexOf(name)
    return index === -1 ? STAGE_ORDER.length : index
  }
  return [...stages].sort((left, right) => rank(left.name) - rank(right.name))
}

/** A stage that ran: `verified` when `ok`, else `failed`. */
export function ranStage(check: { name: string; ok: boolean; detail: string }): VerificationStage {
  return { name: check.name, state: check.ok ? 'verified' : 'failed', reason: check.detail }
}
