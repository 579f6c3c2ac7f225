/**
 * The RegistryStore over Kysely, one code path for SQLite (node:sqlite) and PostgreSQL.
 * Concurrency guarantees come from constraints, not from application locks: the conditional
 * `superseded_by IS NULL` update plus UNIQUE(supersedes) pick exactly one successor, and the
 * (agent_id, idempotency_key) primary key picks exactly one first publish per key.
 */
import { type Database, isUniqueViolation } from '@acdp/storage'
import { type Kysely, type Selectable, sql } from 'kysely'
import type { ContextTable, IdempotencyRecordTable, RegistryDatabase } from './schema.js'
import type { IdempotencyRecord, InsertContextResult, NewContext, RegistryStore, StoredContext } from './store.js'

/** Thrown inside the transaction to roll it back with a known conflict. */
class Conflict extends Error {
  constructor(readonly conflict: 'already_superseded' | 'idempotency_key') {
    super(conflict)
  }
}

const CONTEXT_COLUMNS = [
  'ctx_id',
  'lineage_id',
  'version',
  'supersedes',
  'superseded_by',
  'agent_id',
  'context_type',
  'visibility',
  'audience_json',
  'content_hash',
  'created_at',
  'created_at_ms',
  'expires_at_ms',
  'body_text',
] as const

type ContextRow = Pick<Selectable<ContextTable>, (typeof CONTEXT_COLUMNS)[number]>

