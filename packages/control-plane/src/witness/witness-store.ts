/**
 * Persistence of the transparency-log witness over Kysely, both dialects (migration 0200).
 *
 * Concurrency contract (several instances on one PostgreSQL): a registry is polled only by the holder of its
 * cursor lease. `claimDueRegistries` takes leases in ONE statement (PostgreSQL: candidates selected `FOR UPDATE
 * SKIP LOCKED`, so instances take disjoint sets without waiting); every write of a poll's outcome is a
 * transaction whose first statement updates the cursor `WHERE lease_owner = <token>`, and does nothing else when
 * the lease was lost (expired and re-claimed). No session state is involved, so nothing can leak on a pooled
 * connection.
 *
 * Alerts and their fan-out commit together: the alert row, the stream event row (context_events, the SSE replay
 * history) and, through `onEvent`, the webhook outbox rows are one transaction.
 */
import type { DatabaseKind } from '@acdp/storage'
import { type Kysely, sql, type Transaction } from 'kysely'
import type { StoredEvent } from '../store/schema.js'
import type { StoreTransaction } from '../store/store.js'
import type { LogWitnessAlertsTable, LogWitnessCursorsTable, WitnessTables } from './witness-schema.js'
import { COSIGNER_STANDINGS, type CosignerStanding, MAX_STORED_COSIGNERS } from '../response-schemas/witness.js'

/** A registry whose poll lease this instance now holds. */
export interface ClaimedRegistry {
  authority: string
  tenantId: string
  baseUrl: string
  registryDid: string | null
  head: RetainedHead | undefined
  consecutiveFailures: number
  /** When the poll was due (the cursor's `next_poll_at` at claim time): the schedule's fixed-rate anchor. */
  dueAt: number
}

/** The retained head of a cursor. */
export interface RetainedHead {
  logId: string
  treeSize: number
  rootHash: string
  /** The signed checkpoint, verbatim JSON. */
  checkpoint: string
}

/** A cursor as read by the operator API. */
export interface CursorRecord {
  authority: string
  tenantId: string
  head: RetainedHead | undefined
  lastSuccessAt: number | null
  lastAttemptAt: number | null
  consecutiveFailures: number
  lastFailure: string | null
  nextPollAt: number
}

// The standings and the cap are part of the wire shape of GET /registries/:authority/log-witness.
export { COSIGNER_STANDINGS, type CosignerStanding, MAX_STORED_COSIGNERS }

/** One cosigner of a checkpoint: the witness its cosignature names (null when it names none), and its standing. */
export interface CosignerRecord {
  name: string | null
  standing: CosignerStanding
}

/** A witnessed checkpoint row. */
export interface WitnessedCheckpointRecord {
  logId: string
  treeSize: number
  rootHash: string
  checkpointTimestamp: number
  consistencyOk: boolean | null
  witnessedCount: number | null
  meetsQuorum: boolean | null
  /** Cosigners of the latest observation; null when it predates migration 0850 (not recorded). */
  cosigners: CosignerRecord[] | null
  /** The quorum minimum in force at the latest observation; null when quorum consumption was off. */
  quorumMin: number | null
  firstWitnessedAt: number
  lastWitnessedAt: number
}

/** An alert row. */
export interface AlertRecord {
  id: string
  tenantId: string
  authority: string
  reason: string
  /** Parsed evidence. */
  detail: Record<string, unknown>
  raisedAt: number
  lastSeenAt: number
  acknowledgedAt: number | null
  acknowledgedBy: string | null
  clearedAt: number | null
}

/** Settles the poll: releases the lease and schedules the next one. */
export interface PollSettlement {
  authority: string
  leaseOwner: string
  now: number
  nextPollAt: number
}

/** A checkpoint that passed every check, to retain as the new head. */
export interface WitnessedObservation extends PollSettlement {
  tenantId: string
  logId: string
  treeSize: number
  rootHash: string
  checkpointTimestamp: number
  rawCheckpoint: string
  /** null on the first observation of a log. */
  consistencyOk: boolean | null
  quorum: { witnessedCount: number; meetsQuorum: boolean; minWitnesses: number } | null
  /** Who cosigned it (bounded again on write to {@link MAX_STORED_COSIGNERS}). */
  cosigners: readonly CosignerRecord[]
  /** Our cosignature over it (verbatim JSON), when cosigning is on. */
  cosignature: { json: string; witnessedAt: number } | null
  checkpointsKept: number
  cosignaturesKeptPerLog: number
}

