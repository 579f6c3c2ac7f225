/**
 * Keyword-search queries over the registry's context tables (RFC-ACDP-0005 §2).
 *
 * Every filter and the visibility predicate are part of the SQL, never a post-filter, so a page is never
 * short because hidden rows were dropped, `total_estimate` counts only what the requester may find, and a
 * cursor can never be anchored on a row the requester cannot see (RFC-ACDP-0005 §2.5.4). Order is
 * `created_at` descending, then `ctx_id` ascending: total, so keyset pagination neither skips nor repeats.
 */
import type { Database } from '@acdp/storage'
import { type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely'
import type { RegistryDatabase } from '../store/schema.js'

/** The normalized filters of one search, as the search service hands them over. */
export interface ContextSearchFilter {
  /** Lower-cased whitespace-free terms; each must occur in the context's search text (AND of terms). */
  terms: readonly string[]
  contextType?: string
  domain?: string
  /** Tags that must all be present (exact match). */
  tags: readonly string[]
  agentId?: string
  /** Byte-exact `schema_uri`. */
  schemaUri?: string
  /** Contexts whose `derived_from` contains this ctx_id. */
  derivedFrom?: string
  /** Exclusive bounds in epoch ms (the service rounds them so that exclusivity holds for sub-ms inputs). */
  createdAfterMs?: number
  createdBeforeMs?: number
  dataPeriodStartAfterMs?: number
  dataPeriodEndBeforeMs?: number
  expiresAfterMs?: number
  expiresBeforeMs?: number
  /** RFC-ACDP-0004 §4 status the matches must have now (RFC-ACDP-0013 precedence); unknown values match nothing. */
  status: string
  /** The clock reading `expired` is judged against (RFC-ACDP-0004 §4: expired when now > expires_at). */
  nowMs: number
  /** The authenticated requester DID, or undefined for an anonymous requester (public contexts only). */
  requesterDid: string | undefined
  /** The requester's tenant: no other tenant's context is ever matched, counted or used as a cursor anchor. */
  tenantId: string
}

/** Keyset position: the sort key of the last row already served. */
export interface ContextSearchPosition {
  createdAtMs: number
  ctxId: string
}

/** One matching context, with the columns a `match_summary` needs. */
export interface ContextSearchRow {
  ctxId: string
  lineageId: string
  contextType: string
  agentId: string
  title: string
  summary: string | null
  domain: string | null
  visibility: string
  createdAt: string
  createdAtMs: number
}

/** Search reads. Safe to call concurrently; read-only. */
export interface ContextSearchStore {
  /** Up to `limit` matches after `after` (or from the start), in search order. */
  findPage(
    filter: ContextSearchFilter,
    page: { after?: ContextSearchPosition; limit: number },
  ): Promise<ContextSearchRow[]>
  /** Number of matches created at or before `snapshotMs` (the whole result set, not what remains). */
  countMatches(filter: ContextSearchFilter, snapshotMs: number): Promise<number>
}

type Eb = ExpressionBuilder<RegistryDatabase & { c: RegistryDatabase['context'] }, 'c'>

/** Creates the search reads over an open registry database (migrations applied). */
export function createContextSearchStore(database: Database<RegistryDatabase>): ContextSearchStore {
  const db: Kysely<RegistryDatabase> = database.db
  // RFC-ACDP-0005 §2.5.3 recommends ctx_id *lexicographic* ascending: byte order on both dialects, whatever the
  // PostgreSQL database's default collation is (SQLite compares text as bytes already).
  const ctxIdKey = database.kind === 'postgres' ? sql<string>`c.ctx_id collate "C"` : sql<string>`c.ctx_id`
  return {
    async findPage(filter, page) {
      const rows = await db
        .selectFrom('context as c')
        .select([
          'c.ctx_id',
          'c.lineage_id',
          'c.context_type',
          'c.agent_id',
          'c.title',
          'c.summary',
          'c.domain',
          'c.visibility',
          'c.created_at',
          'c.created_at_ms',
        ])
        .where((eb) => eb.and(matchConditions(eb, filter)))
        .$if(page.after !== undefined, (q) => q.where((eb) => afterPosition(eb, ctxIdKey, page.after!)))
        .orderBy('c.created_at_ms', 'desc')
        .orderBy(ctxIdKey, 'asc')
        .limit(page.limit)
        .execute()
      return rows.map((r) => ({
        ctxId: r.ctx_id,
        lineageId: r.lineage_id,
        contextType: r.context_type,
        agentId: r.agent_id,
        title: r.title,
        summary: r.summary,
        domain: r.domain,
        visibility: r.visibility,
        createdAt: r.created_at,
        createdAtMs: Number(r.created_at_ms),
      }))
    },

    async countMatches(filter, snapshotMs) {
      const row = await db
        .selectFrom('context as c')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where((eb) => eb.and([...matchConditions(eb, filter), eb('c.created_at_ms', '<=', snapshotMs)]))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
  }
}

/** Every predicate of a search, tenant and visibility first. */
function matchConditions(eb: Eb, f: ContextSearchFilter) {
  const conditions = [
    eb('c.tenant_id', '=', f.tenantId),
    visibleTo(eb, f.requesterDid),
    hasStatus(eb, f.status, f.nowMs),
  ]
  for (const term of f.terms) {
    conditions.push(sql<SqlBool>`${eb.ref('c.search_text')} like ${likeContains(term)} escape '\\'`)
  }
  if (f.contextType !== undefined) conditions.push(eb('c.context_type', '=', f.contextType))
  if (f.domain !== undefined) conditions.push(eb('c.domain', '=', f.domain))
  if (f.agentId !== undefined) conditions.push(eb('c.agent_id', '=', f.agentId))
  if (f.schemaUri !== undefined) conditions.push(eb('c.schema_uri', '=', f.schemaUri))
  for (const tag of f.tags) {
    conditions.push(
      eb.exists(
        eb
          .selectFrom('context_tag as t')
          .select(sql`1`.as('one'))
          .whereRef('t.ctx_id', '=', 'c.ctx_id')
          .where('t.tag', '=', tag),
      ),
    )
  }
  if (f.derivedFrom !== undefined) {
    conditions.push(
      eb.exists(
        eb
          .selectFrom('context_derived_from as d')
          .select(sql`1`.as('one'))
          .whereRef('d.ctx_id', '=', 'c.ctx_id')
          .where('d.source_ctx_id', '=', f.derivedFrom),
      ),
    )
  }
  if (f.createdAfterMs !== undefined) conditions.push(eb('c.created_at_ms', '>', f.createdAfterMs))
  if (f.createdBeforeMs !== undefined) conditions.push(eb('c.created_at_ms', '<', f.createdBeforeMs))
  if (f.dataPeriodStartAfterMs !== undefined) {
    conditions.push(eb('c.data_period_start_ms', '>', f.dataPeriodStartAfterMs))
  }
  if (f.dataPeriodEndBeforeMs !== undefined) conditions.push(eb('c.data_period_end_ms', '<', f.dataPeriodEndBeforeMs))
  if (f.expiresAfterMs !== undefined) conditions.push(eb('c.expires_at_ms', '>', f.expiresAfterMs))
  if (f.expiresBeforeMs !== undefined) conditions.push(eb('c.expires_at_ms', '<', f.expiresBeforeMs))
  return conditions
}

/**
 * RFC-ACDP-0005 §2.5.5 / §3: public to everyone allowed to search; restricted to the producer and audience;
 * private to the producer only (audience members may retrieve but never find it). Contributors grant nothing.
 */
function visibleTo(eb: Eb, requesterDid: string | undefined) {
  if (requesterDid === undefined) return eb('c.visibility', '=', 'public')
  return eb.or([
    eb('c.visibility', '=', 'public'),
    eb('c.agent_id', '=', requesterDid),
    eb.and([
      eb('c.visibility', '=', 'restricted'),
      eb.exists(
        eb
          .selectFrom('context_audience as a')
          .select(sql`1`.as('one'))
          .whereRef('a.ctx_id', '=', 'c.ctx_id')
          .where('a.did', '=', requesterDid),
      ),
    ]),
  ])
}

/**
 * RFC-ACDP-0004 §4 precedence `retracted > superseded > expired > active` (RFC-ACDP-0013 §7.2, §8.2), from the
 * stored status inputs: a retracted context matches only `status=retracted`, never active/superseded/expired.
 */
function hasStatus(eb: Eb, status: string, nowMs: number) {
  const notRetracted = eb('c.retracted', '=', 0)
  switch (status) {
    case 'active':
      return eb.and([
        notRetracted,
        eb('c.superseded_by', 'is', null),
        // Unary plus keeps this comparison off the expiry index. Nearly every context is unexpired, so the
        // index only helps a planner without statistics into a bad plan: SQLite, seeing an EXISTS filter (tag,
        // derived_from), would read every active context through both arms of this OR and sort them all,
        // instead of walking the created index until the page is full.
        eb.or([eb('c.expires_at_ms', 'is', null), sql<SqlBool>`+${eb.ref('c.expires_at_ms')} >= ${nowMs}`]),
      ])
    case 'superseded':
      return eb.and([notRetracted, eb('c.superseded_by', 'is not', null)])
    case 'expired':
      return eb.and([notRetracted, eb('c.superseded_by', 'is', null), eb('c.expires_at_ms', '<', nowMs)])
    case 'retracted':
      return eb('c.retracted', '=', 1)
    default:
      return sql<SqlBool>`1 = 0`
  }
}

/** Strictly after `p` in (created_at desc, ctx_id asc) order. */
function afterPosition(eb: Eb, ctxIdKey: RawBuilder<string>, p: ContextSearchPosition) {
  return eb.or([
    eb('c.created_at_ms', '<', p.createdAtMs),
    eb.and([eb('c.created_at_ms', '=', p.createdAtMs), eb(ctxIdKey, '>', p.ctxId)]),
  ])
}

/** A LIKE pattern matching `term` anywhere; `%`, `_` and the escape character in the term are literal. */
function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
}