/** Creates the store over an open database whose registry migrations have been applied. */
export function createKyselyStore(database: Database<RegistryDatabase>): RegistryStore {
  const db: Kysely<RegistryDatabase> = database.db

  return {
    kind: database.kind,

    async checkHealth() {
      try {
        await sql`select 1`.execute(db)
        return true
      } catch {
        return false
      }
    },

    async findContext(ctxId) {
      const row = await db.selectFrom('context').select(CONTEXT_COLUMNS).where('ctx_id', '=', ctxId).executeTakeFirst()
      return row === undefined ? undefined : toStoredContext(row)
    },

    async findSupersededBy(ctxId) {
      const row = await db.selectFrom('context').select('superseded_by').where('ctx_id', '=', ctxId).executeTakeFirst()
      return row === undefined ? undefined : { supersededBy: row.superseded_by }
    },

    async listLineage(lineageId) {
      const rows = await db
        .selectFrom('context')
        .select(CONTEXT_COLUMNS)
        .where('lineage_id', '=', lineageId)
        .orderBy('version', 'asc')
        .execute()
      return rows.map(toStoredContext)
    },

    async findIdempotencyRecord(agentId, idempotencyKey, nowMs) {
      const row = await db
        .selectFrom('idempotency_record')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where('idempotency_key', '=', idempotencyKey)
        .where('expires_at_ms', '>', nowMs)
        .executeTakeFirst()
      return row === undefined ? undefined : toIdempotencyRecord(row)
    },

    async insertContext(context, idempotency): Promise<InsertContextResult> {
      try {
        await db.transaction().execute(async (tx) => {
          if (idempotency) {
            // An expired record no longer binds the key (RFC-ACDP-0003 §6.2 TTL); clear it so the insert below
            // only conflicts with a live record.
            await tx
              .deleteFrom('idempotency_record')
              .where('agent_id', '=', idempotency.agentId)
              .where('idempotency_key', '=', idempotency.idempotencyKey)
              .where('expires_at_ms', '<=', idempotency.createdAtMs)
              .execute()
            try {
              await tx.insertInto('idempotency_record').values(fromIdempotencyRecord(idempotency)).execute()
            } catch (error) {
              if (isUniqueViolation(error)) throw new Conflict('idempotency_key')
              throw error
            }
          }
          if (context.supersedes !== null) {
            const updated = await tx
              .updateTable('context')
              .set({ superseded_by: context.ctxId })
              .where('ctx_id', '=', context.supersedes)
              .where('superseded_by', 'is', null)
              .executeTakeFirst()
            if (Number(updated.numUpdatedRows) !== 1) throw new Conflict('already_superseded')
          }
          try {
            await tx.insertInto('context').values(toContextRow(context)).execute()
          } catch (error) {
            // The only unique column a fresh random ctx_id can collide on is `supersedes`.
            if (isUniqueViolation(error) && context.supersedes !== null) throw new Conflict('already_superseded')
            throw error
          }
          if (context.audience.length > 0) {
            await tx
              .insertInto('context_audience')
              .values(context.audience.map((did) => ({ ctx_id: context.ctxId, did })))
              .execute()
          }
          if (context.tags.length > 0) {
            await tx
              .insertInto('context_tag')
              .values(context.tags.map((tag) => ({ ctx_id: context.ctxId, tag })))
              .execute()
          }
          if (context.derivedFrom.length > 0) {
            await tx
              .insertInto('context_derived_from')
              .values(context.derivedFrom.map((source) => ({ ctx_id: context.ctxId, source_ctx_id: source })))
              .execute()
          }
        })
        return { ok: true }
      } catch (error) {
        if (error instanceof Conflict) return { ok: false, conflict: error.conflict }
        throw error
      }
    },

    async sweepIdempotencyRecords(nowMs) {
      const result = await db.deleteFrom('idempotency_record').where('expires_at_ms', '<=', nowMs).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    async countIdempotencyRecords(nowMs) {
      const row = await db
        .selectFrom('idempotency_record')
        .select(sql<number>`count(*)`.as('n'))
        .where('expires_at_ms', '>', nowMs)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
  }
}

function toStoredContext(row: ContextRow): StoredContext {
  return {
    ctxId: row.ctx_id,
    lineageId: row.lineage_id,
    version: Number(row.version),
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
    agentId: row.agent_id,
    contextType: row.context_type,
    visibility: row.visibility as StoredContext['visibility'],
    audience: JSON.parse(row.audience_json) as string[],
    contentHash: row.content_hash,
    createdAt: row.created_at,
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
    bodyText: row.body_text,
  }
}

function toContextRow(c: NewContext): ContextTable {
  return {
    ctx_id: c.ctxId,
    lineage_id: c.lineageId,
    version: c.version,
    supersedes: c.supersedes,
    superseded_by: null,
    agent_id: c.agentId,
    context_type: c.contextType,
    visibility: c.visibility,
    audience_json: JSON.stringify(c.audience),
    title: c.title,
    summary: c.summary,
    description: c.description,
    domain: c.domain,
    schema_uri: c.schemaUri,
    search_text: [c.title, c.summary, c.description, ...c.tags, c.contextType, c.domain, c.agentId]
      .filter((part): part is string => typeof part === 'string' && part !== '')
      .join('\n')
      .toLowerCase(),
    content_hash: c.contentHash,
    created_at: c.createdAt,
    created_at_ms: c.createdAtMs,
    expires_at_ms: c.expiresAtMs,
    data_period_start_ms: c.dataPeriodStartMs,
    data_period_end_ms: c.dataPeriodEndMs,
    body_text: c.bodyText,
  }
}

function fromIdempotencyRecord(r: IdempotencyRecord): IdempotencyRecordTable {
  return {
    agent_id: r.agentId,
    idempotency_key: r.idempotencyKey,
    content_hash: r.contentHash,
    signature_algorithm: r.signatureAlgorithm,
    signature_key_id: r.signatureKeyId,
    signature_value: r.signatureValue,
    ctx_id: r.ctxId,
    response_json: r.responseJson,
    created_at_ms: r.createdAtMs,
    expires_at_ms: r.expiresAtMs,
  }
}

function toIdempotencyRecord(row: Selectable<IdempotencyRecordTable>): IdempotencyRecord {
  return {
    agentId: row.agent_id,
    idempotencyKey: row.idempotency_key,
    contentHash: row.content_hash,
    signatureAlgorithm: row.signature_algorithm,
    signatureKeyId: row.signature_key_id,
    signatureValue: row.signature_value,
    ctxId: row.ctx_id,
    responseJson: row.response_json,
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
  }
}
