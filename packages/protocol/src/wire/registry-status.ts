/**
 * `registry_state.status` as a consumer must read it (RFC-ACDP-0004 §3, §4.1): an OPEN vocabulary. A value that
 * does not match `^[a-z][a-z0-9_]*$` (1–64 characters) is malformed registry state — a registry bug or a
 * man-in-the-middle — and MUST be rejected; a well-formed value this version does not define MUST be tolerated
 * (treated as `active` for functional decisions) and SHOULD be warned about, which is how `retracted` shipped
 * without breaking older consumers.
 */
import { STATUS_PATTERN } from './common.js'

/** The statuses RFC-ACDP-0004 §3 defines (`retracted` since 0.3.0, RFC-ACDP-0013 §7). */
export const KNOWN_REGISTRY_STATUSES = ['active', 'superseded', 'expired', 'retracted'] as const

const STATUS = new RegExp(STATUS_PATTERN)
const MAX_STATUS_LENGTH = 64

/** How a served status reads: defined by the RFCs, well-formed but unknown, or malformed (with why). */
export type RegistryStatusReading =
  { kind: 'known'; status: string } | { kind: 'unknown'; status: string } | { kind: 'malformed'; problem: string }

/**
 * Classifies a served `registry_state.status`.
 *
 * @param value attacker-controlled: whatever the registry put in `registry_state.status`.
 */
export function readRegistryStatus(value: unknown): RegistryStatusReading {
  if (typeof value !== 'string') return { kind: 'malformed', problem: 'registry_state.status is not a string' }
  if (value.length === 0 || value.length > MAX_STATUS_LENGTH || !STATUS.test(value)) {
    return {
      kind: 'malformed',
      problem: `registry_state.status ${JSON.stringify(value)} does not match ${STATUS_PATTERN} (1–${MAX_STATUS_LENGTH} characters, RFC-ACDP-0004 §4.1)`,
    }
  }
  return (KNOWN_REGISTRY_STATUSES as readonly string[]).includes(value)
    ? { kind: 'known', status: value }
    : { kind: 'unknown', status: value }
}

/** The warning for a well-formed status this version does not define (RFC-ACDP-0004 §4.1 "SHOULD log a warning"). */
export function unknownStatusWarning(status: string): string {
  return `registry_state.status "${status}" is not defined by this ACDP version; treated as active (RFC-ACDP-0004 §4.1)`
}