/** A detection to record (and announce when it is new). */
export interface AlertDetection {
  tenantId: string
  authority: string
  reason: string
  detail: Record<string, unknown>
  now: number
  /** Id of the alert row to create if one is needed. */
  newAlertId: string
  /** The registry DID (`did:web:<authority>`): the announcing event's agentId. */
  registryDid: string
}

/** The announcing event of an alert transition, committed with it. */
export type FanOutHook = (tx: StoreTransaction, event: StoredEvent) => Promise<void>

/** What an alert write did. `event` is set when the transition was announced (publish it after the commit). */
export interface AlertOutcome {
  leaseHeld: boolean
  transition: 'raised' | 'unchanged'
  alert: AlertRecord | undefined
  event: StoredEvent | undefined
}

/** Event types of the witness fan-out. */
export const WITNESS_ALERT_EVENT = 'log_witness_alert'
export const WITNESS_ALERT_CLEARED_EVENT = 'log_witness_alert_cleared'

/** Witness summary of one tenant (dashboard logWitness tile). */
export interface WitnessSummary {
  witnessedLogs: number
  activeAlerts: number
  unacknowledgedAlerts: number
  headsMeetingQuorum: number
}

/** One served cosignature. */
export interface CosignatureRecord {
  logId: string
  treeSize: number
  cosignature: string
}

export interface WitnessStore {
  /**
   * Creates a cursor (due now) for every enabled enrollment with a base URL, and drops cursors whose enrollment
   * moved to another tenant (their evidence belongs to the old tenant). Idempotent; safe concurrently.
   */
  syncCursors(now: number): Promise<void>
  /** Takes the poll lease of up to `limit` due registries (see the file comment); excluded authorities are skipped. */
  claimDueRegistries(input: {
    leaseOwner: string
    now: number
    leaseMs: number
    limit: number
    excluded: readonly string[]
  }): Promise<ClaimedRegistry[]>
  /** Releases a lease without changing anything else (registry skipped: not a log, or shut down). */
  releaseLease(settlement: PollSettlement): Promise<boolean>
  /**
   * Retains a fully verified checkpoint: moves the head, upserts the evidence row, stores our cosignature and prunes
   * old rows, and clears the active alert (announced through `onEvent`) — one transaction.
   */
  recordWitnessed(
    observation: WitnessedObservation,
    registryDid: string,
    newEventId: string,
    onEvent: FanOutHook | undefined,
  ): Promise<{ leaseHeld: boolean; cleared: StoredEvent | undefined }>
  /** Counts an environmental failure (head untouched). Returns the new consecutive count. */
  recordFailure(
    settlement: PollSettlement & { failure: string },
  ): Promise<{ leaseHeld: boolean; consecutiveFailures: number }>
  /**
   * Records a detection and settles the poll (head untouched). A new alert, or a reason different from the
   * active alert's (which is then closed), is announced through `onEvent` in the same transaction; the same
   * reason again only refreshes `last_seen_at` (evidence of the first detection is kept).
   * `settlement` undefined: record without a lease (the unreachable alert after `recordFailure`).
   */
  recordAlert(
    detection: AlertDetection,
    settlement: (PollSettlement & { resetFailures: boolean }) | undefined,
    onEvent: FanOutHook | undefined,
  ): Promise<AlertOutcome>

  getCursor(tenantId: string, authority: string): Promise<CursorRecord | undefined>
  listCheckpoints(
    tenantId: string,
    authority: string,
    limit: number,
  ): Promise<{ checkpoints: WitnessedCheckpointRecord[]; total: number }>
  getActiveAlert(tenantId: string, authority: string): Promise<AlertRecord | undefined>
  /** Active alerts of a tenant, newest first; acknowledged ones only when asked. */
  listActiveAlerts(tenantId: string, includeAcknowledged: boolean, limit: number): Promise<AlertRecord[]>
  /** Acknowledges the active alert (the first acknowledgement is kept); undefined when there is none. */
  acknowledgeAlert(input: {
    tenantId: string
    authority: string
    by: string
    now: number
  }): Promise<AlertRecord | undefined>
  /** Our cosignatures, most recent first. */
  listCosignatures(query: { logId?: string; treeSize?: number; limit: number }): Promise<CosignatureRecord[]>
  /** Log ids we currently retain a head for (advisory `covered_logs`). */
  listCoveredLogs(limit: number): Promise<string[]>
  summarize(tenantId: string): Promise<WitnessSummary>
}

