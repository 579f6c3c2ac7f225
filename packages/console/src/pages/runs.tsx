/** Runs: GET /runs filtered by status, scenario and start time, paged; the filters live in the URL. */
import { useState } from 'preact/hooks'
import { RUN_STATUSES, type RunPage } from '../api/types.js'
import { RunTable } from '../components/run-table.js'
import { ErrorPanel, Loading } from '../components/ui.js'
import { useApi } from '../use-api.js'

const PAGE_SIZE = 25

/** `<input type="datetime-local">` value (local time) → RFC 3339 UTC, or undefined when empty/invalid. */
function toInstant(local: string): string | undefined {
  if (local === '') return undefined
  const date = new Date(local)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

export function RunsPage({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? ''
  const scenarioId = query.get('scenario') ?? ''
  const from = query.get('from') ?? ''
  const to = query.get('to') ?? ''
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0)
  const loaded = useApi(
    (client) =>
      client.get<RunPage>('/runs', {
        status,
        scenarioId,
        startedAfter: toInstant(from),
        startedBefore: toInstant(to),
        limit: PAGE_SIZE,
        offset,
      }),
    [status, scenarioId, from, to, offset],
  )
  const [draft, setDraft] = useState({ status, scenarioId, from, to })
  const go = (next: Record<string, string | number>) => {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(next)) if (value !== '' && value !== 0) params.set(name, String(value))
    const text = params.toString()
    location.hash = `#/runs${text === '' ? '' : `?${text}`}`
  }
  const apply = (event: Event) => {
    event.preventDefault()
    go({ status: draft.status, scenario: draft.scenarioId, from: draft.from, to: draft.to })
  }
  const current = { status, scenario: scenarioId, from, to }
  const page = loaded.data
  return (
    <>
      <h1>Runs</h1>
      <form class="filters" onSubmit={apply} aria-label="Run filters">
        <label>
          Status
          <select
            value={draft.status}
            onChange={(e) => setDraft({ ...draft, status: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Scenario
          <input
            type="text"
            value={draft.scenarioId}
            onInput={(e) => setDraft({ ...draft, scenarioId: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Started from
          <input
            type="datetime-local"
            value={draft.from}
            onInput={(e) => setDraft({ ...draft, from: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Started before
          <input
            type="datetime-local"
            value={draft.to}
            onInput={(e) => setDraft({ ...draft, to: (e.target as HTMLInputElement).value })}
          />
        </label>
        <button type="submit">Apply filters</button>
      </form>
      {loaded.error && <ErrorPanel error={loaded.error} what="runs" />}
      {page === undefined ? (
        !loaded.error && <Loading what="runs" />
      ) : (
        <>
          <p class="muted" role="status" data-testid="runs-total">
            {page.total === 0
              ? 'No runs match.'
              : `Runs ${offset + 1}–${Math.min(offset + page.data.length, page.total)} of ${page.total}`}
          </p>
          <RunTable runs={page.data} caption="Runs" />
          <nav class="pager" aria-label="Run pages">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => go({ ...current, offset: Math.max(0, offset - PAGE_SIZE) })}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={offset + PAGE_SIZE >= page.total}
              onClick={() => go({ ...current, offset: offset + PAGE_SIZE })}
            >
              Next page
            </button>
            <button type="button" class="secondary" onClick={loaded.reload}>
              Refresh
            </button>
          </nav>
        </>
      )}
    </>
  )
}
