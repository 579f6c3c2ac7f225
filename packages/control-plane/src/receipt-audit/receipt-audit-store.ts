/**
 * Persistence of the receipt audit over Kysely, both dialects (migration 0800).
 *
 * Concurrency contract (several instances on one PostgreSQL): one sweep at a time. The single cursor row carries
 * a lease taken by one conditional UPDATE; every write of a sweep's outcome is a transaction whose first statement
 * moves the cursor `WHERE lease_owner = <token>`, and writes nothing when the lease was lost (expired and taken by
 * another instance, which then audits the same events itself). Verdict rows are upserts keyed by the event, so a
 * re-audit replaces, never duplicates.
 *
 * A discrepancy is announced like a witness alert: a `receipt_audit_discrepancy` row in `context_events` (the
 * events list, the SSE replay history) committed with the verdict, handed to `onEvent` inside the transaction (the
 * webhook outbox) and returned for the bus.
 */
import type { DatabaseKind } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'
import type { StoredEvent } from '../store/schema.js'
import type { StoreTransaction } from '../store/store.js'
import type { ReceiptAuditTables } from './receipt-audit-schema.js'
import { type AuditSummary, readAuditSummary } from './receipt-audit-summary.js'

/** The verdicts, as stored and served. */
export const RECEIPT_VERDICTS = [
  'verified',
  'verified_historical',
  'structural',
  'discrepancy',
  'no_receipt',
  'error',
] as const
export type ReceiptVerdict = (typeof RECEIPT_VERDICTS)[number]

/** The event type announcing a discrepancy (events list, SSE, outbound webhooks). */
export const RECEIPT_DISCREPANCY_EVENT = 'receipt_audit_discrepancy'

const CURSOR = 'main'

/** A publication the sweep audits. */
export interface AuditCandidate {
  eventSeq: number
  tenantId: string
  runId: string | null
  ctxId: string
  eventId: string | null
  registryAuthority: string
  /** The webhook body as ingested (its `registry_receipt`, when it carried one, is compared with the served one). */
  rawPayload: string
  /** Attempts already made (0 for a first audit). */
  attempts: number
}

/** A verdict to record. */
export interface AuditOutcome {
  candidate: AuditCandidate
  verdict: ReceiptVerdict
  discrepancies: readonly string[]
  detail: string | null
  /** `error` only: when to try again; undefined = final. */
  retryAt: number | undefined
}

/** A stored verdict as the API serves it. */
export interface AuditRecord {
  eventSeq: number
  tenantId: string
  runId: string | null
  ctxId: string
  eventId: string | null
  registryAuthority: string
  verdict: ReceiptVerdict
  discrepancies: string[]
  detail: string | null
  attempts: number
  auditedAt: number
  acknowledgedAt: number | null
  acknowledgedBy: string | null
}

/** Per-run counts (the `trust` member of GET /runs/:id). */
export interface RunTrustCounts {
  audited: number
  verified: number
  verifiedHistorical: number
  structural: number
  noReceipt: number
  discrepancies: number
  errors: number
}

export interface ReceiptAuditStore {
  /** Takes (or renews) the sweep lease; the cursor position when held, undefined when another instance holds it. */
  claim(input: { owner: string; now: number; leaseMs: number }): Promise<number | undefined>
  /** Releases the lease if still ours. */
  release(owner: string): Promise<void>
  /**
   * Publications after `afterSeq` in store order (at most `limit` rows read), cut before the first one received
   * after `settledBefore`: a younger event may still have a lower-id neighbour in an uncommitted transaction
   * (PostgreSQL takes ids before commit), so the cursor never passes an event that may not be visible yet.
   * `scannedTo` is how far the cursor may move.
   */
  nextPublications(input: {
    afterSeq: number
    settledBefore: number
    limit: number
  }): Promise<{ candidates: AuditCandidate[]; scannedTo: number }>
  /** `error` verdicts whose retry time has come (oldest first). */
  dueRetries(input: { now: number; limit: number }): Promise<AuditCandidate[]>
  /**
   * Records outcomes and moves the cursor to `cursorTo` in one transaction, iff the lease is still `owner`'s.
   * Returns the announcing events of new discrepancies (publish them after the commit), or undefined when the lease
   * was lost (nothing written).
   */
  record(input: {
    owner: string
    now: number
    cursorTo: number | undefined
    outcomes: readonly AuditOutcome[]
    onEvent?: (tx: StoreTransaction, event: StoredEvent) => Promise<void>
  }): Promise<StoredEvent[] | undefined>
  /** The run's verdict counts and its flagged (discrepancy) events, newest first, at most `flaggedLimit`. */
  runTrust(
    tenantId: string,
    runId: string,
    flaggedLimit: number,
  ): Promise<{ counts: RunTrustCounts; flagged: AuditRecord[] }>
  /** Verdict rows of a tenant, newest first, filtered; `beforeSeq` pages backwards. */
  list(
    tenantId: string,
    filter: {
      verdict?: ReceiptVerdict | undefined
      authority?: string | undefined
      runId?: string | undefined
      acknowledged?: boolean | undefined
      beforeSeq?: number | undefined
      limit: number
    },
  ): Promise<AuditRecord[]>
  /** Acknowledges a discrepancy (the first acknowledgement is kept); undefined when there is no such discrepancy. */
  acknowledge(tenantId: string, eventSeq: number, by: string, now: number): Promise<AuditRecord | undefined>
  /** Totals per registry and for the `runLimit` most recently audited runs (receipt-audit-summary.ts). */
  summary(tenantId: string, runLimit: number): Promise<AuditSummary>
}

