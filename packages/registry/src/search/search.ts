/**
 * Keyword search, `GET /contexts/search` (RFC-ACDP-0005, profile `acdp-registry-discovery`;
 * product spec registry.md "Events" for `search_executed`).
 *
 * The query string is attacker-controlled: every parameter is validated here and a malformed one is
 * `schema_violation` (§4); unknown parameters are ignored (§2.1). Visibility is enforced inside the store query
 * (§2.5.5, §3). Pages follow `created_at` descending then `ctx_id` ascending (§2.5.3), with sealed cursors bound
 * to the normalized query (§2.5.4). `total_estimate` counts the whole result set visible to this requester up to
 * the sequence's first-page instant, so it does not fall across pages while new contexts are published.
 */
import { RegistryError } from '../core/errors.js'
import type { RegistryMetrics } from '../core/metrics.js'
import type {
  ContextSearchFilter,
  ContextSearchPosition,
  ContextSearchRow,
  ContextSearchStore,
} from './search-store.js'
import type { SearchCursorCodec } from './search-cursor.js'
import { DEFAULT_TENANT } from '../tenancy/tenancy.js'
import { searchExecutedBody } from '../webhooks/webhook-event-bodies.js'
import type { WebhookDispatcher } from '../webhooks/webhooks.js'

/** Page size when `limit` is absent. */
export const DEFAULT_SEARCH_LIMIT = 20
/** Registry cap on `limit` (RFC-ACDP-0005 §2.1 "registry-capped, typically ≤ 100"); larger values are clamped. */
export const MAX_SEARCH_LIMIT = 100
/** Longest accepted parameter value, in characters. */
const MAX_PARAMETER_CHARS = 2048
/** Most `q` terms and `tags` entries one search may carry (each becomes a SQL predicate). */
const MAX_TERMS = 32

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/
const STATUS = /^[a-z][a-z0-9_]*$/
const DID = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/
const CTX_ID =
  /^acdp:\/\/[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TAG = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/
const LIMIT = /^[0-9]{1,6}$/

/** One `match_summary` (acdp-common.schema.json, closed): optional members are omitted, never null. */
export interface MatchSummary {
  ctx_id: string
  lineage_id: string
  type: string
  agent_id: string
  title: string
  created_at: string
  status: string
  summary?: string
  domain?: string
  visibility?: string
}

/** The search response (acdp-search-response.schema.json, closed): `matches`, never `results`. */
export interface SearchResponse {
  matches: MatchSummary[]
  next_cursor?: string
  total_estimate?: number
}

/** What a search needs from the app. */
export interface SearchDeps {
  store: ContextSearchStore
  cursors: SearchCursorCodec
  clock: () => Date
  /** RFC-ACDP-0005 §2.5.5: when false, anonymous searches are refused with 403 before anything is read. */
  anonymousPublicReads: boolean
  registryAuthority: string
  webhooks?: Pick<WebhookDispatcher, 'emit'>
  metrics?: Pick<RegistryMetrics, 'recordSearch'>
  defaultLimit?: number
  maxLimit?: number
}

/** The caller's side of one search. */
export interface SearchInput {
  /** attacker-controlled: the parsed query string (values are strings, or arrays when repeated). */
  query: Record<string, unknown>
  /** The authenticated requester DID, or undefined for an anonymous request. */
  requesterDid: string | undefined
  /** The request's tenant (tenancy/tenancy.ts): the search sees only its contexts; its cursors are bound to it. */
  tenantId: string
}

/**
 * Runs one search page and emits `search_executed`.
 *
 * @throws RegistryError `not_authorized` (anonymous while anonymous reads are off), `schema_violation`
 *   (malformed parameter), `invalid_cursor`, `cursor_expired`.
 */
export async function searchContexts(deps: SearchDeps, input: SearchInput): Promise<SearchResponse> {
  try {
    const response = await runSearch(deps, input)
    deps.metrics?.recordSearch('ok')
    return response
  } catch (error) {
    deps.metrics?.recordSearch(error instanceof RegistryError ? error.code : 'internal_error')
    throw error
  }
}

async function runSearch(deps: SearchDeps, input: SearchInput): Promise<SearchResponse> {
  if (input.requesterDid === undefined && !deps.anonymousPublicReads) {
    // Refused before reading anything, so neither matches nor a count leak (fixture vis-009).
    throw new RegistryError('not_authorized', 'Authentication is required to search.')
  }
  const now = deps.clock()
  const nowMs = now.getTime()
  const parsed = parseSearchQuery(
    input.query,
    deps.defaultLimit ?? DEFAULT_SEARCH_LIMIT,
    deps.maxLimit ?? MAX_SEARCH_LIMIT,
  )
  const filter: ContextSearchFilter = {
    ...parsed.filter,
    nowMs,
    requesterDid: input.requesterDid,
    tenantId: input.tenantId,
  }
  // A cursor minted in one tenant is invalid_cursor in another (the SQL filter alone would already keep it inside).
  const queryKey = `${JSON.stringify(input.tenantId)}${parsed.queryKey}`

  let snapshotMs = nowMs
  let after: ContextSearchPosition | undefined
  if (parsed.cursor !== undefined) {
    const opened = deps.cursors.open(parsed.cursor, queryKey)
    if (!opened.ok) {
      throw opened.code === 'cursor_expired'
        ? new RegistryError('cursor_expired', 'The pagination cursor has expired; restart the search.')
        : new RegistryError('invalid_cursor', 'The pagination cursor is not valid for this search.')
    }
    snapshotMs = opened.cursor.snapshotMs
    after = opened.cursor.position
  }

  const [rows, total] = await Promise.all([
    deps.store.findPage(filter, { ...(after === undefined ? {} : { after }), limit: parsed.limit + 1 }),
    deps.store.countMatches(filter, snapshotMs),
  ])
  const page = rows.slice(0, parsed.limit)
  const response: SearchResponse = { matches: page.map((row) => toMatchSummary(row, parsed.filter.status)) }
  const last = page.at(-1)
  if (rows.length > parsed.limit && last !== undefined) {
    response.next_cursor = deps.cursors.seal(queryKey, {
      position: { createdAtMs: last.createdAtMs, ctxId: last.ctxId },
      snapshotMs,
    })
  }
  response.total_estimate = total

  deps.webhooks?.emit(
    searchExecutedBody(deps.registryAuthority, {
      query: parsed.described,
      resultCount: response.matches.length,
      requesterDid: input.requesterDid ?? null,
      at: now.toISOString(),
    }),
    input.tenantId === DEFAULT_TENANT ? {} : { tenantId: input.tenantId },
  )
  return response
}

/**
 * Every returned match is one the requester may retrieve (private only to its producer, restricted only to
 * producer and audience), so `visibility` is always disclosable (RFC-ACDP-0005 §2.2, vis-006/vis-007).
 * Every match has the filtered status, since status is a filter.
 */
function toMatchSummary(row: ContextSearchRow, status: string): MatchSummary {
  const match: MatchSummary = {
    ctx_id: row.ctxId,
    lineage_id: row.lineageId,
    type: row.contextType,
    agent_id: row.agentId,
    title: row.title,
    created_at: row.createdAt,
    status,
  }
  if (row.summary !== null) match.summary = row.summary
  if (row.domain !== null) match.domain = row.domain
  match.visibility = row.visibility
  return match
}

/** The validated, normalized form of a query string. */
interface ParsedSearchQuery {
  filter: Omit<ContextSearchFilter, 'nowMs' | 'requesterDid' | 'tenantId'>
  limit: number
  cursor: string | undefined
  /** Canonical text of the filters (never the limit or cursor): the cursor's binding. */
  queryKey: string
  /** The filters as given (present ones only), for the `search_executed` event. */
  described: Record<string, string | number>
}

/**
 * Validates and normalizes the query parameters of RFC-ACDP-0005 §2.1.
 *
 * @param query attacker-controlled.
 * @throws RegistryError `schema_violation` naming the offending parameter in `details.parameter`.
 */
export function parseSearchQuery(
  query: Record<string, unknown>,
  defaultLimit: number,
  maxLimit: number,
): ParsedSearchQuery {
  const described: Record<string, string | number> = {}
  const read = (name: string): string | undefined => {
    const value = query[name]
    if (value === undefined) return undefined
    if (typeof value !== 'string') throw malformed(name, 'must be given once, as a string')
    if (value.length > MAX_PARAMETER_CHARS) throw malformed(name, 'is too long')
    // No stored value holds U+0000 (PostgreSQL text cannot), and PostgreSQL refuses it in a query parameter.
    if (value.includes('\u0000')) throw malformed(name, 'must not contain U+0000')
    return value
  }
  const readFilter = (name: string, pattern?: RegExp): string | undefined => {
    const value = read(name)
    if (value === undefined) return undefined
    if (value === '') throw malformed(name, 'must not be empty')
    if (pattern !== undefined && !pattern.test(value)) throw malformed(name, 'is not well-formed')
    described[name] = value
    return value
  }

  const q = read('q')
  const terms = [
    ...new Set(
      (q ?? '')
        .split(/\s+/)
        .filter((t) => t !== '')
        .map((t) => t.toLowerCase()),
    ),
  ]
  if (terms.length > MAX_TERMS) throw malformed('q', `has more than ${MAX_TERMS} terms`)
  if (q !== undefined && terms.length > 0) described.q = q

  const tagsText = readFilter('tags')
  const tags = tagsText === undefined ? [] : [...new Set(tagsText.split(',').map((t) => t.trim()))].sort()
  if (tags.some((t) => !TAG.test(t) || t.length > 100)) throw malformed('tags', 'must be comma-separated tags')
  if (tags.length > MAX_TERMS) throw malformed('tags', `has more than ${MAX_TERMS} tags`)

  const status = readFilter('status', STATUS) ?? 'active'
  if (status.length > 64) throw malformed('status', 'is too long')
  described.status = status

  const time = (name: string, bound: 'lower' | 'upper') => {
    const value = readFilter(name)
    return value === undefined ? undefined : parseTimestampBound(name, value, bound)
  }
  const filter: ParsedSearchQuery['filter'] = {
    terms,
    tags,
    status,
    contextType: readFilter('type'),
    domain: readFilter('domain'),
    agentId: readFilter('agent_id', DID),
    schemaUri: readFilter('schema_uri'),
    derivedFrom: readFilter('derived_from', CTX_ID),
    createdAfterMs: time('created_after', 'lower'),
    createdBeforeMs: time('created_before', 'upper'),
    dataPeriodStartAfterMs: time('data_period_start_after', 'lower'),
    dataPeriodEndBeforeMs: time('data_period_end_before', 'upper'),
    expiresAfterMs: time('expires_after', 'lower'),
    expiresBeforeMs: time('expires_before', 'upper'),
  }
  for (const key of Object.keys(filter) as Array<keyof typeof filter>) {
    if (filter[key] === undefined) delete filter[key]
  }

  const limitText = read('limit')
  let limit = defaultLimit
  if (limitText !== undefined) {
    if (!LIMIT.test(limitText) || Number(limitText) < 1) throw malformed('limit', 'must be a positive integer')
    limit = Math.min(Number(limitText), maxLimit)
  }
  described.limit = limit

  const cursor = read('cursor')
  if (cursor === '') throw malformed('cursor', 'must not be empty')

  const queryKey = JSON.stringify([
    1,
    filter.terms,
    filter.contextType ?? null,
    filter.domain ?? null,
    filter.tags,
    filter.agentId ?? null,
    filter.schemaUri ?? null,
    filter.derivedFrom ?? null,
    filter.createdAfterMs ?? null,
    filter.createdBeforeMs ?? null,
    filter.dataPeriodStartAfterMs ?? null,
    filter.dataPeriodEndBeforeMs ?? null,
    filter.expiresAfterMs ?? null,
    filter.expiresBeforeMs ?? null,
    filter.status,
  ])
  return { filter, limit, cursor, queryKey, described }
}

/**
 * An RFC 3339 UTC timestamp (any fractional precision, RFC-ACDP-0001 §5.3) as an exclusive bound in epoch ms.
 * Stored instants are whole milliseconds, so a lower bound (`> t`) uses floor(t) and an upper bound (`< t`)
 * uses ceil(t): both keep exactly the stored instants strictly beyond t.
 */
function parseTimestampBound(name: string, value: string, bound: 'lower' | 'upper'): number {
  const match = TIMESTAMP.exec(value)
  if (match === null) throw malformed(name, 'must be an RFC 3339 UTC timestamp')
  const wholeSecondsMs = Date.parse(`${match[1]}Z`)
  // Date.parse rolls over impossible dates (2026-02-30); a round trip catches them.
  if (!Number.isFinite(wholeSecondsMs) || new Date(wholeSecondsMs).toISOString().slice(0, 19) !== match[1]) {
    throw malformed(name, 'is not a valid date and time')
  }
  const fraction = match[2] ?? ''
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'))
  const hasSubMillisecond = /[1-9]/.test(fraction.slice(3))
  return wholeSecondsMs + millis + (bound === 'upper' && hasSubMillisecond ? 1 : 0)
}

function malformed(parameter: string, problem: string): RegistryError {
  return new RegistryError('schema_violation', `Search parameter ${parameter} ${problem}.`, { details: { parameter } })
}