type Db = Kysely<WitnessTables>

/** Builds the witness store on an open database (the control plane's; migration 0200 applied). */
export function createWitnessStore<T>(database: { db: Kysely<T>; kind: DatabaseKind }): WitnessStore {
  const db = database.db as unknown as Db
  const isPostgres = database.kind === 'postgres'

  /** Updates the cursor iff the lease is still ours; true when it was. */
  async function settle(
    tx: Db,
    s: PollSettlement,
    set: Partial<Omit<LogWitnessCursorsTable, 'authority'>>,
  ): Promise<boolean> {
    const result = await tx
      .updateTable('log_witness_cursors')
      .set({
        ...set,
        lease_owner: null,
        lease_until: 0,
        last_attempt_at: s.now,
        next_poll_at: s.nextPollAt,
        updated_at: s.now,
      })
      .where('authority', '=', s.authority)
      .where('lease_owner', '=', s.leaseOwner)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** Writes the announcing event row; returns its committed form (the hook and the bus share it). */
  async function insertFanOutEvent(
    tx: Db,
    input: { tenantId: string; authority: string; registryDid: string; type: string; eventId: string; now: number },
    payload: Record<string, unknown>,
  ): Promise<StoredEvent> {
    const raw = JSON.stringify(payload)
    const row = await tx
      .insertInto('context_events')
      .values({
        tenant_id: input.tenantId,
        dedup_key: `witness:${input.eventId}`,
        event_id: input.eventId,
        event_type: input.type,
        event_ts: input.now,
        received_at: input.now,
        run_id: null,
        ctx_id: null,
        lineage_id: null,
        agent_id: input.registryDid,
        context_type: null,
        visibility: null,
        version: null,
        derived_from: '[]',
        registry_authority: input.authority,
        scenario_id: null,
        key_fingerprint: null,
        receipt_present: 0,
        raw_payload: raw,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const ts = new Date(input.now).toISOString()
    return {
      id: Number(row.id),
      tenantId: input.tenantId,
      type: input.type,
      ts,
      receivedAt: ts,
      eventId: input.eventId,
      runId: null,
      ctxId: null,
      lineageId: null,
      agentId: input.registryDid,
      contextType: null,
      visibility: null,
      version: null,
      derivedFrom: [],
      registryAuthority: input.authority,
      scenarioId: null,
      keyFingerprint: null,
      receiptPresent: false,
      payload,
    }
  }

  async function activeAlertIn(tx: Db, authority: string): Promise<AlertRecord | undefined> {
    const row = await tx
      .selectFrom('log_witness_alerts')
      .selectAll()
      .where('authority', '=', authority)
      .where('cleared_at', 'is', null)
      .executeTakeFirst()
    return row === undefined ? undefined : toAlert(row)
  }

  return {
    async syncCursors(now) {
      await db
        .deleteFrom('log_witness_cursors')
        .where(({ exists, selectFrom, not }) =>
          not(
            exists(
              selectFrom('registry_enrollments as e')
                .select('e.authority')
                .whereRef('e.authority', '=', 'log_witness_cursors.authority')
                .whereRef('e.tenant_id', '=', 'log_witness_cursors.tenant_id'),
            ),
          ),
        )
        .execute()
      await db
        .insertInto('log_witness_cursors')
        .columns([
          'authority',
          'tenant_id',
          'next_poll_at',
          'consecutive_failures',
          'lease_until',
          'created_at',
          'updated_at',
        ])
        .expression((eb) =>
          eb
            .selectFrom('registry_enrollments as e')
            .select([
              'e.authority',
              'e.tenant_id',
              sql<number>`${now}`.as('next_poll_at'),
              sql<number>`0`.as('consecutive_failures'),
              sql<number>`0`.as('lease_until'),
              sql<number>`${now}`.as('created_at'),
              sql<number>`${now}`.as('updated_at'),
            ])
            .where('e.enabled', '=', 1)
            .where('e.base_url', 'is not', null)
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('log_witness_cursors as c')
                    .select('c.authority')
                    .whereRef('c.authority', '=', 'e.authority'),
                ),
              ),
            ),
        )
        .onConflict((oc) => oc.column('authority').doNothing())
        .execute()
    },

    async claimDueRegistries({ leaseOwner, now, leaseMs, limit, excluded }) {
      let due = db
        .selectFrom('log_witness_cursors as c')
        .select('c.authority')
        .where('c.next_poll_at', '<=', now)
        .where('c.lease_until', '<=', now)
        // EXISTS per due row, not `authority IN (enrollments)`: the latter made SQLite scan every enrollment and
        // sort the whole set on every claim (≈ 1–4 ms at 1,000 registries, once per freed slot); this walks the
        // due index in order and stops at `limit`.
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('registry_enrollments as e')
              .select('e.authority')
              .whereRef('e.authority', '=', 'c.authority')
              .where('e.enabled', '=', 1)
              .where('e.base_url', 'is not', null),
          ),
        )
        .orderBy('c.next_poll_at')
        .limit(limit)
      if (excluded.length > 0) due = due.where('c.authority', 'not in', [...excluded])
      const claimed = await db
        .updateTable('log_witness_cursors')
        .set({ lease_owner: leaseOwner, lease_until: now + leaseMs, last_attempt_at: now, updated_at: now })
        .where('authority', 'in', isPostgres ? due.forUpdate().skipLocked() : due)
        .returningAll()
        .execute()
      if (claimed.length === 0) return []
      const enrollments = await db
        .selectFrom('registry_enrollments')
        .select(['authority', 'tenant_id', 'base_url', 'registry_did'])
        .where(
          'authority',
          'in',
          claimed.map((c) => c.authority),
        )
        .execute()
      const byAuthority = new Map(enrollments.map((e) => [e.authority, e]))
      const out: ClaimedRegistry[] = []
      for (const cursor of claimed) {
        const enrollment = byAuthority.get(cursor.authority)
        if (enrollment?.base_url == null || enrollment.tenant_id !== cursor.tenant_id) continue
        out.push({
          authority: cursor.authority,
          tenantId: cursor.tenant_id,
          baseUrl: enrollment.base_url,
          registryDid: enrollment.registry_did,
          head: headOf(cursor),
          consecutiveFailures: Number(cursor.consecutive_failures),
          dueAt: Number(cursor.next_poll_at),
        })
      }
      return out
    },

    async releaseLease(settlement) {
      return db.transaction().execute((tx) => settle(tx, settlement, {}))
    },

    async recordWitnessed(o, registryDid, newEventId, onEvent) {
      return db.transaction().execute(async (tx) => {
        const held = await settle(tx, o, {
          log_id: o.logId,
          tree_size: o.treeSize,
          root_hash: o.rootHash,
          head_checkpoint: o.rawCheckpoint,
          last_success_at: o.now,
          consecutive_failures: 0,
          last_failure: null,
        })
        if (!held) return { leaseHeld: false, cleared: undefined }
        await tx
          .insertInto('log_witness_checkpoints')
          .values({
            tenant_id: o.tenantId,
            authority: o.authority,
            log_id: o.logId,
            tree_size: o.treeSize,
            root_hash: o.rootHash,
            checkpoint_timestamp: o.checkpointTimestamp,
            raw_checkpoint: o.rawCheckpoint,
            consistency_ok: o.consistencyOk === null ? null : o.consistencyOk ? 1 : 0,
            witnessed_count: o.quorum?.witnessedCount ?? null,
            meets_quorum: o.quorum === null ? null : o.quorum.meetsQuorum ? 1 : 0,
            cosigners: JSON.stringify(o.cosigners.slice(0, MAX_STORED_COSIGNERS)),
            quorum_min: o.quorum?.minWitnesses ?? null,
            first_witnessed_at: o.now,
            last_witnessed_at: o.now,
          })
          .onConflict((oc) =>
            oc.columns(['tenant_id', 'log_id', 'tree_size', 'root_hash']).doUpdateSet((eb) => ({
              last_witnessed_at: eb.ref('excluded.last_witnessed_at'),
              witnessed_count: eb.ref('excluded.witnessed_count'),
              meets_quorum: eb.ref('excluded.meets_quorum'),
              cosigners: eb.ref('excluded.cosigners'),
              quorum_min: eb.ref('excluded.quorum_min'),
              consistency_ok: eb.fn.coalesce('log_witness_checkpoints.consistency_ok', 'excluded.consistency_ok'),
            })),
          )
          .execute()
        await pruneCheckpoints(tx, o.tenantId, o.authority, o.checkpointsKept)
        if (o.cosignature !== null) {
          await tx
            .insertInto('log_witness_cosignatures')
            .values({
              tenant_id: o.tenantId,
              authority: o.authority,
              log_id: o.logId,
              tree_size: o.treeSize,
              root_hash: o.rootHash,
              witnessed_at: o.cosignature.witnessedAt,
              cosignature: o.cosignature.json,
            })
            .execute()
          await pruneCosignatures(tx, o.logId, o.cosignaturesKeptPerLog)
        }
        const active = await activeAlertIn(tx, o.authority)
        if (active === undefined) return { leaseHeld: true, cleared: undefined }
        await tx.updateTable('log_witness_alerts').set({ cleared_at: o.now }).where('id', '=', active.id).execute()
        const event = await insertFanOutEvent(
          tx,
          {
            tenantId: active.tenantId,
            authority: o.authority,
            registryDid,
            type: WITNESS_ALERT_CLEARED_EVENT,
            eventId: newEventId,
            now: o.now,
          },
          {
            type: WITNESS_ALERT_CLEARED_EVENT,
            alert_id: active.id,
            authority: o.authority,
            reason: active.reason,
            log_id: o.logId,
            tree_size: o.treeSize,
            root_hash: o.rootHash,
          },
        )
        await onEvent?.(tx as unknown as StoreTransaction, event)
        return { leaseHeld: true, cleared: event }
      })
    },

    async recordFailure(s) {
      return db.transaction().execute(async (tx) => {
        const held = await settle(tx, s, {
          consecutive_failures: sql<number>`consecutive_failures + 1`,
          last_failure: s.failure,
        } as unknown as Partial<LogWitnessCursorsTable>)
        if (!held) return { leaseHeld: false, consecutiveFailures: 0 }
        const row = await tx
          .selectFrom('log_witness_cursors')
          .select('consecutive_failures')
          .where('authority', '=', s.authority)
          .executeTakeFirstOrThrow()
        return { leaseHeld: true, consecutiveFailures: Number(row.consecutive_failures) }
      })
    },

    async recordAlert(d, settlement, onEvent) {
      return db.transaction().execute(async (tx): Promise<AlertOutcome> => {
        if (settlement !== undefined) {
          const held = await settle(tx, settlement, settlement.resetFailures ? { consecutive_failures: 0 } : {})
          if (!held) return { leaseHeld: false, transition: 'unchanged', alert: undefined, event: undefined }
        }
        const active = await activeAlertIn(tx, d.authority)
        if (active !== undefined && active.reason === d.reason) {
          await tx.updateTable('log_witness_alerts').set({ last_seen_at: d.now }).where('id', '=', active.id).execute()
          return { leaseHeld: true, transition: 'unchanged', alert: { ...active, lastSeenAt: d.now }, event: undefined }
        }
        // A different reason closes the active alert and opens a new, unacknowledged one (spec state table).
        if (active !== undefined) {
          await tx.updateTable('log_witness_alerts').set({ cleared_at: d.now }).where('id', '=', active.id).execute()
        }
        const row: LogWitnessAlertsTable = {
          id: d.newAlertId,
          tenant_id: d.tenantId,
          authority: d.authority,
          reason: d.reason,
          detail: JSON.stringify(d.detail),
          raised_at: d.now,
          last_seen_at: d.now,
          acknowledged_at: null,
          acknowledged_by: null,
          cleared_at: null,
          event_seq: null,
        }
        await tx.insertInto('log_witness_alerts').values(row).execute()
        const event = await insertFanOutEvent(
          tx,
          {
            tenantId: d.tenantId,
            authority: d.authority,
            registryDid: d.registryDid,
            type: WITNESS_ALERT_EVENT,
            eventId: d.newAlertId,
            now: d.now,
          },
          {
            type: WITNESS_ALERT_EVENT,
            alert_id: d.newAlertId,
            authority: d.authority,
            reason: d.reason,
            ...(typeof d.detail['log_id'] === 'string' ? { log_id: d.detail['log_id'] } : {}),
          },
        )
        await tx.updateTable('log_witness_alerts').set({ event_seq: event.id }).where('id', '=', d.newAlertId).execute()
        await onEvent?.(tx as unknown as StoreTransaction, event)
        return { leaseHeld: true, transition: 'raised', alert: toAlert({ ...row, event_seq: event.id }), event }
      })
    },

    async getCursor(tenantId, authority) {
      const row = await db
        .selectFrom('log_witness_cursors')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('authority', '=', authority)
        .executeTakeFirst()
      if (row === undefined) return undefined
      return {
        authority: row.authority,
        tenantId: row.tenant_id,
        head: headOf(row),
        lastSuccessAt: nullableNumber(row.last_success_at),
        lastAttemptAt: nullableNumber(row.last_attempt_at),
        consecutiveFailures: Number(row.consecutive_failures),
        lastFailure: row.last_failure,
        nextPollAt: Number(row.next_poll_at),
      }
    },

    async listCheckpoints(tenantId, authority, limit) {
      const base = db
        .selectFrom('log_witness_checkpoints')
        .where('tenant_id', '=', tenantId)
        .where('authority', '=', authority)
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('id', 'desc').limit(limit).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ])
      return {
        total: Number(count.n),
        checkpoints: rows.map((row) => ({
          logId: row.log_id,
          treeSize: Number(row.tree_size),
          rootHash: row.root_hash,
          checkpointTimestamp: Number(row.checkpoint_timestamp),
          consistencyOk: nullableBoolean(row.consistency_ok),
          witnessedCount: nullableNumber(row.witnessed_count),
          meetsQuorum: nullableBoolean(row.meets_quorum),
          cosigners: row.cosigners === null ? null : parseCosigners(row.cosigners),
          quorumMin: nullableNumber(row.quorum_min),
          firstWitnessedAt: Number(row.first_witnessed_at),
          lastWitnessedAt: Number(row.last_witnessed_at),
        })),
      }
    },

    async getActiveAlert(tenantId, authority) {
      const row = await db
        .selectFrom('log_witness_alerts')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('authority', '=', authority)
        .where('cleared_at', 'is', null)
        .executeTakeFirst()
      return row === undefined ? undefined : toAlert(row)
    },

    async listActiveAlerts(tenantId, includeAcknowledged, limit) {
      let query = db
        .selectFrom('log_witness_alerts')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('cleared_at', 'is', null)
      if (!includeAcknowledged) query = query.where('acknowledged_at', 'is', null)
      const rows = await query.orderBy('raised_at', 'desc').orderBy('id').limit(limit).execute()
      return rows.map(toAlert)
    },

    async acknowledgeAlert({ tenantId, authority, by, now }) {
      return db.transaction().execute(async (tx) => {
        await tx
          .updateTable('log_witness_alerts')
          .set({ acknowledged_at: now, acknowledged_by: by })
          .where('tenant_id', '=', tenantId)
          .where('authority', '=', authority)
          .where('cleared_at', 'is', null)
          .where('acknowledged_at', 'is', null)
          .execute()
        const row = await tx
          .selectFrom('log_witness_alerts')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('authority', '=', authority)
          .where('cleared_at', 'is', null)
          .executeTakeFirst()
        return row === undefined ? undefined : toAlert(row)
      })
    },

    async listCosignatures({ logId, treeSize, limit }) {
      let query = db.selectFrom('log_witness_cosignatures').select(['log_id', 'tree_size', 'cosignature'])
      if (logId !== undefined) query = query.where('log_id', '=', logId)
      if (treeSize !== undefined) query = query.where('tree_size', '=', treeSize)
      const rows = await query.orderBy('id', 'desc').limit(limit).execute()
      return rows.map((row) => ({ logId: row.log_id, treeSize: Number(row.tree_size), cosignature: row.cosignature }))
    },

    async listCoveredLogs(limit) {
      const rows = await db
        .selectFrom('log_witness_cursors')
        .select('log_id')
        .distinct()
        .where('log_id', 'is not', null)
        .orderBy('log_id')
        .limit(limit)
        .execute()
      return rows.map((row) => row.log_id as string)
    },

    async summarize(tenantId) {
      // One statement of four scalar subqueries: the dashboard overview asks on every request, and each
      // statement costs more on the client (build, send, decode) than these counts cost the database.
      const result = await sql<{
        witnessed: number | string
        active: number | string
        unacknowledged: number | string
        quorum: number | string
      }>`
        SELECT
          (SELECT COUNT(*) FROM log_witness_cursors WHERE tenant_id = ${tenantId} AND log_id IS NOT NULL)
            AS witnessed,
          (SELECT COUNT(*) FROM log_witness_alerts WHERE tenant_id = ${tenantId} AND cleared_at IS NULL) AS active,
          (SELECT COUNT(*) FROM log_witness_alerts
            WHERE tenant_id = ${tenantId} AND cleared_at IS NULL AND acknowledged_at IS NULL) AS unacknowledged,
          (SELECT COUNT(*) FROM log_witness_cursors AS c
            JOIN log_witness_checkpoints AS k ON k.tenant_id = c.tenant_id AND k.log_id = c.log_id
              AND k.tree_size = c.tree_size AND k.root_hash = c.root_hash
            WHERE c.tenant_id = ${tenantId} AND k.meets_quorum = 1) AS quorum`.execute(db)
      const row = result.rows[0]
      return {
        witnessedLogs: Number(row?.witnessed ?? 0),
        activeAlerts: Number(row?.active ?? 0),
        unacknowledgedAlerts: Number(row?.unacknowledged ?? 0),
        headsMeetingQuorum: Number(row?.quorum ?? 0),
      }
    },
  }
}

