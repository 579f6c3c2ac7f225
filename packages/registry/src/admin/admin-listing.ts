/**
 * `GET /admin/contexts` (product spec "Endpoints": admin bearer, playground builds only): the public contexts of
 * one tenant, newest first (`created_at` descending, then `ctx_id` ascending), in keyset pages. Restricted and
 * private contexts are never listed, whoever asks; the tenant is the admin's X-Tenant-Id, else `default`.
 *
 * Cursors are sealed like search cursors and bound to the tenant: a cursor of one tenant is `invalid_cursor` in
 * another, and it never carries anything the admin could not list.
 */
import { RegistryError } from '../core/errors.js'
import type { ListedContext, RegistryStore } from '../store/store.js'
import { deriveStatus } from '../retrieval/context-status.js'
import type { SearchCursorCodec } from '../search/search-cursor.js'

/** Page size without `limit`. */
export const DEFAULT_ADMIN_LIST_LIMIT = 50
/** Largest page; larger `limit` values are clamped. */
export const MAX_ADMIN_LIST_LIMIT = 200

const LIMIT = /^[0-9]{1,6}$/

export interface AdminListingDeps {
  store: Pick<RegistryStore, 'listPublicContexts'>
  cursors: SearchCursorCodec
  clock: () => Date
}

/** One listed context. */
export interface AdminListedContext {
  ctx_id: string
  lineage_id: string
  version: number
  type: string
  agent_id: string
  title: string
  content_hash: string
  created_at: string
  /** RFC-ACDP-0004 §4 status now (RFC-ACDP-0013 precedence). */
  status: string
  visibility: 'public'
}

export interface AdminListing {
  tenant_id: string
  contexts: AdminListedContext[]
  /** Present while more contexts follow. */
  next_cursor?: string
}

/**
 * One page of `tenantId`'s public contexts.
 *
 * @param query attacker-controlled: `limit` and `cursor` as parsed from the query string.
 * @throws RegistryError schema_violation (bad limit or cursor shape), invalid_cursor, cursor_expired.
 */
export async function listPublicContexts(
  deps: AdminListingDeps,
  tenantId: string,
  query: Record<string, unknown>,
): Promise<AdminListing> {
  const limit = readLimit(query.limit)
  const queryKey = JSON.stringify(['admin-contexts', tenantId])
  let after: { createdAtMs: number; ctxId: string } | undefined
  if (query.cursor !== undefined) {
    if (typeof query.cursor !== 'string' || query.cursor === '') {
      throw new RegistryError('schema_violation', 'cursor must be given once, non-empty.', {
        details: { parameter: 'cursor' },
      })
    }
    const opened = deps.cursors.open(query.cursor, queryKey)
    if (!opened.ok) {
      throw opened.code === 'cursor_expired'
        ? new RegistryError('cursor_expired', 'The pagination cursor has expired; start again.')
        : new RegistryError('invalid_cursor', 'The pagination cursor is not valid for this listing.')
    }
    after = opened.cursor.position
  }
  const now = deps.clock()
  const rows = await deps.store.listPublicContexts(tenantId, { ...(after ? { after } : {}), limit: limit + 1 })
  const page = rows.slice(0, limit)
  const listing: AdminListing = { tenant_id: tenantId, contexts: page.map((row) => toListed(row, now.getTime())) }
  const last = page.at(-1)
  if (rows.length > limit && last !== undefined) {
    listing.next_cursor = deps.cursors.seal(queryKey, {
      position: { createdAtMs: last.createdAtMs, ctxId: last.ctxId },
      snapshotMs: now.getTime(),
    })
  }
  return listing
}

function toListed(row: ListedContext, nowMs: number): AdminListedContext {
  return {
    ctx_id: row.ctxId,
    lineage_id: row.lineageId,
    version: row.version,
    type: row.contextType,
    agent_id: row.agentId,
    title: row.title,
    content_hash: row.contentHash,
    created_at: row.createdAt,
    status: deriveStatus(row, nowMs),
    visibility: 'public',
  }
}

function readLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_ADMIN_LIST_LIMIT
  if (typeof value !== 'string' || !LIMIT.test(value) || Number(value) < 1) {
    throw new RegistryError('schema_violation', 'limit must be a positive integer.', {
      details: { parameter: 'limit' },
    })
  }
  return Math.min(Number(value), MAX_ADMIN_LIST_LIMIT)
}
