/**
 * The one-line verdict of a report. It says "verified" only when every stage the context and its registry's
 * advertised profiles call for was verified; otherwise it names what failed or what is missing ("body and
 * signature verified; no registry receipt; no inclusion proof"), so a partial verification never reads as a
 * whole one. A stage marked `called_for: false` (evidence the registry never promised) is not missing.
 */
import type { RegistryProfiles } from './registry-profiles.js'
import type { VerificationStage } from './verification-stage.js'

const BODY = ['schema', 'producer_content_hash', 'key_binding']
const SIGNATURE = ['did_resolution', 'signature']

/** How a missing piece of registry evidence is named in the summary. */
const MISSING: Record<string, string> = {
  registry_receipt: 'no registry receipt',
  lineage_head_receipt: 'no lineage-head receipt',
  log_inclusion: 'no inclusion proof',
  witness_signatures: 'no witness cosignatures',
}

/**
 * @param profiles the registry's profiles as given to verifyContext: when they are not known the summary ends
 *   with that ("registry profiles unknown: …"), since every evidence stage was then taken as called for.
 */
export function summarizeStages(stages: readonly VerificationStage[], profiles?: RegistryProfiles): string {
  const unknown = profiles !== undefined && !profiles.known ? [`registry profiles unknown: ${profiles.reason}`] : []
  const failed = stages.filter((stage) => stage.state === 'failed').map((stage) => stage.name)
  if (failed.length > 0) return [`verification FAILED: ${failed.join(', ')}`, ...unknown].join('; ')
  if (stages.every((stage) => stage.state === 'verified' || stage.called_for === false)) {
    const verified = stages.filter((stage) => stage.state === 'verified').map((stage) => stage.name)
    const notCalledFor = stages.filter((stage) => stage.state !== 'verified').map((stage) => stage.name)
    const aside =
      notCalledFor.length === 0 ? '' : ` (not called for by the registry's profiles: ${notCalledFor.join(', ')})`
    return [`verified: ${verified.join(', ')}${aside}`, ...unknown].join('; ')
  }
  const isVerified = (name: string) => stages.some((stage) => stage.name === name && stage.state === 'verified')
  const groups: string[] = []
  if (BODY.every(isVerified)) groups.push('body')
  if (SIGNATURE.every(isVerified)) groups.push('signature')
  const grouped = new Set([
    ...(groups.includes('body') ? BODY : []),
    ...(groups.includes('signature') ? SIGNATURE : []),
  ])
  for (const stage of stages) if (stage.state === 'verified' && !grouped.has(stage.name)) groups.push(stage.name)
  const missing = missingStages(stages)
  const verified = groups.length === 0 ? 'nothing verified' : `${joinAnd(groups)} verified`
  return [verified, ...missing, ...unknown].join('; ')
}

function joinAnd(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

/**
 * What is missing from a report without a failure, one phrase per called-for stage not verified ("no inclusion
 * proof"); a stage marked `called_for: false` is not missing.
 */
export function missingStages(stages: readonly VerificationStage[]): string[] {
  return stages
    .filter((stage) => stage.called_for !== false)
    .filter((stage) => stage.state === 'not_available' || stage.state === 'not_checked')
    .map((stage) =>
      stage.state === 'not_available' && MISSING[stage.name] !== undefined
        ? (MISSING[stage.name] as string)
        : `${stage.name} ${stage.state === 'not_available' ? 'not available' : 'not checked'}`,
    )
}
