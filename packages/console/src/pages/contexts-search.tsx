/**
 * Contexts: keyword search across the tenant's enrolled registries through GET /contexts/search (RFC-ACDP-0005
 * filters). The filters live in the route's query (`#/contexts?q=…`), so a search is a link and a reload keeps it.
 * Each registry answers in its own panel with its own "next page": a registry's cursor is sealed and bound to its
 * query, so it is passed back to that registry only, untouched. Every result opens the context page.
 */
import { useState } from 'preact/hooks'
import type { ContextSearchAnswer, RegistrySearchPage, SearchMatch } from '../api/types.js'
import { ContextLink } from '../components/context-link.js'
import { ErrorPanel, Loading, Section, StatusBadge, Time, Truncated } from '../components/ui.js'
import { href } from '../router.js'
import { useApi } from '../use-api.js'

/** The search filters of the form, in the registry's parameter names. */
const FIELDS = [
  { name: 'q', label: 'Words (title, summary, tags)', type: 'text' },
  { name: 'type', label: 'Context type', type: 'text' },
  { name: 'agent_id', label: 'Agent DID', type: 'text' },
  { name: 'tags', label: 'Tags (comma-separated)', type: 'text' },
  { name: 'created_after', label: 'Created after', type: 'datetime-local' },
  { name: 'created_before', label: 'Created before', type: 'datetime-local' },
] as const
/** Registry lifecycle states a search may filter on (RFC-ACDP-0005 §2.1 `status`, default `active`). */
const STATUSES = ['active', 'superseded', 'retracted', 'expired'] as const
const NAMES = [...FIELDS.map((f) => f.name), 'status'] as const

/** `datetime-local` gives local time without a zone; the registry wants RFC 3339 UTC. */
function toRfc3339(local: string): string {
  const date = new Date(local)
  return Number.isNaN(date.getTime()) ? local : date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

export function ContextsSearchPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(NAMES.map((name) => [name, query.get(name) ?? ''])) as Record<string, string>
  const [draft, setDraft] = useState(filters)
  const searched = NAMES.some((name) => filters[name] !== '')
  const submit = (event: Event) => {
    event.preventDefault()
    const params = new URLSearchParams(Object.entries(draft).filter(([, v]) => v !== ''))
    const text = params.toString()
    location.hash = `#/contexts${text === '' ? '' : `?${text}`}`
  }
  return (
    <>
      <h1>Contexts</h1>
      <p class="muted">
        Searches every enrolled registry of this tenant. Open a known ctx_id with the lookup box in the header.
      </p>
      <form class="filters" role="search" aria-label="Context search" onSubmit={submit}>
        {FIELDS.map((f) => (
          <label key={f.name}>
            {f.label}
            {f.type === 'datetime-local' ? (
              <input
                type="datetime-local"
                name={f.name}
                value={draft[f.name]}
                onInput={(e) => setDraft({ ...draft, [f.name]: (e.target as HTMLInputElement).value })}
              />
            ) : (
              <input
                type="text"
                name={f.name}
                value={draft[f.name]}
                onInput={(e) => setDraft({ ...draft, [f.name]: (e.target as HTMLInputElement).value })}
              />
            )}
          </label>
        ))}
        <label>
          Status
          <select
            name="status"
            value={draft['status']}
            onChange={(e) => setDraft({ ...draft, status: (e.target as HTMLSelectElement).value })}
          >
            <option value="">active (default)</option>
            {STATUSES.filter((s) => s !== 'active').map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      {searched ? (
        <Results filters={filters} />
      ) : (
        <p>
          Give a filter, or <a href={`${href('contexts')}?status=active`}>list the newest active contexts</a>.
        </p>
      )}
    </>
  )
}

function apiFilters(filters: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(filters)) {
    if (value === '') continue
    out[name] = name === 'created_after' || name === 'created_before' ? toRfc3339(value) : value
  }
  return out
}

function Results({ filters }: { filters: Record<string, string> }) {
  const key = JSON.stringify(filters)
  const loaded = useApi((client) => client.get<ContextSearchAnswer>('/contexts/search', apiFilters(filters)), [key])
  if (loaded.error) return <ErrorPanel error={loaded.error} what="search results" />
  if (loaded.data === undefined) return <Loading what="search results" />
  if (loaded.data.registries.length === 0) {
    return (
      <p class="muted">
        No enrolled registry with a base URL to search. <a href={href('registries')}>Enroll one</a>.
      </p>
    )
  }
  return (
    <>
      {loaded.data.registries.map((first) => (
        // Keyed by search too: a new search restarts every registry's paging from its first page.
        <RegistryResults key={`${first.authority} ${key}`} first={first} filters={filters} />
      ))}
    </>
  )
}

/** One registry's pages: the first from the fan-out, later ones by that registry's own cursor. */
function RegistryResults({ first, filters }: { first: RegistrySearchPage; filters: Record<string, string> }) {
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  const later = useApi(
    (client) =>
      cursor === undefined
        ? Promise.resolve(first)
        : client
            .get<ContextSearchAnswer>('/contexts/search', { ...apiFilters(filters), registry: first.authority, cursor })
            .then((answer) => answer.registries[0] ?? first),
    [cursor],
  )
  const page = later.data ?? first
  const id = `registry-${first.authority.replace(/[^a-z0-9]+/gi, '-')}`
  return (
    <Section title={`Registry ${first.authority}`} id={id}>
      {later.error && <ErrorPanel error={later.error} what="the next page" />}
      {page.outcome === 'error' ? (
        <p class="error" role="alert" data-search-error={page.error?.code}>
          This registry did not answer the search: {page.error?.message} ({page.error?.code})
        </p>
      ) : (
        <>
          <p class="muted" data-total={page.total_estimate ?? ''}>
            {page.total_estimate === null ? 'Matches' : `About ${page.total_estimate} matches`}
            {cursors.length > 0 ? ` · page ${cursors.length + 1}` : ''}
          </p>
          {page.matches.length === 0 ? (
            <p class="muted">No context matches.</p>
          ) : (
            <div class="table-scroll">
              <table class="search-results">
                <caption class="visually-hidden">Matches in {first.authority}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Title</th>
                    <th scope="col">Type</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Visibility</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Context</th>
                  </tr>
                </thead>
                <tbody>
                  {(page.matches as SearchMatch[]).map((match) => (
                    <tr key={match.ctx_id} data-match={match.ctx_id}>
                      <td class="wrap">
                        <a href={href('contexts', match.ctx_id)}>{match.title}</a>
                        {match.summary !== undefined && <div class="muted">{match.summary}</div>}
                      </td>
                      <td>{match.type}</td>
                      <td class="mono">
                        <Truncated value={match.agent_id} max={28} />
                      </td>
                      <td>{match.visibility ?? '—'}</td>
                      <td>
                        <StatusBadge status={match.status} />
                      </td>
                      <td>
                        <Time value={match.created_at} />
                      </td>
                      <td class="mono">
                        <ContextLink ctxId={match.ctx_id} max={28} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      <nav class="pager" aria-label={`Pages of ${first.authority}`}>
        {cursors.length > 0 && (
          <button type="button" class="secondary" onClick={() => setCursors([])}>
            First page
          </button>
        )}
        {page.next_cursor !== null && page.outcome === 'ok' && (
          <button type="button" onClick={() => setCursors([...cursors, page.next_cursor as string])}>
            Next page<span class="visually-hidden"> of {first.authority}</span>
          </button>
        )}
      </nav>
    </Section>
  )
}
