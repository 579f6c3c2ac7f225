/**
 * Reads a control-plane SSE stream (`/events/stream`, `/runs/:runId/events/stream`) with fetch, because
 * EventSource cannot send the bearer credential. On a dropped connection it reconnects after the server's `retry:`
 * hint (1 s by default, doubling to 15 s while the server stays away) and sends `Last-Event-ID`, so the server
 * replays what was missed from stored history: no gap, no duplicate. Heartbeats and shutdown frames are consumed
 * here; only event frames reach `onEvent`.
 */
import type { ApiClient } from './client.js'
import { type SseMessage, SseParser } from './sse-parser.js'

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'stopped'

export interface EventStreamOptions {
  client: ApiClient
  /** Stream path, e.g. `/events/stream`. */
  path: string
  onEvent(frame: SseMessage): void
  onState?(state: StreamState, detail: { reconnects: number; lastEventId: string; error?: string }): void
  /** Resume after this id from the first connect (e.g. the newest event a page already loaded). */
  lastEventId?: string
}

const FIRST_RETRY_MS = 1000
const MAX_RETRY_MS = 15_000
const CONTROL_FRAMES = new Set(['heartbeat', 'shutdown'])

/** Opens the stream; returns a function that stops it for good. */
export function openEventStream(options: EventStreamOptions): () => void {
  const controller = new AbortController()
  let lastEventId = options.lastEventId ?? ''
  let reconnects = 0
  const report = (state: StreamState, error?: string) =>
    options.onState?.(state, { reconnects, lastEventId, ...(error === undefined ? {} : { error }) })

  const run = async () => {
    let delayMs = FIRST_RETRY_MS
    while (!controller.signal.aborted) {
      report(reconnects === 0 ? 'connecting' : 'reconnecting')
      const parser = new SseParser()
      try {
        const headers: Record<string, string> = { ...options.client.headers(), accept: 'text/event-stream' }
        if (lastEventId !== '') headers['last-event-id'] = lastEventId
        const response = await fetch(options.client.url(options.path), {
          headers,
          cache: 'no-store',
          signal: controller.signal,
        })
        if (response.status === 401 || response.status === 403 || response.status === 404) {
          report('stopped', `the stream was refused (${response.status})`)
          return
        }
        if (!response.ok || response.body === null) throw new Error(`stream answered ${response.status}`)
        report('live')
        delayMs = FIRST_RETRY_MS
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          for (const frame of parser.push(value)) {
            if (frame.id !== '') lastEventId = frame.id
            if (!CONTROL_FRAMES.has(frame.event)) options.onEvent(frame)
          }
        }
      } catch (error) {
        if (controller.signal.aborted) break
        report('reconnecting', (error as Error).message)
      }
      if (controller.signal.aborted) break
      reconnects += 1
      await sleep(parser.retryMs ?? delayMs, controller.signal)
      delayMs = Math.min(delayMs * 2, MAX_RETRY_MS)
    }
    report('stopped')
  }
  void run()
  return () => controller.abort()
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}
