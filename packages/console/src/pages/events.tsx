/** Events: GET /events history with filters and cursor paging, and a live firehose toggle over /events/stream. */
import { useState } from 'preact/hooks'
import type { EventPage } from '../api/types.js'
import { ContextLink } from '../components/context-link.js'
import { EventFeed } from '../components/event-feed.js'
import { ErrorPanel, Loading, Section, Time } from '../components/ui.js'
import { href } from '../router.js'
import { useApi } from '../use-api.js'

const PAGE_SIZE = 50
const FILTERS = [
  { name: 'runId', label: 'Run id' },
  { name: 'eventType', label: 'Event type' },
  { name: 'agentId', label: 'Agent DID' },
  { name: 'registryAuthority', label: 'Registry' },
] as const

export function EventsPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTERS.map((f) => [f.name, query.get(f.name) ?? ''])) as Record<string, string>
  const cursor = query.get('cursor') ?? ''
  const [draft, setDraft] = useState(filters)
  const [live, setLive] = useState(false)
  const loaded = useApi(
    (client) => client.get<EventPage>('/events', { ...filters, cursor, limit: PAGE_SIZE }),
    [JSON.stringify(filters), cursor],
  )
  const go = (next: Record<string, string>) => {
    const params = new URLSearchParams(Object.entries(next).filter(([, v]) => v !== ''))
    const text = params.toString()
    location.hash = `#/events${text === '' ? '' : `?${text}`}`
  }
  const apply = (event: Event) => {
    event.preventDefault()
    go(draft)
  }
  const page = loaded.data
  return (
    <>
      <h1>Events</h1>
      <form class="filters" onSubmit={apply} aria-label="Event filters">
        {FILTERS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input
              type="text"
              value={draft[f.name]}
              onInput={(e) => setDraft({ ...draft, [f.name]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <button type="submit">Apply filters</button>
      </form>
      <Section title="Live firehose">
        <label class="inline">
          <input type="checkbox" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} />{' '}
          Show every new event of this tenant as it is ingested
        </label>
        {live && <EventFeed path="/events/stream" label="Firehose" />}
      </Section>
      <Section title="History">
        {loaded.error && <ErrorPanel error={loaded.error} what="events" />}
        {page === undefined ? (
          !loaded.error && <Loading what="events" />
        ) : (
          <>
            {page.data.length === 0 ? (
              <p class="muted">No events match.</p>
            ) : (
              <table>
                <caption class="visually-hidden">Event history, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Type</th>
                    <th scope="col">Run</th>
                    <th scope="col">Context</th>
                    <th scope="col">Registry</th>
                    <th scope="col">Receipt</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((event) => (
                    <tr key={event.id} data-event-id={event.id}>
                      <td>
                        <Time value={event.eventTs} />
                      </td>
                      <td>{event.eventType}</td>
                      <td>{event.runId ? <a href={href('runs', event.runId)}>{event.runId}</a> : '—'}</td>
                      <td>
                        <ContextLink ctxId={event.ctxId} />
                      </td>
                      <td>{event.registryAuthority}</td>
                      <td>{event.receiptPresent ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <nav class="pager" aria-label="Event pages">
              <button type="button" disabled={cursor === ''} onClick={() => go({ ...filters })}>
                Newest
              </button>
              <button
                type="button"
                disabled={page.nextCursor === null}
                onClick={() => go({ ...filters, cursor: page.nextCursor ?? '' })}
              >
                Older events
              </button>
            </nav>
          </>
        )}
      </Section>
    </>
  )
}