type Db = Kysely<ReceiptAuditTables>

/** Verdict rows per upsert statement (14 parameters each). */
const UPSERT_CHUNK = 500

export function createReceiptAuditStore<T>(database: { db: Kysely<T>; kind: DatabaseKind }): ReceiptAuditStore {
  const db = database.db as unknown as Db

  const candidateColumns = [
    'context_events.id as event_seq',
    'context_events.tenant_id as tenant_id',
    'context_events.run_id as run_id',
    'context_events.ctx_id as ctx_id',
    'context_events.event_id as event_id',
    'context_events.registry_authority as registry_authority',
    'context_events.raw_payload as raw_payload',
  ] as const

  return {
    async claim({ owner, now, leaseMs }) {
      await db
        .insertInto('receipt_audit_cursor')
        .values({ name: CURSOR, last_event_seq: 0, lease_owner: null, lease_until: 0, updated_at: now })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute()
      const result = await db
        .updateTable('receipt_audit_cursor')
        .set({ lease_owner: owner, lease_until: now + leaseMs, updated_at: now })
        .where('name', '=', CURSOR)
        .where((eb) =>
          eb.or([eb('lease_owner', 'is', null), eb('lease_until', '<=', now), eb('lease_owner', '=', owner)]),
        )
        .executeTakeFirst()
      if (Number(result.numUpdatedRows) !== 1) return undefined
      const row = await db
        .selectFrom('receipt_audit_cursor')
        .select('last_event_seq')
        .where('name', '=', CURSOR)
        .executeTakeFirstOrThrow()
      return Number(row.last_event_seq)
    },

    async release(owner) {
      await db
        .updateTable('receipt_audit_cursor')
        .set({ lease_owner: null, lease_until: 0 })
        .where('name', '=', CURSOR)
        .where('lease_owner', '=', owner)
        .execute()
    },

    async nextPublications({ afterSeq, settledBefore, limit }) {
      const rows = await db
        .selectFrom('context_events')
        .select([...candidateColumns, 'context_events.received_at as received_at', 'context_events.event_type'])
        .where('context_events.id', '>', afterSeq)
        .orderBy('context_events.id')
        .limit(limit)
        .execute()
      const candidates: AuditCandidate[] = []
      let scannedTo = afterSeq
      for (const row of rows) {
        if (Number(row.received_at) > settledBefore) break
        scannedTo = Number(row.event_seq)
        if (row.event_type !== 'context_published' || row.ctx_id === null) continue
        candidates.push(toCandidate(row, 0))
      }
      return { candidates, scannedTo }
    },

    async dueRetries({ now, limit }) {
      const rows = await db
        .selectFrom('receipt_audits')
        .innerJoin('context_events', 'context_events.id', 'receipt_audits.event_seq')
        .select([...candidateColumns, 'receipt_audits.attempts as attempts'])
        .where('receipt_audits.retry_at', '<=', now)
        .orderBy('receipt_audits.retry_at')
        .limit(limit)
        .execute()
      return rows.filter((row) => row.ctx_id !== null).map((row) => toCandidate(row, Number(row.attempts)))
    },

    async record({ owner, now, cursorTo, outcomes, onEvent }) {
      return db.transaction().execute(async (tx) => {
        // The lease check is the transaction's first statement: a lost lease writes nothing.
        const held = await tx
          .updateTable('receipt_audit_cursor')
          .set(cursorTo === undefined ? { updated_at: now } : { last_event_seq: cursorTo, updated_at: now })
          .where('name', '=', CURSOR)
          .where('lease_owner', '=', owner)
          .executeTakeFirst()
        if (Number(held.numUpdatedRows) !== 1) return undefined
        if (outcomes.length === 0) return []
        // Verdicts are written in set statements (not two per outcome): a round of 100 publications was 200
        // round trips inside this transaction. Previous verdicts are read only when a discrepancy may be new.
        const hasDiscrepancy = outcomes.some((outcome) => outcome.verdict === 'discrepancy')
        const previous = new Map<number, string>()
        if (hasDiscrepancy) {
          const rows = await tx
            .selectFrom('receipt_audits')
            .select(['event_seq', 'verdict'])
            .where(
              'event_seq',
              'in',
              outcomes.map((outcome) => outcome.candidate.eventSeq),
            )
            .execute()
          for (const row of rows) previous.set(Number(row.event_seq), row.verdict)
        }
        // One row per audited event: a later outcome for the same event replaces an earlier one, as it would
        // written one after the other (a multi-row upsert may not touch a row twice).
        const latest = new Map<number, AuditOutcome>()
        for (const outcome of outcomes) latest.set(outcome.candidate.eventSeq, outcome)
        const rows = [...latest.values()].map(({ candidate, verdict, discrepancies, detail, retryAt }) => ({
          event_seq: candidate.eventSeq,
          tenant_id: candidate.tenantId,
          run_id: candidate.runId,
          ctx_id: candidate.ctxId,
          event_id: candidate.eventId,
          registry_authority: candidate.registryAuthority,
          verdict,
          discrepancies: JSON.stringify(discrepancies),
          detail,
          attempts: candidate.attempts + 1,
          audited_at: now,
          retry_at: retryAt ?? null,
          acknowledged_at: null,
          acknowledged_by: null,
        }))
        // Sorted by event: concurrent writers lock rows in one order. Chunks stay far below parameter limits.
        rows.sort((a, b) => a.event_seq - b.event_seq)
        for (let start = 0; start < rows.length; start += UPSERT_CHUNK) {
          await tx
            .insertInto('receipt_audits')
            .values(rows.slice(start, start + UPSERT_CHUNK))
            .onConflict((conflict) =>
              conflict.column('event_seq').doUpdateSet((eb) => ({
                verdict: eb.ref('excluded.verdict'),
                discrepancies: eb.ref('excluded.discrepancies'),
                detail: eb.ref('excluded.detail'),
                attempts: eb.ref('excluded.attempts'),
                audited_at: eb.ref('excluded.audited_at'),
                retry_at: eb.ref('excluded.retry_at'),
              })),
            )
            .execute()
        }
        const announced: StoredEvent[] = []
        for (const outcome of latest.values()) {
          if (outcome.verdict !== 'discrepancy' || previous.get(outcome.candidate.eventSeq) === 'discrepancy') continue
          const event = await insertDiscrepancyEvent(tx, outcome, now)
          if (event !== undefined) {
            await onEvent?.(tx as unknown as StoreTransaction, event)
            announced.push(event)
          }
        }
        return announced
      })
    },

    async runTrust(tenantId, runId, flaggedLimit) {
      const [groups, flagged] = await Promise.all([
        db
          .selectFrom('receipt_audits')
          .select(['verdict', sql<number>`count(*)`.as('n')])
          .where('tenant_id', '=', tenantId)
          .where('run_id', '=', runId)
          .groupBy('verdict')
          .execute(),
        db
          .selectFrom('receipt_audits')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('run_id', '=', runId)
          .where('verdict', '=', 'discrepancy')
          .orderBy('event_seq', 'desc')
          .limit(flaggedLimit)
          .execute(),
      ])
      const count = (verdict: ReceiptVerdict) => Number(groups.find((g) => g.verdict === verdict)?.n ?? 0)
      const counts: RunTrustCounts = {
        audited: groups.reduce((sum, g) => sum + Number(g.n), 0),
        verified: count('verified'),
        verifiedHistorical: count('verified_historical'),
        structural: count('structural'),
        noReceipt: count('no_receipt'),
        discrepancies: count('discrepancy'),
        errors: count('error'),
      }
      return { counts, flagged: flagged.map(toRecord) }
    },

    async list(tenantId, filter) {
      let query = db.selectFrom('receipt_audits').selectAll().where('tenant_id', '=', tenantId)
      if (filter.verdict !== undefined) query = query.where('verdict', '=', filter.verdict)
      if (filter.authority !== undefined) query = query.where('registry_authority', '=', filter.authority)
      if (filter.runId !== undefined) query = query.where('run_id', '=', filter.runId)
      if (filter.acknowledged === true) query = query.where('acknowledged_at', 'is not', null)
      if (filter.acknowledged === false) query = query.where('acknowledged_at', 'is', null)
      if (filter.beforeSeq !== undefined) query = query.where('event_seq', '<', filter.beforeSeq)
      const rows = await query.orderBy('event_seq', 'desc').limit(filter.limit).execute()
      return rows.map(toRecord)
    },

    async acknowledge(tenantId, eventSeq, by, now) {
      await db
        .updateTable('receipt_audits')
        .set({ acknowledged_at: now, acknowledged_by: by })
        .where('tenant_id', '=', tenantId)
        .where('event_seq', '=', eventSeq)
        .where('verdict', '=', 'discrepancy')
        .where('acknowledged_at', 'is', null)
        .execute()
      const row = await db
        .selectFrom('receipt_audits')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('event_seq', '=', eventSeq)
        .where('verdict', '=', 'discrepancy')
        .executeTakeFirst()
      return row === undefined ? undefined : toRecord(row)
    },

    summary(tenantId, runLimit) {
      return readAuditSummary(db, tenantId, runLimit)
    },
  }
}

