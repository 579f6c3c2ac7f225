/**
 * Retrieval and lineage reads (RFC-ACDP-0004 §2–§5). Visibility is enforced per context and a denial is always
 * `not_found` (RFC-ACDP-0004 §2.3; `visibility_denied` is logged, never sent). Responses are assembled by
 * splicing the stored body text into the envelope, so the body is served byte for byte and never re-parsed.
 */
import { LINEAGE_ID_PATTERN } from '@acdp/protocol'
import type { RegistryDeps } from '../core/deps.js'
import { RegistryError } from '../core/errors.js'
import type { StoredContext } from '../store/store.js'
import type { ContextCache } from './context-cache.js'
import { authorityOf } from '../core/context-id.js'
import { type ContextStatus, deriveStatus } from './context-status.js'
import { formatTimestamp } from '../core/timestamps.js'
import { DEFAULT_TENANT } from '../tenancy/tenancy.js'
import { canRetrieve } from './visibility.js'

const LINEAGE_ID = new RegExp(LINEAGE_ID_PATTERN)

export interface RetrievalSettings {
  authority: string
  /** `registry.cross_registry_resolution`. */
  crossRegistryResolution: boolean
}

/** Who is reading: the authenticated DID (null for an anonymous request) and the tenant the request acts in. */
export interface Reader {
  did: string | null
  /** tenancy/tenancy.ts: only this tenant's contexts exist for this reader. */
  tenant: string
}

/** One context as served: local (from the store) or foreign (from its origin registry). */
export type RetrievedContext =
  | { origin: 'local'; context: StoredContext; status: ContextStatus }
  | {
      origin: 'foreign'
      bodyText: string
      registryStateJson: string
      /** Verified origin evidence members to append (`,"registry_receipt":…`), or ''. */
      evidenceJson: string
      contentHash: string
      visibility: 'public'
    }

/**
 * Loads a context the reader may see. Foreign authorities are resolved anonymously through
 * `deps.crossRegistry` when `cross_registry_resolution` is on (public contexts only); otherwise they are 404.
 *
 * @throws RegistryError not_found | cross_registry_resolution_failed
 */
export async function retrieveContext(
  deps: RegistryDeps,
  settings: RetrievalSettings,
  cache: ContextCache,
  ctxId: string,
  reader: Reader,
): Promise<RetrievedContext> {
  if (authorityOf(ctxId) !== settings.authority) {
    if (!settings.crossRegistryResolution || !deps.crossRegistry) throw notFound()
    const foreign = await deps.crossRegistry.resolve(ctxId)
    emitRetrieved(deps, ctxId, reader, DEFAULT_TENANT)
    return {
      origin: 'foreign',
      bodyText: foreign.bodyText,
      registryStateJson: JSON.stringify(foreign.registryState),
      evidenceJson: foreign.evidenceJson,
      contentHash: foreign.contentHash,
      visibility: 'public',
    }
  }
  const nowMs = deps.clock().getTime()
  const context = await loadContext(deps, cache, ctxId, nowMs, reader.tenant)
  if (!context) throw notFound()
  if (!canRetrieve(context, reader.did)) {
    // Internal label only (RFC-ACDP-0008 §4.5); the wire answer is identical to a missing context.
    throw notFound('visibility_denied')
  }
  emitRetrieved(deps, ctxId, reader, context.tenantId)
  return { origin: 'local', context, status: deriveStatus(context, nowMs) }
}

/**
 * `GET /lineages/{lineage_id}`: every version the reader may retrieve, `version` ascending; `[]` when none is
 * visible or the lineage is unknown (no existence oracle, vis-008).
 */
export async function readLineage(
  deps: RegistryDeps,
  lineageId: string,
  reader: Reader,
): Promise<Array<{ context: StoredContext; status: ContextStatus }>> {
  assertLineageId(lineageId)
  const nowMs = deps.clock().getTime()
  const versions = await deps.store.listLineage(lineageId, reader.tenant)
  return versions
    .filter((context) => canRetrieve(context, reader.did))
    .map((context) => ({ context, status: deriveStatus(context, nowMs) }))
}

