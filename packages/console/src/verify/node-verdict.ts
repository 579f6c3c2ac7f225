/**
 * One node's verdict for "Verify this run", from the same inspection the inspector shows: `failed` when any check
 * failed (a tampered body, a bad signature or receipt…), `verified` when the body and the producer's signature
 * verified and nothing failed, `unavailable` when the context could not be retrieved or its signature could not be
 * checked from the browser. Evidence a registry does not offer (no receipt, no log) is not a failure.
 */
import type { Inspection } from './inspect-context.js'

export type NodeVerdict = 'verified' | 'failed' | 'unavailable'

/** A node's verdict as the DAG shows it. */
export interface NodeResult {
  verdict: NodeVerdict
  /** The body's title, shown only when the context verified. */
  title?: string
  detail: string
}

export function nodeVerdict(inspection: Inspection | undefined): NodeVerdict {
  if (inspection === undefined) return 'unavailable'
  if (inspection.items.some((item) => item.mark === 'failed')) return 'failed'
  if ((inspection.report?.stages ?? []).some((stage) => stage.state === 'failed')) return 'failed'
  const mark = (subject: string) => inspection.items.find((item) => item.subject === subject)?.mark
  return mark('body') === 'verified' && mark('signature') === 'verified' ? 'verified' : 'unavailable'
}

export const VERDICT_SYMBOL: Record<NodeVerdict, string> = { verified: '✓', failed: '✗', unavailable: '–' }

/** "3 verified · 1 failed · 0 unavailable of 4". */
export function verdictCount(verdicts: Iterable<NodeVerdict>): Record<NodeVerdict, number> {
  const count: Record<NodeVerdict, number> = { verified: 0, failed: 0, unavailable: 0 }
  for (const verdict of verdicts) count[verdict]++
  return count
}