/** Writes the announcing event row of a new discrepancy; its committed form, or undefined when already announced. */
async function insertDiscrepancyEvent(tx: Db, outcome: AuditOutcome, now: number): Promise<StoredEvent | undefined> {
  const { candidate } = outcome
  const payload = {
    type: RECEIPT_DISCREPANCY_EVENT,
    audited_event_id: String(candidate.eventSeq),
    ctx_id: candidate.ctxId,
    registry_authority: candidate.registryAuthority,
    discrepancies: [...outcome.discrepancies],
    ...(outcome.detail !== null ? { detail: outcome.detail } : {}),
  }
  const row = await tx
    .insertInto('context_events')
    .values({
      tenant_id: candidate.tenantId,
      dedup_key: `receipt-audit:${candidate.eventSeq}`,
      event_id: null,
      event_type: RECEIPT_DISCREPANCY_EVENT,
      event_ts: now,
      received_at: now,
      run_id: candidate.runId,
      ctx_id: candidate.ctxId,
      lineage_id: null,
      agent_id: null,
      context_type: null,
      visibility: null,
      version: null,
      derived_from: '[]',
      registry_authority: candidate.registryAuthority,
      scenario_id: null,
      key_fingerprint: null,
      receipt_present: 0,
      raw_payload: JSON.stringify(payload),
    })
    .onConflict((conflict) => conflict.columns(['tenant_id', 'dedup_key']).doNothing())
    .returning('id')
    .executeTakeFirst()
  if (row === undefined) return undefined
  const ts = new Date(now).toISOString()
  return {
    id: Number(row.id),
    tenantId: candidate.tenantId,
    type: RECEIPT_DISCREPANCY_EVENT,
    ts,
    receivedAt: ts,
    eventId: null,
    runId: candidate.runId,
    ctxId: candidate.ctxId,
    lineageId: null,
    agentId: null,
    contextType: null,
    visibility: null,
    version: null,
    derivedFrom: [],
    registryAuthority: candidate.registryAuthority,
    scenarioId: null,
    keyFingerprint: null,
    receiptPresent: false,
    payload,
  }
}

