/** One evidence stage (inspector/evidence-row.ts) as a verdict row: the state in words and why. */
import type { EvidenceRow } from '../../inspector/evidence-row.js'
import { VerdictMark } from '../ui.js'

export function EvidenceStageRow({ row, label }: { row: EvidenceRow; label: string }) {
  return (
    <li data-evidence={row.stage} data-mark={row.mark}>
      <VerdictMark mark={row.mark} /> <strong>{label}</strong>
      <span class="detail">{row.detail}</span>
    </li>
  )
}
