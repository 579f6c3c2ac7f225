/** The lineage head receipt and key revocation rows from the report of a real signed context. */
import { describe, expect, it } from 'vitest'
import { inspectContext } from '../verify/inspect-context.js'
import { evidenceRow } from './evidence-row.js'
import { signedEnvelope } from '../../test/support/signed-envelope.js'

const envelope = (extra: Record<string, unknown> = {}) => signedEnvelope('evidence rows', { envelope: extra })

describe('evidenceRow', () => {
  it('reports the key revocation stage as the protocol does, with its reason', async () => {
    const { report } = await inspectContext(envelope())
    const stage = report!.stages.find((s) => s.name === 'key_revocation')
    expect(stage).toBeDefined()
    expect(evidenceRow(report, 'key_revocation')).toEqual({
      stage: 'key_revocation',
      mark: stage!.state,
      detail: stage!.reason,
    })
    expect(stage!.state).not.toBe('verified')
    expect(evidenceRow(report, 'key_revocation', { note: '0 verified key revocation(s)' }).detail).toBe(
      `${stage!.reason}; 0 verified key revocation(s)`,
    )
  })

  it('says a lineage head receipt the registry did not attach is not available, or shows the lineage head instead', async () => {
    const { report } = await inspectContext(envelope())
    expect(report!.stages.some((s) => s.name === 'lineage_head_receipt')).toBe(false)
    expect(evidenceRow(report, 'lineage_head_receipt')).toEqual({
      stage: 'lineage_head_receipt',
      mark: 'not_available',
      detail: 'the registry attached no lineage head receipt to this retrieval',
    })
    expect(
      evidenceRow(report, 'lineage_head_receipt', {
        fallback: { mark: 'verified', detail: 'signed by did:web:r as of t' },
      }),
    ).toEqual({
      stage: 'lineage_head_receipt',
      mark: 'verified',
      detail:
        "the registry attached no lineage head receipt to this retrieval; the lineage's current head: signed by did:web:r as of t",
    })
  })

  it('takes a served head receipt from the report: a forged one is not verified', async () => {
    const { report } = await inspectContext(envelope({ lineage_head_receipt: { head_version: 7 } }), {
      now: new Date(),
    })
    const row = evidenceRow(report, 'lineage_head_receipt', { fallback: { mark: 'verified', detail: 'ignored' } })
    expect(row.mark).not.toBe('verified')
    expect(row.detail).not.toContain('ignored')
  })

  it('says so when there is no report', () => {
    expect(evidenceRow(undefined, 'key_revocation')).toEqual({
      stage: 'key_revocation',
      mark: 'not_available',
      detail: 'the context was not verified',
    })
  })
})
