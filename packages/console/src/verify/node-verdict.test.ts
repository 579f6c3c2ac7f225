import { describe, expect, it } from 'vitest'
import type { Inspection, InspectionItem, Mark } from './inspect-context.js'
import { nodeVerdict, verdictCount } from './node-verdict.js'

const inspection = (marks: Partial<Record<InspectionItem['subject'], Mark>>): Inspection => ({
  items: (['body', 'signature', 'registry_receipt', 'log_inclusion', 'witness_signatures'] as const).map((subject) => ({
    subject,
    label: subject,
    mark: marks[subject] ?? 'not_available',
    detail: '',
  })),
  report: undefined,
})

describe('nodeVerdict', () => {
  it('is verified when body and signature verify, whatever evidence the registry does not offer', () => {
    expect(nodeVerdict(inspection({ body: 'verified', signature: 'verified' }))).toBe('verified')
    expect(nodeVerdict(inspection({ body: 'verified', signature: 'verified', registry_receipt: 'verified' }))).toBe(
      'verified',
    )
  })

  it('is failed when any check failed', () => {
    expect(nodeVerdict(inspection({ body: 'failed', signature: 'not_checked' }))).toBe('failed')
    expect(nodeVerdict(inspection({ body: 'verified', signature: 'verified', registry_receipt: 'failed' }))).toBe(
      'failed',
    )
  })

  it('is failed when a report stage failed even if the summary rows did not', () => {
    const base = inspection({ body: 'verified', signature: 'verified' })
    const report = { stages: [{ name: 'data_ref[0]', state: 'failed', reason: 'hash' }] }
    expect(nodeVerdict({ ...base, report: report as unknown as Inspection['report'] })).toBe('failed')
  })

  it('is unavailable when the context could not be had or its signature not checked here', () => {
    expect(nodeVerdict(undefined)).toBe('unavailable')
    expect(nodeVerdict(inspection({ body: 'verified', signature: 'not_available' }))).toBe('unavailable')
  })

  it('counts verdicts', () => {
    expect(verdictCount(['verified', 'failed', 'verified', 'unavailable'])).toEqual({
      verified: 2,
      failed: 1,
      unavailable: 1,
    })
  })
})
