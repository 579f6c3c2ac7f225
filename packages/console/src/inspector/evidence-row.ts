/**
 * One evidence stage of the verification report as its own row, in the four states the CLI prints (`acdp get
 * --verify`) with the stage's reason. A stage the report does not carry is `not available` with why: the
 * protocol reports `lineage_head_receipt` only when the registry served one with the retrieval (RFC-ACDP-0011 §7),
 * so `fallback` may stand in for it — the lineage's own head receipt, checked by the lineage explorer's code.
 */
import type { VerificationReport } from '@acdp/protocol/verify'
import type { Mark } from '../verify/inspect-context.js'

export interface EvidenceRow {
  stage: string
  mark: Mark
  detail: string
}

const ABSENT: Record<string, string> = {
  lineage_head_receipt: 'the registry attached no lineage head receipt to this retrieval',
  key_revocation: 'the verification did not reach the key revocation stage',
}

/**
 * `fallback` stands in for a stage the report lacks; `note` (how the stage's input was found, e.g. the revocation
 * lookup's count) follows the stage's reason.
 */
export function evidenceRow(
  report: VerificationReport | undefined,
  stage: 'lineage_head_receipt' | 'key_revocation',
  { fallback, note }: { fallback?: { mark: Mark; detail: string } | undefined; note?: string | undefined } = {},
): EvidenceRow {
  const found = report?.stages.find((candidate) => candidate.name === stage)
  if (found !== undefined) {
    return { stage, mark: found.state, detail: note === undefined ? found.reason : `${found.reason}; ${note}` }
  }
  const absent = report === undefined ? 'the context was not verified' : (ABSENT[stage] ?? 'not in the report')
  if (fallback !== undefined)
    return { stage, mark: fallback.mark, detail: `${absent}; the lineage's current head: ${fallback.detail}` }
  return { stage, mark: 'not_available', detail: absent }
}
