/**
 * `--require receipt,log,witness[=N]`: the evidence a verifying command refuses to do without. Parsed into the
 * SDK's EvidenceRequirement; anything else is a usage error (exit 2), so a typo never silently requires nothing.
 */
import type { EvidenceRequirement } from '@acdp/protocol'
import { usageError } from '../exit-codes.js'

/** Parses every `--require` value (repeatable, comma separated); undefined when none was given. */
export function parseRequireOption(values: readonly string[] | undefined): EvidenceRequirement | undefined {
  if (values === undefined || values.length === 0) return undefined
  const requirement: EvidenceRequirement = {}
  for (const item of values.flatMap((value) => value.split(','))) {
    const [name, count] = item.trim().split('=')
    if (name === 'receipt' && count === undefined) requirement.receipt = true
    else if (name === 'log' && count === undefined) requirement.log = true
    else if (name === 'witness' && (count === undefined || /^[1-9][0-9]{0,2}$/.test(count))) {
      requirement.witnesses = Math.max(requirement.witnesses ?? 0, count === undefined ? 1 : Number(count))
    } else {
      throw usageError(`--require takes receipt, log and witness[=N] (N from 1 to 999), got "${item}"`)
    }
  }
  return requirement
}
