/**
 * The hot paths' statements (publish, idempotency lookup, context reads), compiled by Kysely once per shape and
 * re-bound with fresh parameters on every call: building and compiling a Kysely query costs more than executing
 * it on SQLite. The Kysely store (PostgreSQL) and the raw SQLite paths run these same texts.
 */
import type { DatabaseKind } from '@acdp/storage'
import { type Compilable, CompiledQuery, type Insertable, type Kysely, sql } from 'kysely'
import { logNodePosition } from './log-node-position.js'
import { CONTEXT_COLUMNS } from './rows.js'
import type { ContextTable, IdempotencyRecordTable, LogLeafTable, RegistryDatabase } from './schema.js'

export type CompiledStatements = ReturnType<typeof createCompiledStatements>

/**
 * Creates the statement builders for `db`'s dialect. Rows must come from rows.ts (fixed member order, no
 * undefined member): a shape's parameters are then exactly the row's values in order.
 */
export function createCompiledStatements(db: Kysely<RegistryDatabase>, kind: DatabaseKind) {
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
    /** A context inside its tenant: another tenant's row is never read. */
    findContext(ctxId: string, tenantId: string): CompiledQuery {
      const text = sqlOf('find-context', () =>
        db.selectFrom('context').select(CONTEXT_COLUMNS).where('ctx_id', '=', ctxId).where('tenant_id', '=', tenantId),
      )
      return CompiledQuery.raw(text, [ctxId, tenantId])
    },
    findStatusInputs(ctxId: string): CompiledQuery {
      const text = sqlOf('find-status-inputs', () =>
        db
          .selectFrom('context')
          .select(['superseded_by', 'retracted', 'lifecycle_events_json'])
          .where('ctx_id', '=', ctxId),
      )
      return CompiledQuery.raw(text, [ctxId])
    },
    /**
     * Appends lifecycle state only if the row still holds `expectedCount` events (compare-and-swap): 0 rows
     * affected means another append won the race (or the context is gone).
     */
    appendLifecycleEvent(
      ctxId: string,
      tenantId: string,
      expectedCount: number,
      eventsJson: string,
      retracted: boolean,
    ): CompiledQuery {
      const text = sqlOf('append-lifecycle', () =>
        db
          .updateTable('context')
          .set({ lifecycle_events_json: eventsJson, lifecycle_event_count: expectedCount + 1, retracted: 1 })
          .where('ctx_id', '=', ctxId)
          .where('tenant_id', '=', tenantId)
          .where('lifecycle_event_count', '=', expectedCount),
      )
      return CompiledQuery.raw(text, [eventsJson, expectedCount + 1, retracted ? 1 : 0, ctxId, tenantId, expectedCount])
    },
    findIdempotencyRecord(agentId: string, idempotencyKey: string, nowMs: number, tenantId: string): CompiledQuery {
      const text = sqlOf('find-idempotency', () =>
        db
          .selectFrom('idempotency_record')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('agent_id', '=', agentId)
          .where('idempotency_key', '=', idempotencyKey)
          .where('expires_at_ms', '>', nowMs),
      )
      return CompiledQuery.raw(text, [tenantId, agentId, idempotencyKey, nowMs])
    },
    /**
     * Claims (agent, key): inserts the record, or takes over a row whose TTL has passed (RFC-ACDP-0003 §6.2).
     * A live row is left alone and nothing is written (0 rows affected): the caller's conflict.
     */
    claimIdempotencyKey(record: IdempotencyRecordTable): CompiledQuery {
      const text = sqlOf('claim', () =>
        db
          .insertInto('idempotency_record')
          .values(record)
          .onConflict((oc) =>
            oc
              .columns(['tenant_id', 'agent_id', 'idempotency_key'])
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
    /** Marks `target` superseded by `successor` only if it is still a head (0 rows affected otherwise). */
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
    /** Key revocations by signer: the type index narrows to revocations, a handful per producer. */
    listKeyRevocations(agentIds: readonly string[]): CompiledQuery {
      const text = sqlOf(`key-revocations:${agentIds.length}`, () =>
        db
          .selectFrom('context')
          .select(['ctx_id', 'agent_id', 'body_text'])
          .where('context_type', '=', 'key-revocation')
          .where('agent_id', 'in', [...agentIds]),
      )
      return CompiledQuery.raw(text, ['key-revocation', ...agentIds])
    },
    insertContext(row: Insertable<ContextTable>): CompiledQuery {
      return CompiledQuery.raw(
        sqlOf('context', () => db.insertInto('context').values(row)),
        Object.values(row),
      )
    },
    /**
     * Takes the next leaf index (PostgreSQL): increments the tree size and returns the new size (the leaf's
     * index + 1). The row lock it takes serializes appenders until commit, which keeps indexes dense.
     */
    incrementLogTreeSize(): CompiledQuery {
      const text = sqlOf('log-increment', () =>
        db
          .updateTable('log_state')
          .set((eb) => ({ tree_size: eb('tree_size', '+', 1) }))
          .where('id', '=', 1)
          .returning('tree_size'),
      )
      return CompiledQuery.raw(text, [1, 1])
    },
    /**
     * The committed tree size. SQLite has no `log_state` (migration 0007): leaves are dense from 0, so the size
     * is the last leaf index + 1, read from the end of `log_leaf`'s rowid tree.
     */
    readLogTreeSize(): CompiledQuery {
      if (kind === 'sqlite') {
        const text = sqlOf('log-size', () =>
          db.selectFrom('log_leaf').select(sql<number>`coalesce(max(leaf_index) + 1, 0)`.as('tree_size')),
        )
        return CompiledQuery.raw(text, [])
      }
      const text = sqlOf('log-size', () => db.selectFrom('log_state').select('tree_size').where('id', '=', 1))
      return CompiledQuery.raw(text, [1])
    },
    /**
     * One leaf with its context's visibility facts, all from the leaf row (migration 0008): one primary-key
     * read. No row for a leaf without facts (no context row), as the inner join on `context` answered before.
     */
    findLogLeaf(leafIndex: number): CompiledQuery {
      const text = sqlOf('log-leaf', () =>
        db
          .selectFrom('log_leaf')
          .select(['leaf_index', 'ctx_id', 'leaf_json', 'visibility', 'agent_id', 'audience_json', 'tenant_id'])
          .where('leaf_index', '=', leafIndex)
          .where('tenant_id', 'is not', null),
      )
      return CompiledQuery.raw(text, [leafIndex])
    },
    findLogNode(level: number, index: number): CompiledQuery {
      const text = sqlOf('log-node', () => db.selectFrom('log_node').select('hash').where('pos', '=', 0))
      return CompiledQuery.raw(text, [logNodePosition(level, index)])
    },
    /** Node (level, index) at its post-order position (log-node-position.ts). */
    insertLogNode(level: number, index: number, hash: Uint8Array): CompiledQuery {
      return CompiledQuery.raw(
        sqlOf('log-node-insert', () => db.insertInto('log_node').values({ pos: 0, hash })),
        [logNodePosition(level, index), hash],
      )
    },
    insertLogLeaf(row: LogLeafTable): CompiledQuery {
      return CompiledQuery.raw(
        sqlOf('log-leaf-insert', () => db.insertInto('log_leaf').values(row)),
        [row.leaf_index, row.ctx_id, row.leaf_json, row.tenant_id, row.visibility, row.agent_id, row.audience_json],
      )
    },
    // The PostgreSQL group-commit writer's supersede statements (pg-publish-writer.ts); its other batch
    // statements are in pg-batch-statements.ts.
    /**
     * Marks each `[target, successor]` pair's target superseded if it is still a head; returns the targets
     * marked. The targets are locked in ctx_id order first, so concurrent batches never lock them in a cycle.
     */
    markSupersededBatch(pairs: ReadonlyArray<readonly [string, string]>): CompiledQuery {
      return CompiledQuery.raw(
        `with v as (select * from unnest($1::text[], $2::text[]) as v(target, successor)),
          t as (select c.ctx_id, v.successor from context c join v on c.ctx_id = v.target
                where c.superseded_by is null order by c.ctx_id for update of c)
        update context c set superseded_by = t.successor from t
        where c.ctx_id = t.ctx_id and c.superseded_by is null returning c.ctx_id`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
      )
    },
    /** Undoes `markSupersededBatch` for the pairs whose publish was refused later in the same transaction. */
    unmarkSupersededBatch(pairs: ReadonlyArray<readonly [string, string]>): CompiledQuery {
      return CompiledQuery.raw(
        `update context c set superseded_by = null
        from unnest($1::text[], $2::text[]) as v(target, successor)
        where c.ctx_id = v.target and c.superseded_by = v.successor`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
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
