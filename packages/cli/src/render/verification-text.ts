/**
 * The stage lines of a verification report as `acdp get --verify` prints them: one line per stage with its state
 * (`ok` verified, `FAIL` failed, `not available`, `not checked`) and the reason, so a stage that did not run is
 * on screen with why, never left out.
 */
import type { StageState, VerificationStage } from '@acdp/protocol'

const LABELS: Record<StageState, string> = {
  verified: 'ok',
  failed: 'FAIL',
  not_available: 'not available',
  not_checked: 'not checked',
}
const LABEL_WIDTH = Math.max(...Object.values(LABELS).map((label) => label.length))

export function renderStageLines(stages: readonly VerificationStage[]): string[] {
  const width = Math.max(0, ...stages.map((stage) => stage.name.length))
  return stages.map(
    (stage) => `${LABELS[stage.state].padEnd(LABEL_WIDTH)}  ${stage.name.padEnd(width)}  ${stage.reason}`,
  )
}
