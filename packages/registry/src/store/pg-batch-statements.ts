/**
 * The PostgreSQL publish writer's batch statements (pg-publish-writer.ts), each ONE fixed text whatever the
 * batch's size (its rows travel as arrays and are unnested), so each is prepared once per connection and sent
 * named after that (storage's named statements; the texts are in {@link PG_BATCH_TEXTS}).
 *
 * The appends are one data-modifying statement: the `log_state` step, the contexts (each with its receipt and
 * its leaf index), their side rows, the leaves and, when the writer knows the log's right edge in advance, the
 * Merkle nodes: one round trip where there were six. The sub-statements see one snapshot and the foreign keys
 * of the side rows and leaves are checked at the end of the statement, after the contexts are in.
 */
import { CompiledQuery, type Insertable } from 'kysely'
import { toContextRow } from './rows.js'
import type { ContextTable, IdempotencyRecordTable } from './schema.js'
import type { NewContext } from './store.js'

/** `claimIdempotencyKeys` as one text: records in the caller's (key) order; returns the keys claimed. */
const CLAIM_SQL = `insert into idempotency_record (tenant_id, agent_id, idempotency_key, content_hash,
    signature_algorithm, signature_key_id, signature_value, ctx_id, response_json, created_at_ms, expires_at_ms)
  select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[], $10::bigint[], $11::bigint[])
  on conflict (tenant_id, agent_id, idempotency_key) do update set content_hash = excluded.content_hash,
    signature_algorithm = excluded.signature_algorithm, signature_key_id = excluded.signature_key_id,
    signature_value = excluded.signature_value, ctx_id = excluded.ctx_id, response_json = excluded.response_json,
    created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms
  where idempotency_record.expires_at_ms <= excluded.created_at_ms
  returning tenant_id, agent_id, idempotency_key`

/**
 * The batch's appends. $1 is the number of logged publishes (the `log_state` row is neither locked nor moved
 * when it is 0); each context's `k` is its position among them (null: not logged), so its leaf index is
 * `new tree size − $1 + k`. The nodes ($31/$32) are inserted only if the log was $33 − $1 leaves long before
 * this step, the size they were computed for; the statement returns the new tree size either way.
 */
const APPEND_SQL = `with s as (
    update log_state set tree_size = tree_size + $1::bigint where id = 1 and $1::bigint > 0 returning tree_size
  ), v as (
    select * from unnest($2::text[], $3::text[], $4::integer[], $5::text[], $6::text[], $7::text[], $8::text[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
      $17::text[], $18::bigint[], $19::bigint[], $20::bigint[], $21::bigint[], $22::text[], $23::text[],
      $24::text[], $25::bigint[], $26::text[])
      as v(ctx_id, lineage_id, version, supersedes, agent_id, context_type, visibility, audience_json, title,
        summary, description, domain, schema_uri, search_text, content_hash, created_at, created_at_ms,
        expires_at_ms, data_period_start_ms, data_period_end_ms, body_text, registry_receipt, tenant_id, k,
        leaf_json)
  ), c as (
    insert into context (ctx_id, lineage_id, version, supersedes, superseded_by, agent_id, context_type,
      visibility, audience_json, title, summary, description, domain, schema_uri, search_text, content_hash,
      created_at, created_at_ms, expires_at_ms, data_period_start_ms, data_period_end_ms, body_text,
      registry_receipt, leaf_index, tenant_id)
    select ctx_id, lineage_id, version, supersedes, null, agent_id, context_type, visibility, audience_json, title,
      summary, description, domain, schema_uri, search_text, content_hash, created_at, created_at_ms,
      expires_at_ms, data_period_start_ms, data_period_end_ms, body_text, registry_receipt,
      (select tree_size from s) - $1::bigint + k, tenant_id
    from v
  ), a as (
    insert into context_audience (ctx_id, did) select * from unnest($27::text[], $28::text[])
  ), t as (
    insert into context_tag (ctx_id, tag) select * from unnest($29::text[], $30::text[])
  ), d as (
    insert into context_derived_from (ctx_id, source_ctx_id) select * from unnest($34::text[], $35::text[])
  ), l as (
    insert into log_leaf (leaf_index, ctx_id, leaf_json, tenant_id, visibility, agent_id, audience_json)
    select (select tree_size from s) - $1::bigint + k, ctx_id, leaf_json, tenant_id, visibility, agent_id,
      audience_json
    from v where k is not null
  ), n as (
    insert into log_node (pos, hash) select * from unnest($31::bigint[], $32::bytea[])
    where (select tree_size from s) = $33::bigint
  )
  select (select tree_size from s) as tree_size`

