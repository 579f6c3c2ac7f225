/**
 * Events: GET /events history with filters (the event type from a picker of the five webhook event types, not
 * free text) and cursor paging, each row's stored payload on demand, and a live firehose toggle over /events/stream.
 * The reads a CLI search reports (`search_executed`, one per call) are left out unless asked for: they would crowd
 * out the publications and lifecycle events an operator comes here for.
 */
import { WEBHOOK_EVENT_HEADER_NAMES } from '@acdp/protocol/verify'
import { useState } from 'preact/hooks'
import type { EventPage, EventView } from '../api/types.js'
import { ContextLink } from '../components/context-link.js'
import { EventFeed } from '../components/event-feed.js'
import { ErrorPanel, Loading, Section, Time } from '../components/ui.js'
import { href } from '../router.js'
import { useApi } from '../use-api.js'

const PAGE_SIZE = 50
/** The webhook event types (RFC-ACDP-0007), in the order the protocol lists them. */
export const EVENT_TYPES = Object.keys(WEBHOOK_EVENT_HEADER_NAMES)
const TEXT_FILTERS = [
  { name: 'runId', label: 'Run id' },
  { name: 'agentId', label: 'Agent DID' },
  { name: 'registryAuthority', label: 'Registry' },
] as const
const FILTER_NAMES = ['runId', 'eventType', 'agentId', 'registryAuthority', 'includeReads'] as const
const READ_EVENT = 'search_executed'

export function EventsPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTER_NAMES.map((name) => [name, query.get(name) ?? ''])) as Record<
    string,
    string
  >
  const cursor = query.get('cursor') ?? ''
  const [draft, setDraft] = useState(filters)
  const [live, setLive] = useState(false)
  const { includeReads, ...apiFilters } = filters
  // Hidden by default, shown when ticked or when that very type is picked.
  const excludeEventType = includeReads === '1' || apiFilters['eventType'] === READ_EVENT ? '' : READ_EVENT
  const loaded = useApi(
    (client) => client.get<EventPage>('/events', { ...apiFilters, excludeEventType, cursor, limit: PAGE_SIZE }),
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
        <label>
          Event type
          <select
            name="eventType"
            value={draft['eventType']}
            onChange={(e) => setDraft({ ...draft, eventType: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any type</option>
            {EVENT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        {TEXT_FILTERS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input
              type="text"
              value={draft[f.name]}
              onInput={(e) => setDraft({ ...draft, [f.name]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <label class="inline">
          <input
            type="checkbox"
            checked={draft['includeReads'] === '1'}
            onChange={(e) => setDraft({ ...draft, includeReads: (e.target as HTMLInputElement).checked ? '1' : '' })}
          />{' '}
          Include search reads ({READ_EVENT})
        </label>
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
            {page.data.length === 0 ? <p class="muted">No events match.</p> : <EventTable events={page.data} />}
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

function EventTable({ events }: { events: EventView[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set())
  const toggle = (id: string) =>
    setOpen((previous) => {
      const next = new Set(previous)
      if (!next.delete(id)) next.add(id)
      return next
    })
  return (
    <div class="table-scroll">
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
            <th scope="col">Payload</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => {
            const expanded = open.has(event.id)
            const payloadId = `payload-${event.id}`
            return [
              <tr key={event.id} data-event-id={event.id} data-event-type={event.eventType}>
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
                <td>
                  <button
                    type="button"
                    class="secondary small"
                    aria-expanded={expanded}
                    aria-controls={expanded ? payloadId : undefined}
                    onClick={() => toggle(event.id)}
                  >
                    {expanded ? 'Hide' : 'Show'}
                    <span class="visually-hidden"> payload of event {event.id}</span>
                  </button>
                </td>
              </tr>,
              expanded && (
                <tr key={`${event.id}-payload`} class="payload-row">
                  <td colSpan={7}>
                    <pre id={payloadId} tabIndex={0} aria-label={`Payload of event ${event.id} as received`}>
                      {JSON.stringify(event.rawPayload, null, 2)}
                    </pre>
                  </td>
                </tr>
              ),
            ]
          })}
        </tbody>
      </table>
    </div>
  )
}
