/**
 * The RegistryStore over Kysely, one code path for SQLite (node:sqlite) and PostgreSQL.
 * Concurrency guarantees come from constraints, not from application locks: the conditional
 * `superseded_by IS NULL` update plus UNIQUE(supersedes) pick exactly one successor, and the
 * (agent_id, idempotency_key) primary key picks exactly one first publish per key.
 *
 * On SQLite, publishes go through the group-commit writer (sqlite-publish-writer.ts), which runs the same
 * statements as raw prepared statements in one synchronous transaction per event-loop turn. That writer's
 * safety rests on this store never opening a Kysely transaction on SQLite: every other SQLite write here is a
 * single autocommit statement. On PostgreSQL, publishes go through the group-commit writer pg-publish-writer.ts
 * (one transaction and one log sequencing step for the publishes that arrive together); the per-publish
 * transaction below is its fallback when a batch meets an unexpected error.
 */
import { type Database, isUniqueViolation } from '@acdp/storage'
import { type CompiledQuery, type Kysely, type Selectable, sql } from 'kysely'
import { type CompiledStatements, createCompiledStatements } from './compiled-statements.js'
import { appendLeaf, takeLeafIndex } from './log-append.js'
import { createLogStore } from './log-store.js'
import { REGISTRY_MIGRATION_TABLE } from './migrations/index.js'
import {
  CONTEXT_COLUMNS,
  type ContextRow,
  fromIdempotencyRecord,
  toContextRow,
  toIdempotencyRecord,
  toStoredContext,
} from './rows.js'
import type { IdempotencyRecordTable, RegistryDatabase } from './schema.js'
import { PgPublishWriter, type PgPublishWriterOptions } from './pg-publish-writer.js'
import { LOOKUP_SQL, PgReadBatcher } from './pg-read-batcher.js'
import { SqlitePublishWriter } from './sqlite-publish-writer.js'
import { SqliteStatements } from './sqlite-statements.js'
import type { IdempotencyRecord, InsertContextResult, NewContext, RegistryStore } from './store.js'

interface StatusInputsRow {
  superseded_by: string | null
  retracted: number
  lifecycle_events_json: string | null
}

/** Thrown inside the transaction to roll it back with a known conflict. */
class Conflict extends Error {
  constructor(readonly conflict: 'already_superseded' | 'idempotency_key') {
    super(conflict)
  }
}

export interface KyselyStoreOptions {
  /** PostgreSQL, tests only: runs inside each publish batch's transaction before its COMMIT (pg-publish-writer.ts). */
  beforePublishBatchCommit?: PgPublishWriterOptions['beforeCommit']
}

/**
 * Creates the store over an open database whose registry migrations have been applied.
 *
 * On SQLite the store writes through raw synchronous transactions on `database`'s single connection, so the
 * caller must not hold a Kysely transaction open on `database` while publishing (a publish batch that finds one
 * open fails instead of joining it). Single statements through `database.db` are fine.
 */