const FIND_NODES_SQL = 'select pos, hash from log_node where pos = any($1::bigint[])'
const INSERT_NODES_SQL = 'insert into log_node (pos, hash) select * from unnest($1::bigint[], $2::bytea[])'

/** Every text here: the writer's store registers them as named statements. */
export const PG_BATCH_TEXTS: readonly string[] = [CLAIM_SQL, APPEND_SQL, FIND_NODES_SQL, INSERT_NODES_SQL]

export function claimIdempotencyKeysStatement(records: readonly IdempotencyRecordTable[]): CompiledQuery {
  return CompiledQuery.raw(CLAIM_SQL, [
    records.map((r) => r.tenant_id),
    records.map((r) => r.agent_id),
    records.map((r) => r.idempotency_key),
    records.map((r) => r.content_hash),
    records.map((r) => r.signature_algorithm),
    records.map((r) => r.signature_key_id),
    records.map((r) => r.signature_value),
    records.map((r) => r.ctx_id),
    records.map((r) => r.response_json),
    records.map((r) => r.created_at_ms),
    records.map((r) => r.expires_at_ms),
  ])
}

export interface BatchAppend {
  /** The publishes written, in commit order; `logOrdinal` is each one's position among the logged (or null). */
  contexts: ReadonlyArray<{ context: NewContext; logOrdinal: number | null }>
  /** How many of them are logged. */
  logged: number
  /** Nodes computed for a log of `expectedSize` leaves before the batch; inserted only if it is that long. */
  nodes: ReadonlyArray<{ pos: number; hash: Uint8Array }>
  expectedSize: number | undefined
}

export function appendBatchStatement(batch: BatchAppend): CompiledQuery {
  const rows: Array<Insertable<ContextTable>> = batch.contexts.map(({ context }) => toContextRow(context, null))
  const column = <K extends keyof Insertable<ContextTable>>(name: K) => rows.map((r) => r[name] ?? null)
  const side = (pick: (c: NewContext) => readonly string[]) => {
    const ids: string[] = []
    const values: string[] = []
    for (const { context } of batch.contexts) {
      for (const value of pick(context)) {
        ids.push(context.ctxId)
        values.push(value)
      }
    }
    return [ids, values]
  }
  const [audienceIds, audience] = side((c) => c.audience)
  const [tagIds, tags] = side((c) => c.tags)
  const [derivedIds, derived] = side((c) => c.derivedFrom)
  return CompiledQuery.raw(APPEND_SQL, [
    batch.logged,
    column('ctx_id'),
    column('lineage_id'),
    column('version'),
    column('supersedes'),
    column('agent_id'),
    column('context_type'),
    column('visibility'),
    column('audience_json'),
    column('title'),
    column('summary'),
    column('description'),
    column('domain'),
    column('schema_uri'),
    column('search_text'),
    column('content_hash'),
    column('created_at'),
    column('created_at_ms'),
    column('expires_at_ms'),
    column('data_period_start_ms'),
    column('data_period_end_ms'),
    column('body_text'),
    column('registry_receipt'),
    column('tenant_id'),
    batch.contexts.map((c) => c.logOrdinal),
    batch.contexts.map(({ context, logOrdinal }) => (logOrdinal === null ? null : (context.logLeaf?.leafJson ?? null))),
    audienceIds,
    audience,
    tagIds,
    tags,
    batch.nodes.map((n) => n.pos),
    batch.nodes.map((n) => n.hash),
    batch.expectedSize === undefined ? -1 : batch.expectedSize + batch.logged,
    derivedIds,
    derived,
  ])
}

export function findLogNodesStatement(positions: readonly number[]): CompiledQuery {
  return CompiledQuery.raw(FIND_NODES_SQL, [[...positions]])
}

export function insertLogNodesStatement(nodes: ReadonlyArray<{ pos: number; hash: Uint8Array }>): CompiledQuery {
  return CompiledQuery.raw(INSERT_NODES_SQL, [nodes.map((n) => n.pos), nodes.map((n) => n.hash)])
}
