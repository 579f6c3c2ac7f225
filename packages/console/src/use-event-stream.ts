/** Subscribes a component to a control-plane SSE stream while it is mounted (and `enabled`). */
import { useEffect, useRef, useState } from 'preact/hooks'
import { openEventStream, type StreamState } from './api/event-stream.js'
import type { SseMessage } from './api/sse-parser.js'
import { useConsole } from './use-api.js'

export interface StreamStatus {
  state: StreamState
  reconnects: number
  lastEventId: string
  error: string | undefined
}

export function useEventStream(
  path: string,
  onEvent: (frame: SseMessage) => void,
  options: { enabled?: boolean; lastEventId?: string } = {},
): StreamStatus {
  const { client } = useConsole()
  const handler = useRef(onEvent)
  handler.current = onEvent
  const [status, setStatus] = useState<StreamStatus>({
    state: 'connecting',
    reconnects: 0,
    lastEventId: '',
    error: undefined,
  })
  const enabled = options.enabled ?? true
  useEffect(() => {
    if (!enabled) {
      setStatus((s) => ({ ...s, state: 'stopped' }))
      return
    }
    return openEventStream({
      client,
      path,
      ...(options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId }),
      onEvent: (frame) => handler.current(frame),
      onState: (state, detail) =>
        setStatus({ state, reconnects: detail.reconnects, lastEventId: detail.lastEventId, error: detail.error }),
    })
  }, [client, path, enabled])
  return status
}

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'connecting',
  live: 'live',
  reconnecting: 'reconnecting',
  stopped: 'stopped',
}

export function streamLabel(status: StreamStatus): string {
  const resumed = status.reconnects > 0 ? ` · resumed ${status.reconnects}×` : ''
  return `${STATE_TEXT[status.state]}${resumed}`
}