/**
 * `GET /lineages/{lineage_id}/current` (RFC-ACDP-0004 §5.2, §5.4; RFC-ACDP-0013 §8.3): the newest version that is
 * neither superseded nor retracted and that the reader may retrieve; an expired head is served as `expired`. Never
 * falls back to a superseded version.
 *
 * @throws RegistryError not_found (unknown lineage, every version superseded or retracted, or head invisible)
 */
export async function readLineageHead(
  deps: RegistryDeps,
  lineageId: string,
  reader: Reader,
): Promise<{ context: StoredContext; status: ContextStatus }> {
  assertLineageId(lineageId)
  const nowMs = deps.clock().getTime()
  const versions = await deps.store.listLineage(lineageId, reader.tenant)
  for (let i = versions.length - 1; i >= 0; i--) {
    const context = versions[i] as StoredContext
    if (context.supersededBy !== null || context.retracted) continue
    if (!canRetrieve(context, reader.did)) continue
    emitRetrieved(deps, context.ctxId, reader, context.tenantId)
    return { context, status: deriveStatus(context, nowMs) }
  }
  throw notFound()
}

/**
 * The full-retrieval envelope text `{"body":…,"registry_state":{"status":…,"lifecycle_events":[…]}}` around the
 * stored body text, with the stored receipt as the top-level `registry_receipt` member when there is one
 * (RFC-ACDP-0010 §7 rule 3: outside `body` and `registry_state`). `lifecycle_events` is omitted, never `[]`, for a
 * context without events (RFC-ACDP-0013 §4.1). `extraMembers` is pre-serialized `,"name":value` text (head receipts).
 */
export function renderContextEnvelope(
  context: Pick<StoredContext, 'bodyText' | 'lifecycleEventsJson' | 'registryReceipt'>,
  status: string,
  extraMembers = '',
): string {
  const events = context.lifecycleEventsJson === null ? '' : `,"lifecycle_events":${context.lifecycleEventsJson}`
  const receipt = context.registryReceipt === null ? '' : `,"registry_receipt":${context.registryReceipt}`
  return `{"body":${context.bodyText},"registry_state":{"status":"${status}"${events}}${receipt}${extraMembers}}`
}

/**
 * Cached read inside `tenantId`, with the status inputs refreshed when another process may have changed them. A
 * cached context of another tenant reads as absent, exactly like the store's tenant-scoped query.
 */
export async function loadContext(
  deps: RegistryDeps,
  cache: ContextCache,
  ctxId: string,
  nowMs: number,
  tenantId: string,
): Promise<StoredContext | undefined> {
  const hit = cache.get(ctxId, nowMs)
  if (hit && hit.context.tenantId !== tenantId) return undefined
  if (hit && !hit.stale) return hit.context
  if (hit) {
    const current = await deps.store.findStatusInputs(ctxId)
    if (!current) {
      cache.delete(ctxId)
      return undefined
    }
    cache.refreshStatus(ctxId, current, nowMs)
    return { ...hit.context, ...current }
  }
  const context = await deps.store.findContext(ctxId, tenantId)
  if (context) cache.set(context, nowMs)
  return context
}

function emitRetrieved(deps: RegistryDeps, ctxId: string, reader: Reader, tenantId: string): void {
  if (!deps.events.has('context_retrieved')) return
  deps.events.emit({
    type: 'context_retrieved',
    ctx_id: ctxId,
    requester_did: reader.did,
    tenant_id: tenantId,
    at: formatTimestamp(deps.clock()),
  })
}

function assertLineageId(lineageId: string): void {
  if (!LINEAGE_ID.test(lineageId)) {
    throw new RegistryError('schema_violation', 'The path does not carry a well-formed lineage_id (lin:sha256:<hex>).')
  }
}

function notFound(internalReason?: string): RegistryError {
  return new RegistryError('not_found', 'No such context.', internalReason ? { cause: internalReason } : {})
}
