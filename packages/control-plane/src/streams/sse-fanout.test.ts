/**
 * The SSE hub's fan-out does its work per event and per filter group, not per stream: each event's frame is
 * serialised once however many streams receive it, streams of one filter write the same Buffer, and every stream
 * still receives exactly the frames of its filter, once, in order. Streams are in-memory responses whose socket
 * records each write (the socket path and HTTP chunk framing are covered by test/sse.test.ts).
 */
import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createMetrics } from '../core/metrics.js'
import { type BusEvent, createMemoryEventBus, type EventBus } from '../events/event-bus.js'
import { SseHub, type StreamSubscription } from './sse.js'

interface RecordedStream {
  res: ServerResponse
  /** Every chunk handed to the socket, as the Buffer object written. */
  chunks: Buffer[]
  text(): string
}

/** A response whose socket records the Buffers written to it. `unsent` is what Node would still hold. */
function recordingStream(unsent = 0): RecordedStream {
  const chunks: Buffer[] = []
  const res = {
    writableLength: unsent,
    writableEnded: false,
    chunkedEncoding: false,
    socket: {
      destroyed: false,
      setNoDelay: () => undefined,
      write: (chunk: Buffer) => {
        chunks.push(chunk)
        return true
      },
    },
    writeHead: () => res,
    // The opening comment goes through the response; it is not part of what these tests compare.
    write: () => true,
    end: () => {
      res.writableEnded = true
    },
    on: () => res,
    destroy: () => undefined,
  }
  return {
    res: res as unknown as ServerResponse,
    chunks,
    text: () => Buffer.concat(chunks).toString('utf8'),
  }
}

function event(id: number, type: string, runId: string | null = null, tenantId = 'acme'): BusEvent {
  return { id: String(id), tenantId, runId, type, data: JSON.stringify({ type, n: id }) }
}

function frameOf(e: BusEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${e.data}\n\n`
}

const metricsValue = async (metrics: ReturnType<typeof createMetrics>, name: string): Promise<number> => {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? 0
}

/** Resolves once every stream has received `expected` (bounded: fails after 2 s). */
async function until(condition: () => boolean): Promise<void> {
  for (let wait = 0; wait < 200 && !condition(); wait++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(condition()).toBe(true)
}

let hub: SseHub | undefined
let bus: EventBus | undefined

afterEach(async () => {
  hub?.close()
  await bus?.close()
  hub = undefined
  bus = undefined
})

function startHub(options: { maxBufferedBytes?: number } = {}) {
  bus = createMemoryEventBus()
  const metrics = createMetrics({ collectProcessMetrics: false })
  hub = new SseHub({
    bus,
    history: { readAfter: async () => [], latestId: async () => 0, readRange: async () => [] },
    metrics,
    clock: () => new Date(0),
    heartbeatMs: 60_000,
    shutdownRetryMs: 1000,
    flushIntervalMs: 0,
    ...options,
  })
  return { bus, hub, metrics }
}

describe('SSE fan-out', () => {
  it('serialises each event once for hundreds of streams, and each stream receives exactly its filtered frames in order', async () => {
    const { bus, hub, metrics } = startHub()
    await hub.ready
    const open = (count: number, subscription: StreamSubscription) =>
      Array.from({ length: count }, () => {
        const stream = recordingStream()
        hub.open(stream.res, subscription)
        return stream
      })
    const everything = open(120, { tenantId: 'acme' })
    const onlyB = open(60, { tenantId: 'acme', eventTypes: new Set(['b']) })
    const runOne = open(40, { tenantId: 'acme', runId: 'r1' })
    const runOneA = open(40, { tenantId: 'acme', runId: 'r1', eventTypes: new Set(['a']) })
    const otherTenant = open(30, { tenantId: 'globex' })

    const events = [
      event(1, 'a'),
      event(2, 'b', 'r1'),
      event(3, 'a', 'r1'),
      event(4, 'b', 'r2'),
      event(5, 'c', 'r1'),
      event(6, 'a', null, 'globex'),
      event(7, 'b'),
    ]
    for (const e of events) bus.publish(e)

    const expected = (filter: (e: BusEvent) => boolean) =>
      events
        .filter(filter)
        .map((e) => frameOf(e))
        .join('')
    const want = new Map<RecordedStream[], string>([
      [everything, expected((e) => e.tenantId === 'acme')],
      [onlyB, expected((e) => e.tenantId === 'acme' && e.type === 'b')],
      [runOne, expected((e) => e.tenantId === 'acme' && e.runId === 'r1')],
      [runOneA, expected((e) => e.tenantId === 'acme' && e.runId === 'r1' && e.type === 'a')],
      [otherTenant, expected((e) => e.tenantId === 'globex')],
    ])
    await until(() => [...want].every(([streams, text]) => streams.every((s) => s.text() === text)))
    for (const [streams, text] of want) for (const stream of streams) expect(stream.text()).toBe(text)

    // Seven events, seven frames: none rendered per stream or per filter.
    expect(await metricsValue(metrics, 'acdp_sse_frames_encoded_total')).toBe(events.length)
    // Streams of one filter were handed the very same Buffers.
    for (const streams of want.keys()) {
      const first = streams[0] as RecordedStream
      for (const stream of streams) {
        expect(stream.chunks.length).toBe(first.chunks.length)
        stream.chunks.forEach((chunk, index) => expect(chunk).toBe(first.chunks[index]))
      }
    }
  })

  it('a stream opened after events were released gets only later ones, then shares its filter’s writes', async () => {
    const { bus, hub } = startHub()
    await hub.ready
    const early = Array.from({ length: 5 }, () => recordingStream())
    for (const stream of early) hub.open(stream.res, { tenantId: 'acme' })
    bus.publish(event(1, 'a'))
    await until(() => early.every((s) => s.chunks.length === 1))

    const late = recordingStream()
    hub.open(late.res, { tenantId: 'acme' })
    bus.publish(event(2, 'a'))
    await until(() => late.chunks.length === 1 && early.every((s) => s.chunks.length === 2))
    bus.publish(event(3, 'a'))
    await until(() => late.chunks.length === 2 && early.every((s) => s.chunks.length === 3))

    expect(late.text()).toBe(frameOf(event(2, 'a')) + frameOf(event(3, 'a')))
    // From event 3 on the late stream is at the others' position and writes their Buffer.
    expect(late.chunks[1]).toBe(early[0]?.chunks[2])
    for (const stream of early) {
      expect(stream.text()).toBe(frameOf(event(1, 'a')) + frameOf(event(2, 'a')) + frameOf(event(3, 'a')))
    }
  })

  it('drops a stream whose unsent bytes would pass the bound and keeps writing to the rest of its filter', async () => {
    const { bus, hub, metrics } = startHub({ maxBufferedBytes: 4096 })
    await hub.ready
    const healthy = Array.from({ length: 3 }, () => recordingStream())
    const stuck = recordingStream(4090)
    for (const stream of [...healthy, stuck]) hub.open(stream.res, { tenantId: 'acme' })

    bus.publish(event(1, 'a'))
    bus.publish(event(2, 'a'))
    await until(() => healthy.every((s) => s.chunks.length > 0))

    expect(stuck.chunks).toEqual([])
    expect(hub.size).toBe(3)
    const terminated = (await metrics.registry.getMetricsAsJSON()).find(
      (m) => m.name === 'acdp_sse_streams_terminated_total',
    )
    expect(terminated?.values.find((v) => v.labels['reason'] === 'slow_client')?.value).toBe(1)
    for (const stream of healthy) expect(stream.text()).toBe(frameOf(event(1, 'a')) + frameOf(event(2, 'a')))
  })
})
