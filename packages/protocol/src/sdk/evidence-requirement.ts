/**
 * Evidence a consumer refuses to do without (`acdp get --verify --require receipt,log,witness=2`): a required
 * stage that is not available or not checked becomes `failed`, so a pipeline can turn "no receipt" into a
 * refusal instead of a partial verification it has to read.
 */
import type { VerificationStage } from './verification-stage.js'

/** What must be verified. `witnesses`: at least this many distinct witness cosignatures verify (≥ 1). */
export interface EvidenceRequirement {
  receipt?: boolean
  log?: boolean
  witnesses?: number
}

/**
 * Applies `requirement` to the stages: each required stage that did not run becomes failed, with the reason it
 * did not run; a verified witness stage with fewer than `witnesses` cosigners fails too.
 *
 * @param witnessCount distinct witnesses whose cosignatures verified (0 when the stage did not run).
 */
export function applyRequirement(
  stages: readonly VerificationStage[],
  requirement: EvidenceRequirement,
  witnessCount: number,
): VerificationStage[] {
  const required = new Map<string, string>()
  if (requirement.receipt) required.set('registry_receipt', 'receipt')
  if (requirement.log) required.set('log_inclusion', 'log')
  if (requirement.witnesses !== undefined) required.set('witness_signatures', `witness=${requirement.witnesses}`)
  const result = stages.map((stage) => {
    const flag = required.get(stage.name)
    if (flag === undefined || stage.state === 'failed') return stage
    if (stage.state !== 'verified') {
      return { name: stage.name, state: 'failed' as const, reason: `required (${flag}): ${stage.reason}` }
    }
    if (stage.name === 'witness_signatures' && witnessCount < (requirement.witnesses ?? 0)) {
      return {
        name: stage.name,
        state: 'failed' as const,
        reason: `required (${flag}): only ${witnessCount} witness(es) cosigned (${stage.reason})`,
      }
    }
    return stage
  })
  for (const [name, flag] of required) {
    if (!result.some((stage) => stage.name === name)) {
      result.push({ name, state: 'failed', reason: `required (${flag}): the stage was not reached` })
    }
  }
  return result
}
