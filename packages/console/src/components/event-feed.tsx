/** A live list of stream events, newest first, bounded so a busy tenant cannot grow the page without limit. */
import { useState } from 'preact/hooks'
import type { SseMessage } from '../api/sse-parser.js'
import type { StreamEvent } from '../api/types.js'
import { href } from '../router.js'
import { streamLabel, useEventStream } from '../use-event-stream.js'
import { ContextLink } from './context-link.js'
import { Time } from './ui.js'

const MAX_ITEMS = 50

export function EventFeed({
  path,
  label,
  enabled = true,
  onFrame,
}: {
  path: string
  label: string
  enabled?: boolean
  /** Called for every frame too (the dashboard re-reads its figures from it; one stream serves both). */
  onFrame?: (frame: SseMessage) => void
}) {
  const [events, setEvents] = useState<Array<StreamEvent & { frameId: string }>>([])
  const status = useEventStream(
    path,
    (frame: SseMessage) => {
      onFrame?.(frame)
      let data: StreamEvent
      try {
        data = JSON.parse(frame.data) as StreamEvent
      } catch {
        return
      }
      setEvents((previous) =>
        previous.some((e) => e.frameId === frame.id)
          ? previous
          : [{ ...data, type: data.type ?? frame.event, frameId: frame.id }, ...previous].slice(0, MAX_ITEMS),
      )
    },
    { enabled },
  )
  return (
    <div class="feed">
      <p class="feed-status" data-state={status.state} data-reconnects={status.reconnects}>
        <span class={`dot dot-${status.state}`} aria-hidden="true" /> {label}: {streamLabel(status)}
      </p>
      {events.length === 0 ? (
        <p class="muted">No events yet; new ones appear here as they are ingested.</p>
      ) : (
        <ol class="feed-list" aria-live="polite" aria-label={label}>
          {events.map((event) => (
            <li key={event.frameId} data-event-id={event.frameId}>
              <Time value={event.ts} /> <strong>{event.type}</strong>{' '}
              {event.runId && (
                <>
                  run <a href={href('runs', event.runId)}>{event.runId}</a>{' '}
                </>
              )}
              {event.ctxId && <ContextLink ctxId={event.ctxId} max={60} />}
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}