export function createKyselyStore(
  database: Database<RegistryDatabase>,
  options: KyselyStoreOptions = {},
): RegistryStore {
  const db: Kysely<RegistryDatabase> = database.db
  const statements = createCompiledStatements(db, database.kind)
  const sqlite = database.sqlite ? new SqliteStatements(database.sqlite.raw) : undefined
  const writer = sqlite ? new SqlitePublishWriter(sqlite, statements, database.writerGate) : undefined
  const pgWriter =
    database.kind === 'postgres'
      ? new PgPublishWriter(database, statements, {
          insertOne: (context, idempotency) => insertInTransaction(db, statements, context, idempotency),
          ...(options.beforePublishBatchCommit ? { beforeCommit: options.beforePublishBatchCommit } : {}),
        })
      : undefined
  // PostgreSQL: the publish path's idempotency and revocation lookups, coalesced per event-loop turn.
  const pgReads = database.kind === 'postgres' ? new PgReadBatcher(db) : undefined
  database.namedStatements?.add(LOOKUP_SQL)
  /** Rows of a compiled read: straight from node:sqlite on SQLite, through Kysely on PostgreSQL. */
  const readRows = async <Row>(query: CompiledQuery): Promise<Row[]> =>
    sqlite ? sqlite.all<Row>(query) : (await db.executeQuery<Row>(query)).rows
  // ctx_id order is byte order on both dialects, whatever PostgreSQL's default collation (as in search).
  const ctxIdKey = database.kind === 'postgres' ? sql<string>`c.ctx_id collate "C"` : sql<string>`c.ctx_id`

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

    async findContext(ctxId, tenantId) {
      const [row] = await readRows<ContextRow>(statements.findContext(ctxId, tenantId))
      return row === undefined ? undefined : toStoredContext(row)
    },

    async findStatusInputs(ctxId) {
      const [row] = await readRows<StatusInputsRow>(statements.findStatusInputs(ctxId))
      return row === undefined
        ? undefined
        : {
            supersededBy: row.superseded_by,
            retracted: Number(row.retracted) === 1,
            lifecycleEventsJson: row.lifecycle_events_json,
          }
    },

    async findRetractionState(ctxId) {
      const [row] = await readRows<StatusInputsRow>(statements.findStatusInputs(ctxId))
      return row === undefined ? undefined : { retracted: Number(row.retracted) === 1 }
    },

    async appendLifecycleEvent({ ctxId, tenantId, expectedCount, eventsJson, retracted }) {
      // One autocommit statement: atomic on both dialects, and never inside the SQLite writer's transaction.
      const query = statements.appendLifecycleEvent(ctxId, tenantId, expectedCount, eventsJson, retracted)
      const changed = sqlite ? sqlite.run(query) : Number((await db.executeQuery(query)).numAffectedRows ?? 0n)
      return changed === 1
    },

    async hasLifecycleState() {
      const row = await db
        .selectFrom('context')
        .select('ctx_id')
        .where('lifecycle_event_count', '>', 0)
        .limit(1)
        .executeTakeFirst()
      return row !== undefined
    },

    async listKeyRevocationSigners() {
      const rows = await db
        .selectFrom('context')
        .select('agent_id')
        .distinct()
        .where('context_type', '=', 'key-revocation')
        .execute()
      return rows.map((row) => row.agent_id)
    },

    async listKeyRevocations(agentIds) {
      if (agentIds.length === 0) return []
      if (pgReads) return pgReads.listKeyRevocations(agentIds)
      const rows = await readRows<{ ctx_id: string; agent_id: string; body_text: string }>(
        statements.listKeyRevocations(agentIds),
      )
      return rows.map((row) => ({ ctxId: row.ctx_id, agentId: row.agent_id, bodyText: row.body_text }))
    },

    async listLineage(lineageId, tenantId) {
      const rows = await db
        .selectFrom('context')
        .select(CONTEXT_COLUMNS)
        .where('lineage_id', '=', lineageId)
        .where('tenant_id', '=', tenantId)
        .orderBy('version', 'asc')
        .execute()
      return rows.map(toStoredContext)
    },

    async listPublicContexts(tenantId, page) {
      const after = page.after
      const rows = await db
        .selectFrom('context as c')
        .select([
          'c.ctx_id',
          'c.lineage_id',
          'c.version',
          'c.agent_id',
          'c.context_type',
          'c.title',
          'c.content_hash',
          'c.created_at',
          'c.created_at_ms',
          'c.expires_at_ms',
          'c.superseded_by',
          'c.retracted',
        ])
        .where('c.tenant_id', '=', tenantId)
        .where('c.visibility', '=', 'public')
        .$if(after !== undefined, (q) =>
          q.where((eb) =>
            eb.or([
              eb('c.created_at_ms', '<', after!.createdAtMs),
              eb.and([eb('c.created_at_ms', '=', after!.createdAtMs), eb(ctxIdKey, '>', after!.ctxId)]),
            ]),
          ),
        )
        .orderBy('c.created_at_ms', 'desc')
        .orderBy(ctxIdKey, 'asc')
        .limit(page.limit)
        .execute()
      return rows.map((r) => ({
        ctxId: r.ctx_id,
        lineageId: r.lineage_id,
        version: Number(r.version),
        agentId: r.agent_id,
        contextType: r.context_type,
        title: r.title,
        contentHash: r.content_hash,
        createdAt: r.created_at,
        createdAtMs: Number(r.created_at_ms),
        expiresAtMs: r.expires_at_ms === null ? null : Number(r.expires_at_ms),
        supersededBy: r.superseded_by,
        retracted: Number(r.retracted) === 1,
      }))
    },

    async findIdempotencyRecord(agentId, idempotencyKey, nowMs, tenantId) {
      // On every keyed publish, before any verification.
      if (pgReads) {
        const record = await pgReads.findIdempotencyRecord(tenantId, agentId, idempotencyKey, nowMs)
        return record === undefined ? undefined : toIdempotencyRecord(record)
      }
      const [row] = await readRows<Selectable<IdempotencyRecordTable>>(
        statements.findIdempotencyRecord(agentId, idempotencyKey, nowMs, tenantId),
      )
      return row === undefined ? undefined : toIdempotencyRecord(row)
    },

    insertContext(context, idempotency): Promise<InsertContextResult> {
      if (writer) return writer.write(context, idempotency)
      if (pgWriter) return pgWriter.write(context, idempotency)
      return insertInTransaction(db, statements, context, idempotency)
    },

    async sweepIdempotencyRecords(nowMs) {
      const result = await db.deleteFrom('idempotency_record').where('expires_at_ms', '<=', nowMs).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    log: createLogStore(db, statements, sqlite, () => writer?.committedTreeSize),

    async countIdempotencyRecords(nowMs) {
      const row = await db
        .selectFrom('idempotency_record')
        .select(sql<number>`count(*)`.as('n'))
        .where('expires_at_ms', '>', nowMs)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    async listAppliedMigrations() {
      const result = await sql<{
        name: string
      }>`select name from ${sql.table(REGISTRY_MIGRATION_TABLE)} order by name`.execute(db)
      return result.rows.map((row) => row.name)
    },
  }
}

/**
 * One publish in its own transaction through Kysely (PostgreSQL): the same statements as the SQLite writer, in
 * order. The PostgreSQL writer's fallback, publish by publish, after a batch met an unexpected error.
 */
async function insertInTransaction(
  db: Kysely<RegistryDatabase>,
  statements: CompiledStatements,
  context: NewContext,
  idempotency: IdempotencyRecord | undefined,
): Promise<InsertContextResult> {
  try {
    return await db.transaction().execute(async (tx) => {
      if (idempotency) {
        const claimed = await tx.executeQuery(statements.claimIdempotencyKey(fromIdempotencyRecord(idempotency)))
        if (Number(claimed.numAffectedRows ?? 0n) !== 1) throw new Conflict('idempotency_key')
      }
      if (context.supersedes !== null) {
        const updated = await tx.executeQuery(statements.markSuperseded(context.supersedes, context.ctxId))
        if (Number(updated.numAffectedRows ?? 0n) !== 1) throw new Conflict('already_superseded')
      }
      // Last lock taken: the log_state row lock is never held while waiting for another lock (no deadlock).
      const leafIndex = context.logLeaf === null ? null : await takeLeafIndex(tx, statements)
      try {
        await tx.executeQuery(statements.insertContext(toContextRow(context, leafIndex)))
      } catch (error) {
        // The only unique column a fresh random ctx_id can collide on is `supersedes`.
        if (isUniqueViolation(error) && context.supersedes !== null) throw new Conflict('already_superseded')
        throw error
      }
      if (context.audience.length > 0) {
        await tx.executeQuery(
          statements.insertAudience(context.audience.map((did) => ({ ctx_id: context.ctxId, did }))),
        )
      }
      if (context.tags.length > 0) {
        await tx.executeQuery(statements.insertTags(context.tags.map((tag) => ({ ctx_id: context.ctxId, tag }))))
      }
      if (context.derivedFrom.length > 0) {
        await tx.executeQuery(
          statements.insertDerivedFrom(
            context.derivedFrom.map((source) => ({ ctx_id: context.ctxId, source_ctx_id: source })),
          ),
        )
      }
      if (context.logLeaf !== null && leafIndex !== null) {
        await appendLeaf(tx, statements, leafIndex, context, context.logLeaf)
      }
      return { ok: true, leafIndex } as const
    })
  } catch (error) {
    if (error instanceof Conflict) return { ok: false, conflict: error.conflict }
    throw error
  }
}
