/**
 * GET /receipt-audit/summary on every dialect: per-registry and per-run totals equal the verdicts recorded, open
 * discrepancies drop when acknowledged, runs are the most recently audited first, and the query is bounded.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { audit, ingest } from './support/receipt-audit-sweep.js'
import { publishedEvent, retrievedEvent } from './support/signed-delivery.js'
import { ADMIN_KEY, bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

async function summary(t: TestApp, query = '') {
  return t.app.inject({ method: 'GET', url: `/receipt-audit/summary${query}`, headers: bearer(USER_KEY) })
}

describe.each(testDatabaseTargets())('receipt-audit summary on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('totals each registry and each recently audited run from the recorded verdicts', async () => {
    t = await openTestApp(target)
    await ingest(t, publishedEvent({ run_id: 'r1' }))
    await ingest(t, publishedEvent({ run_id: 'r1' }))
    await ingest(t, publishedEvent({ run_id: 'r1' }))
    await ingest(t, publishedEvent({ run_id: 'r2' }))
    await ingest(t, publishedEvent({ run_id: 'r2', registry_authority: 'b.example', ctx_id: 'acdp://b.example/1' }))
    // A read is not a publication: it counts nowhere.
    await ingest(t, retrievedEvent({ run_id: 'r1' }))
    const candidates = await audit(t, ['verified', 'discrepancy', 'verified_historical', 'discrepancy', 'error'])
    // One publication held but not audited yet (published, not audited).
    await ingest(t, publishedEvent({ run_id: 'r2' }))

    const ack = await t.app.inject({
      method: 'POST',
      url: `/receipt-audit/verdicts/${candidates[1]!.eventSeq}/ack`,
      headers: bearer(ADMIN_KEY),
    })
    expect(ack.statusCode).toBe(200)

    const res = await summary(t)
    expect(res.statusCode).toBe(200)
    const zero = {
      verified: 0,
      verifiedHistorical: 0,
      structural: 0,
      noReceipt: 0,
      discrepancies: 0,
      errors: 0,
      // No log reconciliation nor witness here: no log evidence (receipt-audit-evidence.test.ts covers it).
      inLog: 0,
      underWitnessedHead: 0,
      fullyEvidenced: 0,
    }
    expect(res.json()).toEqual({
      registries: [
        { registryAuthority: 'b.example', published: 1, audited: 1, ...zero, errors: 1, openDiscrepancies: 0 },
        {
          registryAuthority: 'reg.example',
          published: 5,
          audited: 4,
          ...zero,
          verified: 1,
          verifiedHistorical: 1,
          discrepancies: 2,
          openDiscrepancies: 1,
        },
      ],
      // r2's latest audited publication is newer than r1's.
      runs: [
        { runId: 'r2', published: 3, audited: 2, ...zero, discrepancies: 1, errors: 1 },
        { runId: 'r1', published: 3, audited: 3, ...zero, verified: 1, verifiedHistorical: 1, discrepancies: 1 },
      ],
    })

    const one = await summary(t, '?runs=1')
    expect(one.json().runs.map((run: { runId: string }) => run.runId)).toEqual(['r2'])
    expect((await summary(t, '?runs=0')).json().runs).toEqual([])
  })

  it('answers empty totals for a tenant with nothing audited, and refuses an unbounded run count', async () => {
    t = await openTestApp(target)
    expect((await summary(t)).json()).toEqual({ registries: [], runs: [] })
    const refused = await summary(t, '?runs=101')
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
    expect((await summary(t, '?other=1')).statusCode).toBe(400)
    const anonymous = await t.app.inject({ method: 'GET', url: '/receipt-audit/summary' })
    expect(anonymous.statusCode).toBe(401)
  })
})
