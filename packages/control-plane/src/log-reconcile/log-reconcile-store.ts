/**
 * Persistence of the log reconciliation (migration 0810): one cursor per enrolled registry, leased by single
 * conditional statements so several instances on one PostgreSQL reconcile each registry one at a time (a dead
 * instance's lease expires), the lookup of which logged publications the control plane already holds, and the log
 * leaf matched to each held publication (migration 0870, read by the receipt-audit summary).
 */
import type { DatabaseKind } from '@acdp/storage'
import type { Kysely } from 'kysely'
import type { ContextEventsTable, RegistryEnrollmentsTable } from '../store/schema.js'

export interface LogReconcileCursorsTable {
  authority: string
  tenant_id: string
  /** Next log index to reconcile; NULL = start at the log size first read (see migration 0810). */
  next_index: number | null
  next_run_at: number
  lease_owner: string | null
  lease_until: number
  recovered: number
  last_failure: string | null
  updated_at: number
  /** context_events.id of the last publication whose lifecycle events were re-checked (migration 0840). */
  lifecycle_after: number
}

/** The leaf whose `ctx_id` the reconciler matched to a held publication (migration 0870). */
export interface LogLeafMatchesTable {
  tenant_id: string
  registry_authority: string
  ctx_id: string
  /** The log's id as its `GET /log/entries` page named it. */
  log_id: string
  leaf_index: number
  matched_at: number
}

interface Tables {
  log_reconcile_cursors: LogReconcileCursorsTable
  log_leaf_matches: LogLeafMatchesTable
  registry_enrollments: RegistryEnrollmentsTable
  context_events: ContextEventsTable
}

/** A registry whose reconciliation lease this instance now holds. */
export interface ClaimedLog {
  authority: string
  tenantId: string
  baseUrl: string
  nextIndex: number | null
  /** Where the lifecycle re-check resumes (see migration 0840). */
  lifecycleAfter: number
}

/** A log leaf matched to a publication the tenant holds. */
export interface LeafMatch {
  ctxId: string
  logId: string
  leafIndex: number
}

/** A held publication of a registry, in store order. */
export interface HeldPublication {
  id: number
  ctxId: string
}

export interface LogReconcileStore {
  /** Gives every enabled enrollment with a base URL a cursor (new ones start at index 0). */
  syncCursors(now: number): Promise<void>
  /** Leases up to `limit` due cursors of enabled enrollments with a base URL. */
  claimDue(input: { owner: string; now: number; leaseMs: number; limit: number }): Promise<ClaimedLog[]>
  /** Records progress iff the lease is still ours, and releases it. */
  settle(input: {
    owner: string
    authority: string
    now: number
    nextIndex: number | null
    nextRunAt: number
    recovered: number
    lastFailure: string | null
    /** The lifecycle re-check's new position; absent: unchanged. */
    lifecycleAfter?: number
  }): Promise<boolean>
  /** Which of `ctxIds` the tenant holds a publication for (keyed by ctx_id, see ingest's publicationKey). */
  heldPublications(tenantId: string, dedupKeys: readonly string[]): Promise<Set<string>>
  /**
   * Records the leaves matched to held publications of `authority`; a publication keeps its first recorded leaf
   * (a log has one leaf per publication; a second one naming the same ctx_id is not evidence of anything more).
   */
  recordLeafMatches(input: {
    tenantId: string
    authority: string
    matches: readonly LeafMatch[]
    now: number
  }): Promise<void>
  /** Up to `limit` publications of `authority` the tenant holds, with id > `afterId`, oldest first. */
  publicationsAfter(input: {
    tenantId: string
    authority: string
    afterId: number
    limit: number
  }): Promise<HeldPublication[]>
  /**
   * The RFC-ACDP-0013 event ids of the lifecycle events the tenant holds for `ctxId` (the webhook's
   * `lifecycle_event_id`, also on recovered ones): however each was keyed when it was stored.
   */
  heldLifecycleEventIds(tenantId: string, ctxId: string): Promise<Set<string>>
}

type Db = Kysely<Tables>

/** Matches per insert statement (6 parameters each, far below either dialect's parameter limit). */
const MATCH_CHUNK = 500

