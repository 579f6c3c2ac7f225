/**
 * Mapping between the store's domain records (store.ts) and the registry's table rows (schema.ts), shared by
 * the Kysely store and the SQLite group-commit writer.
 *
 * The row builders emit members in a fixed order with no `undefined` member, so `Object.values(row)` is exactly
 * the parameter list of an INSERT compiled from a row of the same shape (publish-statements.ts relies on it).
 */
import type { Insertable, Selectable } from 'kysely'
import type { ContextTable, IdempotencyRecordTable, LogLeafTable } from './schema.js'
import type { IdempotencyRecord, NewContext, StoredContext } from './store.js'

/** The `context` columns a StoredContext is read from. */
export const CONTEXT_COLUMNS = [
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
  'registry_receipt',
  'leaf_index',
  'lifecycle_events_json',
  'retracted',
  'tenant_id',
] as const

export type ContextRow = Pick<Selectable<ContextTable>, (typeof CONTEXT_COLUMNS)[number]>

export function toStoredContext(row: ContextRow): StoredContext {
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
    registryReceipt: row.registry_receipt,
    leafIndex: row.leaf_index === null ? null : Number(row.leaf_index),
    retracted: Number(row.retracted) === 1,
    lifecycleEventsJson: row.lifecycle_events_json,
    tenantId: row.tenant_id,
  }
}

/**
 * A producer string as a search column: U+0000 becomes U+FFFD. The schema allows any string, but PostgreSQL text
 * cannot hold U+0000 (the insert failed); the body (`body_text`, JSON with the escape) keeps the exact value, and
 * both backends store the same columns.
 */
export function searchable<T extends string | null>(value: T): T {
  return (value === null || !value.includes('\u0000') ? value : value.replaceAll('\u0000', '\ufffd')) as T
}

/** The `log_leaf` row of a new context's leaf: the leaf text plus the context's visibility facts (migration 0008). */
export function toLogLeafRow(c: NewContext, leafIndex: number, leafJson: string): LogLeafTable {
  return {
    leaf_index: leafIndex,
    ctx_id: c.ctxId,
    leaf_json: leafJson,
    tenant_id: c.tenantId,
    visibility: c.visibility,
    agent_id: c.agentId,
    audience_json: JSON.stringify(c.audience),
  }
}

/** The `context` row of a new context, search columns derived; `leafIndex` is assigned in the transaction, lifecycle columns take their defaults. */
export function toContextRow(c: NewContext, leafIndex: number | null): Insertable<ContextTable> {
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
    title: searchable(c.title),
    summary: searchable(c.summary),
    description: searchable(c.description),
    domain: searchable(c.domain),
    schema_uri: searchable(c.schemaUri),
    search_text: searchable(
      [c.title, c.summary, c.description, ...c.tags, c.contextType, c.domain, c.agentId]
        .filter((part): part is string => typeof part === 'string' && part !== '')
        .join('\n')
        .toLowerCase(),
    ),
    content_hash: c.contentHash,
    created_at: c.createdAt,
    created_at_ms: c.createdAtMs,
    expires_at_ms: c.expiresAtMs,
    data_period_start_ms: c.dataPeriodStartMs,
    data_period_end_ms: c.dataPeriodEndMs,
    body_text: c.bodyText,
    registry_receipt: c.registryReceipt,
    leaf_index: leafIndex,
    tenant_id: c.tenantId,
  }
}

export function fromIdempotencyRecord(r: IdempotencyRecord): IdempotencyRecordTable {
  return {
    tenant_id: r.tenantId,
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

export function toIdempotencyRecord(row: Selectable<IdempotencyRecordTable>): IdempotencyRecord {
  return {
    tenantId: row.tenant_id,
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
