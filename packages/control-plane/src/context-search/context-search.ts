/**
 * Search across the caller's tenant's enrolled registries (issue 23, "Contexts"): one `GET /contexts/search`
 * (RFC-ACDP-0005 §2) per enabled enrollment with a base URL, sent through the SSRF-safe outbound client (the
 * federation proxy's: HTTPS only in production, every resolved address checked and pinned, same-authority
 * redirects only, bounded body and deadline), in parallel.
 *
 * Each registry answers for itself: its `matches`, `next_cursor` and `total_estimate` are relayed as parsed,
 * unmerged, because a registry's cursor is sealed and bound to that registry's query (§2.5.4) and means nothing
 * to another. Paging one registry is the same search with `registry=<authority>&cursor=<its next_cursor>`: the
 * cursor is passed through untouched and the registry checks it. A registry that fails does not fail the search:
 * its entry says why (the registry's own error code when it answered one, else the transport category).
 *
 * An enrollment may hold a read credential for its registry (`readCredential` at enrollment, sealed at rest): that
 * registry, and only it, is then asked with `Authorization: Bearer <credential>` (registry-read.ts), so it returns
 * what the credential may see (restricted contexts whose audience names it, private ones it produced, its tenant's).
 * A registry without one is asked anonymously and returns what an anonymous reader may see (public contexts). A
 * credential the registry refuses is that registry's error entry (its own code, e.g. `not_authorized`), never a
 * failed search. The credential never leaves the registry's origin: the outbound client drops it on a redirect.
 */
import { isProtocolError, type OutboundClient } from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import type { ControlPlaneStore } from '../store/store.js'
import type { RegistrySearchPage } from '../response-schemas/context-search.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import { enrolledRegistryRead } from '../registries/registry-read.js'

/** The RFC-ACDP-0005 §2.1 filters relayed to each registry (anything else in the query string is not sent). */
export const SEARCH_FILTERS = [
  'q',
  'type',
  'domain',
  'agent_id',
  'tags',
  'status',
  'created_after',
  'created_before',
  'limit',
] as const

export type SearchFilter = (typeof SEARCH_FILTERS)[number]

export type { RegistrySearchPage }

export interface ContextSearchDeps {
  outbound: OutboundClient
  timeoutMs: number
  store: Pick<ControlPlaneStore, 'listEnrollments'>
  /** Opens each enrollment's read credential (cached; invalidated on every enroll). */
  enrollments: Pick<EnrollmentDirectory, 'get'>
  log: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
}

export interface ContextSearchInput {
  tenantId: string
  filters: Partial<Record<SearchFilter, string>>
  /** Only this registry (required with `cursor`). */
  registry?: string | undefined
  /** One registry's `next_cursor`, relayed verbatim. */
  cursor?: string | undefined
}

/** Bodies above this are refused: a page of at most 100 match summaries is far smaller. */
const MAX_SEARCH_BODY_BYTES = 1024 * 1024

/**
 * Runs the search on every enrolled registry of the tenant (or the one named).
 *
 * @throws ControlPlaneError VALIDATION_ERROR (`cursor` without `registry`), REGISTRY_NOT_FOUND (a named registry
 *   that is not an enabled enrollment of this tenant with a base URL).
 */