function toCandidate(
  row: {
    event_seq: number
    tenant_id: string
    run_id: string | null
    ctx_id: string | null
    event_id: string | null
    registry_authority: string
    raw_payload: string
  },
  attempts: number,
): AuditCandidate {
  return {
    eventSeq: Number(row.event_seq),
    tenantId: row.tenant_id,
    runId: row.run_id,
    ctxId: row.ctx_id as string,
    eventId: row.event_id,
    registryAuthority: row.registry_authority,
    rawPayload: row.raw_payload,
    attempts,
  }
}

function toRecord(row: ReceiptAuditTables['receipt_audits']): AuditRecord {
  let discrepancies: string[] = []
  try {
    const parsed: unknown = JSON.parse(row.discrepancies)
    if (Array.isArray(parsed)) discrepancies = parsed.filter((d): d is string => typeof d === 'string')
  } catch {
    discrepancies = []
  }
  return {
    eventSeq: Number(row.event_seq),
    tenantId: row.tenant_id,
    runId: row.run_id,
    ctxId: row.ctx_id,
    eventId: row.event_id,
    registryAuthority: row.registry_authority,
    verdict: row.verdict as ReceiptVerdict,
    discrepancies,
    detail: row.detail,
    attempts: Number(row.attempts),
    auditedAt: Number(row.audited_at),
    acknowledgedAt: row.acknowledged_at === null ? null : Number(row.acknowledged_at),
    acknowledgedBy: row.acknowledged_by,
  }
}
