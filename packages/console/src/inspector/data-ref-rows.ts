/**
 * The body's DataRefs (RFC-ACDP-0002 §6; acdp-data-ref.schema.json) as the inspector lists them: where the data
 * is (the location URI, a structured locator's scheme, or embedded content), its role, format and size when the
 * producer gave them, and the `data_ref[i]` stage of the verification report — verified when the bytes hashed to
 * the declared `content_hash`. A location the browser may not fetch (verify/same-origin-data-refs.ts) is "not
 * available" with that reason, not a failure.
 */
import type { VerificationStage } from '@acdp/protocol/verify'
import type { Mark } from '../verify/inspect-context.js'
import { NOT_FETCHABLE } from '../verify/same-origin-data-refs.js'

export interface DataRefRow {
  index: number
  /** The location URI, `<scheme> locator`, or `embedded (<encoding>)`. */
  where: string
  role: string | null
  format: string | null
  sizeBytes: number | null
  contentHash: string | null
  mark: Mark
  detail: string
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

function where(ref: Record<string, unknown>): string {
  const location = ref['location']
  if (typeof location === 'string') return location
  if (typeof location === 'object' && location !== null) return `${String(record(location)['scheme'])} locator`
  if (ref['embedded'] !== undefined) return `embedded (${String(record(ref['embedded'])['encoding'])})`
  return 'no location'
}

export function dataRefRows(envelope: unknown, stages: readonly VerificationStage[] | undefined): DataRefRow[] {
  const refs = record(record(envelope)['body'])['data_refs']
  if (!Array.isArray(refs)) return []
  return refs.map((raw, index) => {
    const ref = record(raw)
    const size = ref['size_bytes']
    const stage = stages?.find((candidate) => candidate.name === `data_ref[${index}]`)
    const refused = stage?.state === 'failed' && stage.reason.includes(NOT_FETCHABLE)
    return {
      index,
      where: where(ref),
      role: text(ref['type']),
      format: text(ref['format']),
      sizeBytes: typeof size === 'number' && Number.isInteger(size) && size >= 0 ? size : null,
      contentHash: text(ref['content_hash']) ?? text(record(ref['embedded'])['content_hash']),
      mark: stage === undefined ? 'not_checked' : refused ? 'not_available' : stage.state,
      detail:
        stage === undefined
          ? 'the context was not verified'
          : refused
            ? // The refusal's own message, without the fetch-failure wrapping (…not fetched: code/reason (message)).
              (/\((.*)\)$/.exec(stage.reason)?.[1] ?? stage.reason)
            : stage.reason,
    }
  })
}