/** Keeps the newest `keep` evidence rows of one registry. */
async function pruneCheckpoints(tx: Transaction<WitnessTables>, tenantId: string, authority: string, keep: number) {
  const boundary = await tx
    .selectFrom('log_witness_checkpoints')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('authority', '=', authority)
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst()
  if (boundary === undefined) return
  await tx
    .deleteFrom('log_witness_checkpoints')
    .where('tenant_id', '=', tenantId)
    .where('authority', '=', authority)
    .where('id', '<=', Number(boundary.id))
    .execute()
}

/** Keeps the newest `keep` cosignatures of one log. */
async function pruneCosignatures(tx: Transaction<WitnessTables>, logId: string, keep: number) {
  const boundary = await tx
    .selectFrom('log_witness_cosignatures')
    .select('id')
    .where('log_id', '=', logId)
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst()
  if (boundary === undefined) return
  await tx
    .deleteFrom('log_witness_cosignatures')
    .where('log_id', '=', logId)
    .where('id', '<=', Number(boundary.id))
    .execute()
}

function headOf(row: LogWitnessCursorsTable): RetainedHead | undefined {
  if (row.log_id === null || row.tree_size === null || row.root_hash === null || row.head_checkpoint === null) {
    return undefined
  }
  return {
    logId: row.log_id,
    treeSize: Number(row.tree_size),
    rootHash: row.root_hash,
    checkpoint: row.head_checkpoint,
  }
}

function toAlert(row: LogWitnessAlertsTable): AlertRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    authority: row.authority,
    reason: row.reason,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    raisedAt: Number(row.raised_at),
    lastSeenAt: Number(row.last_seen_at),
    acknowledgedAt: nullableNumber(row.acknowledged_at),
    acknowledgedBy: row.acknowledged_by,
    clearedAt: nullableNumber(row.cleared_at),
  }
}

function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value)
}

/** The stored list, re-checked on read: only known standings and string-or-null names, within the cap. */
function parseCosigners(json: string): CosignerRecord[] {
  const parsed = JSON.parse(json) as unknown
  if (!Array.isArray(parsed)) return []
  const out: CosignerRecord[] = []
  for (const entry of parsed.slice(0, MAX_STORED_COSIGNERS) as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue
    const { name, standing } = entry as Record<string, unknown>
    if (!(COSIGNER_STANDINGS as readonly unknown[]).includes(standing)) continue
    if (name !== null && typeof name !== 'string') continue
    out.push({ name, standing: standing as CosignerStanding })
  }
  return out
}

function nullableBoolean(value: number | null): boolean | null {
  return value === null ? null : Number(value) === 1
}
