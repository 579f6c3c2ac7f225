/**
 * The log evidence of GET /receipt-audit/summary on every dialect: a publication is `inLog` when the log
 * reconciliation recorded its leaf, `underWitnessedHead` only when that leaf lies below the witness's retained head
 * of the same log, and `fullyEvidenced` when, besides, its receipt verified and (quorum consumption on) the head met
 * the quorum. Another tenant's leaf never counts.
 */
import { testDatabaseTargets } from '@acdp/storage'
import type { Kysely } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogReconcileStore } from '../src/log-reconcile/log-reconcile-store.js'
import { audit, ingest } from './support/receipt-audit-sweep.js'
import { publishedEvent } from './support/signed-delivery.js'
import { bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const LOG = 'did:web:reg.example/log/1'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test writes the witness's rows directly
const dbOf = (t: TestApp) => t.deps.database.db as unknown as Kysely<any>

/** The witness's retained head of LOG at `treeSize`, with its evidence row's quorum verdict. */
async function witnessHead(t: TestApp, tenantId: string, treeSize: number, meetsQuorum: number | null) {
  const db = dbOf(t)
  await db.deleteFrom('log_witness_cursors').execute()
  await db.deleteFrom('log_witness_checkpoints').execute()
  const root = 'a'.repeat(64)
  await db
    .insertInto('log_witness_cursors')
    .values({
      authority: 'reg.example',
      tenant_id: tenantId,
      log_id: LOG,
      tree_size: treeSize,
      root_hash: root,
      head_checkpoint: '{}',
      consecutive_failures: 0,
      next_poll_at: 0,
      lease_until: 0,
      created_at: 0,
      updated_at: 0,
    })
    .execute()
  await db
    .insertInto('log_witness_checkpoints')
    .values({
      tenant_id: tenantId,
      authority: 'reg.example',
      log_id: LOG,
      tree_size: treeSize,
      root_hash: root,
      checkpoint_timestamp: 0,
      raw_checkpoint: '{}',
      consistency_ok: 1,
      witnessed_count: meetsQuorum === null ? null : meetsQuorum,
      meets_quorum: meetsQuorum,
      quorum_min: meetsQuorum === null ? null : 1,
      first_witnessed_at: 0,
      last_witnessed_at: 0,
    })
    .execute()
}

async function summary(t: TestApp) {
  const res = await t.app.inject({ method: 'GET', url: '/receipt-audit/summary', headers: bearer(USER_KEY) })
  expect(res.statusCode).toBe(200)
  return res.json() as {
    registries: Array<Record<string, unknown>>
    runs: Array<Record<string, unknown>>
  }
}

const evidence = (row: Record<string, unknown> | undefined) => ({
  published: row?.['published'],
  inLog: row?.['inLog'],
  underWitnessedHead: row?.['underWitnessedHead'],
  fullyEvidenced: row?.['fullyEvidenced'],
})

describe.each(testDatabaseTargets())('receipt-audit log evidence on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('counts matched leaves, leaves under the witnessed head and fully evidenced publications', async () => {
    t = await openTestApp(target)
    const bodies = Array.from({ length: 6 }, () => publishedEvent({ run_id: 'r1' }))
    for (const body of bodies) await ingest(t, body)
    await audit(t, ['verified', 'discrepancy', 'verified', 'verified', 'verified_historical', 'verified'])
    const ctx = bodies.map((body) => body['ctx_id'] as string)
    const tenantId = (await dbOf(t).selectFrom('context_events').select('tenant_id').executeTakeFirstOrThrow())
      .tenant_id as string

    // Nothing matched yet: no log evidence at all.
    expect(evidence((await summary(t)).runs[0])).toEqual({
      published: 6,
      inLog: 0,
      underWitnessedHead: 0,
      fullyEvidenced: 0,
    })

    const reconcile = createLogReconcileStore(t.deps.database)
    const now = t.deps.clock().getTime()
    await reconcile.recordLeafMatches({
      tenantId,
      authority: 'reg.example',
      now,
      matches: [
        { ctxId: ctx[0]!, logId: LOG, leafIndex: 0 }, // verified, under the head: fully evidenced
        { ctxId: ctx[1]!, logId: LOG, leafIndex: 1 }, // under the head, but a discrepancy
        { ctxId: ctx[2]!, logId: LOG, leafIndex: 3 }, // beyond the head (tree size 3): in the log only
        { ctxId: ctx[4]!, logId: LOG, leafIndex: 2 }, // verified under a retired key, under the head
        { ctxId: ctx[5]!, logId: 'did:web:reg.example/log/2', leafIndex: 0 }, // another log than the witnessed one
      ],
    })
    // A second leaf naming a matched ctx_id keeps the first; another tenant's leaf is not ours (ctx[3] unmatched).
    await reconcile.recordLeafMatches({
      tenantId,
      authority: 'reg.example',
      now,
      matches: [{ ctxId: ctx[1]!, logId: LOG, leafIndex: 9 }],
    })
    await reconcile.recordLeafMatches({
      tenantId: 'another-tenant',
      authority: 'reg.example',
      now,
      matches: [{ ctxId: ctx[3]!, logId: LOG, leafIndex: 1 }],
    })

    // Matched, but no witnessed head yet.
    expect(evidence((await summary(t)).runs[0])).toMatchObject({ inLog: 5, underWitnessedHead: 0, fullyEvidenced: 0 })

    // Quorum consumption off at the head's observation.
    await witnessHead(t, tenantId, 3, null)
    let body = await summary(t)
    expect(evidence(body.runs[0])).toEqual({ published: 6, inLog: 5, underWitnessedHead: 3, fullyEvidenced: 2 })
    expect(evidence(body.registries[0])).toEqual({
      published: 6,
      inLog: 5,
      underWitnessedHead: 3,
      fullyEvidenced: 2,
    })

    // Quorum on and not met: nothing is fully evidenced; met: the same two again.
    await witnessHead(t, tenantId, 3, 0)
    body = await summary(t)
    expect(evidence(body.runs[0])).toMatchObject({ underWitnessedHead: 3, fullyEvidenced: 0 })
    expect(evidence(body.registries[0])).toMatchObject({ underWitnessedHead: 3, fullyEvidenced: 0 })
    await witnessHead(t, tenantId, 3, 1)
    expect(evidence((await summary(t)).runs[0])).toMatchObject({ underWitnessedHead: 3, fullyEvidenced: 2 })

    // The head grows past leaf 3: ctx[2] is now under it (and verified).
    await witnessHead(t, tenantId, 4, 1)
    expect(evidence((await summary(t)).runs[0])).toMatchObject({ underWitnessedHead: 4, fullyEvidenced: 3 })

    // Another tenant's witness head of the same log does not cover our leaves.
    await witnessHead(t, 'another-tenant', 4, null)
    expect(evidence((await summary(t)).runs[0])).toMatchObject({ inLog: 5, underWitnessedHead: 0, fullyEvidenced: 0 })
  })
})
