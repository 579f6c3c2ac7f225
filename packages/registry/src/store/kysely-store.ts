/**
 * The RegistryStore over Kysely, one code path for SQLite (node:sqlite) and PostgreSQL.
 * Concurrency guarantees come from constraints, not from application locks: the conditional
 * `superseded_by IS NULL` update plus UNIQUE(supersedes) pick exactly one successor, and the
 * (agent_id, idempotency_key) primary key picks exactly one first publish per key.
 */
import { type Database, isUniqueViolation } from '@acdp/storage'
import { type Compilable, CompiledQuery, type Kysely, type Selectable, sql } from 'kysely'
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
  const statements = createPublishStatements(db)

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
      // On every keyed publish, before any verification: precompiled like the publish statements.
      const result = await db.executeQuery<Selectable<IdempotencyRecordTable>>(
        statements.findIdempotencyRecord(agentId, idempotencyKey, nowMs),
      )
      const row = result.rows[0]
      return row === undefined ? undefined : toIdempotencyRecord(row)
    },

    async insertContext(context, idempotency): Promise<InsertContextResult> {
      const row = toContextRow(context)
      try {
        await db.transaction().execute(async (tx) => {
          if (idempotency) {
            // One statement claims the key: insert, or take over a row whose TTL has passed (RFC-ACDP-0003 §6.2);
            // a live row is left alone and nothing is written, which is the conflict.
            const record = fromIdempotencyRecord(idempotency)
            const claimed = await tx.executeQuery(statements.claimIdempotencyKey(record))
            if (Number(claimed.numAffectedRows ?? 0n) !== 1) throw new Conflict('idempotency_key')
          }
          if (context.supersedes !== null) {
            const updated = await tx.executeQuery(statements.markSuperseded(context.supersedes, context.ctxId))
            if (Number(updated.numAffectedRows ?? 0n) !== 1) throw new Conflict('already_superseded')
          }
          try {
            await tx.executeQuery(statements.insertContext(row))
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

/**
 * The publish transaction's statements, compiled once per shape and re-bound with fresh parameters. Building and
 * compiling a Kysely query costs more than executing it on SQLite; the publish path runs these on every request.
 * Rows are built with a fixed member order (toContextRow, fromIdempotencyRecord) and carry no undefined members,
 * so a shape's parameters are exactly the rows' values in order.
 */
function createPublishStatements(db: Kysely<RegistryDatabase>) {
  const cache = new Map<string, string>()
  const sqlOf = (key: string, build: () => Compilable): string => {
    let text = cache.get(key)
    if (text === undefined) {
      text = build().compile().sql
      cache.set(key, text)
    }
    return text
  }
  const rowsSql = <T extends 'context_audience' | 'context_tag' | 'context_derived_from'>(
    table: T,
    rows: Array<Record<string, string>>,
  ) => sqlOf(`${table}:${rows.length}`, () => db.insertInto(table).values(rows as never))
  return {
    findIdempotencyRecord(agentId: string, idempotencyKey: string, nowMs: number): CompiledQuery {
      const text = sqlOf('find-idempotency', () =>
        db
          .selectFrom('idempotency_record')
          .selectAll()
          .where('agent_id', '=', agentId)
          .where('idempotency_key', '=', idempotencyKey)
          .where('expires_at_ms', '>', nowMs),
      )
      return CompiledQuery.raw(text, [agentId, idempotencyKey, nowMs])
    },
    claimIdempotencyKey(record: IdempotencyRecordTable): CompiledQuery {
      const text = sqlOf('claim', () =>
        db
          .insertInto('idempotency_record')
          .values(record)
          .onConflict((oc) =>
            oc
              .columns(['agent_id', 'idempotency_key'])
              .doUpdateSet((eb) => ({
                content_hash: eb.ref('excluded.content_hash'),
                signature_algorithm: eb.ref('excluded.signature_algorithm'),
                signature_key_id: eb.ref('excluded.signature_key_id'),
                signature_value: eb.ref('excluded.signature_value'),
                ctx_id: eb.ref('excluded.ctx_id'),
                response_json: eb.ref('excluded.response_json'),
                created_at_ms: eb.ref('excluded.created_at_ms'),
                expires_at_ms: eb.ref('excluded.expires_at_ms'),
              }))
              .where('idempotency_record.expires_at_ms', '<=', (eb) => eb.ref('excluded.created_at_ms')),
          ),
      )
      return CompiledQuery.raw(text, Object.values(record))
    },
    markSuperseded(target: string, successor: string): CompiledQuery {
      const text = sqlOf('supersede', () =>
        db
          .updateTable('context')
          .set({ superseded_by: successor })
          .where('ctx_id', '=', target)
          .where('superseded_by', 'is', null),
      )
      return CompiledQuery.raw(text, [successor, target])
    },
    insertContext(row: ContextTable): CompiledQuery {
      return CompiledQuery.raw(
        sqlOf('context', () => db.insertInto('context').values(row)),
        Object.values(row),
      )
    },
    insertAudience: (rows: Array<{ ctx_id: string; did: string }>) =>
      CompiledQuery.raw(
        rowsSql('context_audience', rows),
        rows.flatMap((r) => [r.ctx_id, r.did]),
      ),
    insertTags: (rows: Array<{ ctx_id: string; tag: string }>) =>
      CompiledQuery.raw(
        rowsSql('context_tag', rows),
        rows.flatMap((r) => [r.ctx_id, r.tag]),
      ),
    insertDerivedFrom: (rows: Array<{ ctx_id: string; source_ctx_id: string }>) =>
      CompiledQuery.raw(
        rowsSql('context_derived_from', rows),
        rows.flatMap((r) => [r.ctx_id, r.source_ctx_id]),
      ),
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
