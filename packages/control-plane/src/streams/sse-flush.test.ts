/**
 * The SSE hub's flush rounds are sliced: fanning one event out to many streams writes to at most a slice of
 * them per event-loop turn, so other requests are served in between, and still delivers every frame once and in
 * order. Streams here are in-memory responses (the socket path is covered by test/sse.test.ts).
 */
import type { ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { createMetrics } from '../core/metrics.js'
import { createMemoryEventBus } from '../events/event-bus.js'
import { SseHub } from './sse.js'

/** A response that records what is written to it (through the response or straight to its socket). */
function recordingResponse(): { res: ServerResponse; written: string[] } {
  const written: string[] = []
  const record = (chunk: string | Buffer) => {
    written.push(chunk.toString())
    return true
  }
  const res = {
    writableLength: 0,
    writableEnded: false,
    chunkedEncoding: false,
    socket: { destroyed: false, setNoDelay: () => undefined, write: record },
    writeHead: () => res,
    write: record,
    end: (chunk?: string) => {
      if (chunk !== undefined) written.push(chunk)
      res.writableEnded = true
    },
    on: () => res,
  }
  return { res: res as unknown as ServerResponse, written }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('SSE flush rounds', () => {
  it('write to at most one slice of streams per event-loop turn, and every frame reaches every stream once, in order', async () => {
    const bus = createMemoryEventBus()
    const hub = new SseHub({
      bus,
      history: { readAfter: async () => [], latestId: async () => 0, readRange: async () => [] },
      metrics: createMetrics({ collectProcessMetrics: false }),
      clock: () => new Date(0),
      heartbeatMs: 60_000,
      shutdownRetryMs: 1000,
      flushIntervalMs: 0,
    })
    // Events published before the hub has read its starting position are held until then (event-sequencer.ts).
    await hub.ready
    const streams = Array.from({ length: 250 }, () => recordingResponse())
    for (const stream of streams) hub.open(stream.res, { tenantId: 'acme' })
    const framesOf = (stream: { written: string[] }) => stream.written.filter((text) => text.includes('event: e'))
    const reached = () => streams.filter((stream) => framesOf(stream).length > 0).length

    bus.publish({ id: '1', tenantId: 'acme', runId: null, type: 'e', data: '{"n":1}' })
    expect(reached()).toBe(0)
    await nextTurn()
    const afterFirstTurn = reached()
    expect(afterFirstTurn).toBeGreaterThan(0)
    expect(afterFirstTurn).toBeLessThan(streams.length)
    bus.publish({ id: '2', tenantId: 'acme', runId: null, type: 'e', data: '{"n":2}' })
    // The next round waits for the flush spacing (twice the last round's duration): poll, bounded.
    for (let wait = 0; wait < 200 && streams.some((stream) => framesOf(stream).length < 2); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }

    for (const stream of streams) {
      expect(framesOf(stream).join('')).toBe('id: 1\nevent: e\ndata: {"n":1}\n\nid: 2\nevent: e\ndata: {"n":2}\n\n')
    }
    hub.close()
    await bus.close()
  })
})