export async function searchEnrolledRegistries(
  deps: ContextSearchDeps,
  input: ContextSearchInput,
): Promise<{ registries: RegistrySearchPage[] }> {
  if (input.cursor !== undefined && input.registry === undefined) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'a cursor belongs to one registry: give registry=<authority> too')
  }
  const enrollments = (await deps.store.listEnrollments(input.tenantId)).filter(
    (e): e is typeof e & { baseUrl: string } => e.enabled && e.baseUrl !== null,
  )
  const wanted = input.registry?.toLowerCase()
  const targets = wanted === undefined ? enrollments : enrollments.filter((e) => e.authority === wanted)
  if (wanted !== undefined && targets.length === 0) {
    throw new ControlPlaneError(
      'REGISTRY_NOT_FOUND',
      'no enabled enrolled registry with a base URL serves this authority',
    )
  }
  const query = new URLSearchParams()
  for (const name of SEARCH_FILTERS) {
    const value = input.filters[name]
    if (value !== undefined && value !== '') query.set(name, value)
  }
  if (input.cursor !== undefined) query.set('cursor', input.cursor)
  const registries = await Promise.all(
    targets.map(async (e) => {
      // Read through the directory, which applies the same rule (enabled, this tenant, a base URL) to the entry
      // whose credential it opened: an enrollment changed since the listing is skipped, never asked with a
      // credential that no longer belongs to it.
      let target
      try {
        target = await enrolledRegistryRead(deps.enrollments, input.tenantId, e.authority)
      } catch (error) {
        // A sealed secret that does not open (its key was dropped from SECRETS_ENCRYPTION_KEY_PREVIOUS): a server
        // fault of this one enrollment, so its entry says so and the other registries are still searched.
        deps.log.error({ authority: e.authority, err: error }, 'registry search could not open the enrollment')
        return failedPage(e.authority, 'INTERNAL_ERROR', 'the enrollment could not be opened on this server', null)
      }
      if (target === undefined) return undefined
      return searchOne(
        deps,
        e.authority,
        `${target.baseUrl.replace(/\/+$/, '')}/contexts/search?${query}`,
        target.headers,
      )
    }),
  ).then((pages) => pages.filter((page): page is RegistrySearchPage => page !== undefined))
  registries.sort((a, b) => (a.authority < b.authority ? -1 : a.authority > b.authority ? 1 : 0))
  return { registries }
}

async function searchOne(
  deps: ContextSearchDeps,
  authority: string,
  url: string,
  headers: Record<string, string>,
): Promise<RegistrySearchPage> {
  const failed = (code: string, message: string, status: number | null) => failedPage(authority, code, message, status)
  let response
  try {
    response = await deps.outbound.request(url, {
      headers,
      totalTimeoutMs: deps.timeoutMs,
      maxRedirects: 3,
      maxBodyBytes: MAX_SEARCH_BODY_BYTES,
    })
  } catch (error) {
    const reason = isProtocolError(error) ? String(error.details?.['reason'] ?? error.code) : 'unknown'
    deps.log.warn({ authority, reason }, 'registry search upstream failed')
    return failed('FEDERATION_UPSTREAM_ERROR', `the registry could not be reached safely (${reason})`, null)
  }
  const parsed = parseJson(response.body)
  if (response.status !== 200) {
    // The registry's own envelope (RFC-ACDP-0003 error shape: `error.code`, `error.message`) when it sent one.
    const envelope = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
    const code = typeof envelope?.code === 'string' ? envelope.code : 'FEDERATION_UPSTREAM_ERROR'
    const message =
      typeof envelope?.message === 'string' ? envelope.message : `the registry answered ${response.status}`
    return failed(code, message.slice(0, 500), response.status)
  }
  const page = parsed as { matches?: unknown; next_cursor?: unknown; total_estimate?: unknown } | undefined
  if (page === undefined || !Array.isArray(page.matches)) {
    return failed('FEDERATION_UPSTREAM_ERROR', 'the registry answered 200 without a search response', 200)
  }
  return {
    authority,
    outcome: 'ok',
    matches: page.matches,
    next_cursor: typeof page.next_cursor === 'string' ? page.next_cursor : null,
    total_estimate:
      typeof page.total_estimate === 'number' && Number.isSafeInteger(page.total_estimate) ? page.total_estimate : null,
    error: null,
  }
}

function failedPage(authority: string, code: string, message: string, status: number | null): RegistrySearchPage {
  return {
    authority,
    outcome: 'error',
    matches: [],
    next_cursor: null,
    total_estimate: null,
    error: { code, message, status },
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown
  } catch {
    return undefined
  }
}