export function createLogReconcileStore<T>(database: { db: Kysely<T>; kind: DatabaseKind }): LogReconcileStore {
  const db = database.db as unknown as Db
  return {
    async syncCursors(now) {
      const enrolled = await db
        .selectFrom('registry_enrollments')
        .leftJoin('log_reconcile_cursors', 'log_reconcile_cursors.authority', 'registry_enrollments.authority')
        .select(['registry_enrollments.authority as authority', 'registry_enrollments.tenant_id as tenant_id'])
        .where('log_reconcile_cursors.authority', 'is', null)
        .where('registry_enrollments.enabled', '=', 1)
        .where('registry_enrollments.base_url', 'is not', null)
        .execute()
      for (const row of enrolled) {
        await db
          .insertInto('log_reconcile_cursors')
          .values({
            authority: row.authority,
            tenant_id: row.tenant_id,
            next_index: 0,
            next_run_at: 0,
            lease_until: 0,
            recovered: 0,
            updated_at: now,
            lifecycle_after: 0,
          })
          .onConflict((conflict) => conflict.column('authority').doNothing())
          .execute()
      }
    },

    async claimDue({ owner, now, leaseMs, limit }) {
      const due = await db
        .selectFrom('log_reconcile_cursors')
        .innerJoin('registry_enrollments', 'registry_enrollments.authority', 'log_reconcile_cursors.authority')
        .select([
          'log_reconcile_cursors.authority as authority',
          'registry_enrollments.tenant_id as tenant_id',
          'registry_enrollments.base_url as base_url',
          'log_reconcile_cursors.next_index as next_index',
          'log_reconcile_cursors.lifecycle_after as lifecycle_after',
        ])
        .where('log_reconcile_cursors.next_run_at', '<=', now)
        .where('log_reconcile_cursors.lease_until', '<=', now)
        .where('registry_enrollments.enabled', '=', 1)
        .where('registry_enrollments.base_url', 'is not', null)
        .orderBy('log_reconcile_cursors.next_run_at')
        .limit(limit)
        .execute()
      const claimed: ClaimedLog[] = []
      for (const row of due) {
        const taken = await db
          .updateTable('log_reconcile_cursors')
          .set({ lease_owner: owner, lease_until: now + leaseMs, tenant_id: row.tenant_id })
          .where('authority', '=', row.authority)
          .where('lease_until', '<=', now)
          .executeTakeFirst()
        if (Number(taken.numUpdatedRows) !== 1) continue // another instance took it between the read and here
        claimed.push({
          authority: row.authority,
          tenantId: row.tenant_id,
          baseUrl: row.base_url as string,
          nextIndex: row.next_index === null ? null : Number(row.next_index),
          lifecycleAfter: Number(row.lifecycle_after),
        })
      }
      return claimed
    },

    async settle({ owner, authority, now, nextIndex, nextRunAt, recovered, lastFailure, lifecycleAfter }) {
      const result = await db
        .updateTable('log_reconcile_cursors')
        .set((eb) => ({
          next_index: nextIndex,
          next_run_at: nextRunAt,
          lease_owner: null,
          lease_until: 0,
          recovered: eb('recovered', '+', recovered),
          last_failure: lastFailure,
          updated_at: now,
          ...(lifecycleAfter === undefined ? {} : { lifecycle_after: lifecycleAfter }),
        }))
        .where('authority', '=', authority)
        .where('lease_owner', '=', owner)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    async heldPublications(tenantId, dedupKeys) {
      if (dedupKeys.length === 0) return new Set()
      const rows = await db
        .selectFrom('context_events')
        .select('dedup_key')
        .where('tenant_id', '=', tenantId)
        .where('dedup_key', 'in', [...dedupKeys])
        .execute()
      return new Set(rows.map((row) => row.dedup_key))
    },

    async recordLeafMatches({ tenantId, authority, matches, now }) {
      for (let start = 0; start < matches.length; start += MATCH_CHUNK) {
        await db
          .insertInto('log_leaf_matches')
          .values(
            matches.slice(start, start + MATCH_CHUNK).map((match) => ({
              tenant_id: tenantId,
              registry_authority: authority,
              ctx_id: match.ctxId,
              log_id: match.logId,
              leaf_index: match.leafIndex,
              matched_at: now,
            })),
          )
          .onConflict((conflict) => conflict.columns(['tenant_id', 'registry_authority', 'ctx_id']).doNothing())
          .execute()
      }
    },

    async publicationsAfter({ tenantId, authority, afterId, limit }) {
      const rows = await db
        .selectFrom('context_events')
        .select(['id', 'ctx_id'])
        .where('tenant_id', '=', tenantId)
        .where('registry_authority', '=', authority)
        .where('event_type', '=', 'context_published')
        .where('ctx_id', 'is not', null)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute()
      return rows.map((row) => ({ id: Number(row.id), ctxId: row.ctx_id as string }))
    },

    async heldLifecycleEventIds(tenantId, ctxId) {
      const rows = await db
        .selectFrom('context_events')
        .select('raw_payload')
        .where('tenant_id', '=', tenantId)
        .where('ctx_id', '=', ctxId)
        .where('event_type', 'in', ['context_retracted', 'context_republished'])
        .execute()
      const ids = new Set<string>()
      for (const row of rows) {
        try {
          const id = (JSON.parse(row.raw_payload) as { lifecycle_event_id?: unknown }).lifecycle_event_id
          if (typeof id === 'string') ids.add(id)
        } catch {
          // A stored body that is not JSON names no lifecycle event id (ingest accepted it as JSON, so: none).
        }
      }
      return ids
    },
  }
}
