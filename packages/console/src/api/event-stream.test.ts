/**
 * The stream reader against a scripted fetch: frames reach onEvent (heartbeats do not), a dropped connection is
 * retried after the server's retry hint with Last-Event-ID, and refusals stop it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiClient } from './client.js'
import { openEventStream, type StreamState } from './event-stream.js'
import type { SseMessage } from './sse-parser.js'

function streamOf(text: string): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text))
      controller.close()
    },
  })
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })
}

describe('openEventStream', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('delivers event frames, reconnects with Last-Event-ID after a drop, and stops when asked', async () => {
    const calls: Array<Record<string, string>> = []
    const answers = [
      streamOf('retry: 5\n\nid: 1\nevent: context_published\ndata: {"n":1}\n\nevent: heartbeat\ndata: {}\n\n'),
      streamOf('retry: 5\n\nid: 2\nevent: context_published\ndata: {"n":2}\n\n'),
    ]
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      calls.push(init.headers as Record<string, string>)
      const next = answers.shift()
      if (next === undefined) return new Promise<Response>(() => {})
      return next
    })
    const frames: SseMessage[] = []
    const states: Array<[StreamState, number]> = []
    const stop = openEventStream({
      client: new ApiClient('key-0123456789'),
      path: '/events/stream',
      onEvent: (frame) => frames.push(frame),
      onState: (state, detail) => states.push([state, detail.reconnects]),
    })
    await vi.waitFor(() => expect(frames).toHaveLength(2), { timeout: 2000 })
    stop()
    expect(frames.map((f) => [f.id, f.event, f.data])).toEqual([
      ['1', 'context_published', '{"n":1}'],
      ['2', 'context_published', '{"n":2}'],
    ])
    expect(calls[0]).toMatchObject({ authorization: 'Bearer key-0123456789', accept: 'text/event-stream' })
    expect(calls[0]).not.toHaveProperty('last-event-id')
    expect(calls[1]).toMatchObject({ 'last-event-id': '1' })
    expect(states).toContainEqual(['reconnecting', 1])
  })

  it('stops for good on 401 instead of retrying a refused credential', async () => {
    const fetch = vi.fn(async () => new Response('{}', { status: 401 }))
    vi.stubGlobal('fetch', fetch)
    const states: StreamState[] = []
    openEventStream({
      client: new ApiClient('bad-key-0123456789'),
      path: '/events/stream',
      onEvent: () => {},
      onState: (state) => states.push(state),
    })
    await vi.waitFor(() => expect(states.at(-1)).toBe('stopped'), { timeout: 2000 })
    expect(fetch).toHaveBeenCalledTimes(1)
  })
})
