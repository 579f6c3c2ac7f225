/**
 * Resuming on an instance that is behind the one the client left (several instances behind a balancer): the
 * client's Last-Event-ID may be above this instance's released position, so the events between the two reach
 * this instance after the client has already received them from the other one. Whether they arrive during the
 * history replay (held, then released) or after it (dispatched live), they must not be written again: a frame at
 * or below the client's position is a repeat, and with an `id:` below the last one the stream is out of order.
 */
import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createMetrics } from '../core/metrics.js'
import { type BusEvent, createMemoryEventBus, type EventBus } from '../events/event-bus.js'
import { SseHub, type StreamHistory } from './sse.js'

/** A response whose socket and `res.write` (replay frames) both record, in one sequence, what is written. */
function recordingStream(): { res: ServerResponse; text(): string } {
  const written: string[] = []
  const record = (chunk: Buffer | string): boolean => {
    written.push(chunk.toString())
    return true
  }
  const res = {
    writableLength: 0,
    writableEnded: false,
    chunkedEncoding: false,
    socket: { destroyed: false, setNoDelay: () => undefined, write: record },
    writeHead: () => res,
    write: (chunk: string) => (chunk.startsWith(':') ? true : record(chunk)),
    end: () => {
      res.writableEnded = true
    },
    on: () => res,
    once: () => res,
    off: () => res,
    destroy: () => undefined,
  }
  return { res: res as unknown as ServerResponse, text: () => written.join('') }
}

function event(id: number): BusEvent {
  return { id: String(id), tenantId: 'acme', runId: null, type: 'a', data: JSON.stringify({ n: id }) }
}

function frameOf(e: BusEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${e.data}\n\n`
}

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

/** A hub whose store holds events 1…`latest` (released at start) and whose replay read waits for `releaseRead`. */
function startBehindHub(latest: number) {
  bus = createMemoryEventBus()
  const reads: { afterId: string; throughId: number | undefined }[] = []
  let releaseRead: () => void = () => {}
  const readGate = new Promise<void>((resolve) => {
    releaseRead = resolve
  })
  const history: StreamHistory = {
    latestId: async () => latest,
    readRange: async () => [],
    readAfter: async (query) => {
      reads.push({ afterId: query.afterId, throughId: query.throughId })
      await readGate
      // Ids after afterId and up to throughId: none when the client is ahead of this instance.
      const from = Number(query.afterId) + 1
      const through = Math.min(query.throughId ?? latest, latest)
      return Array.from({ length: Math.max(0, through - from + 1) }, (_, i) => event(from + i))
    },
  }
  hub = new SseHub({
    bus,
    history,
    metrics: createMetrics({ collectProcessMetrics: false }),
    clock: () => new Date(0),
    heartbeatMs: 60_000,
    shutdownRetryMs: 1000,
    flushIntervalMs: 0,
  })
  return { bus, hub, reads, releaseRead }
}

describe('SSE resume on an instance behind the client', () => {
  it('does not write again the events at or below Last-Event-ID that this instance releases during the replay', async () => {
    // This instance has released up to 5; the client received up to 8 from another instance.
    const { bus, hub, reads, releaseRead } = startBehindHub(5)
    await hub.ready
    const stream = recordingStream()
    hub.open(stream.res, { tenantId: 'acme', lastEventId: '8' })
    await until(() => reads.length === 1)
    expect(reads[0]).toEqual({ afterId: '8', throughId: 5 })
    // The relay catches up while the replay's read is in flight: 6…8 were delivered by the other instance.
    for (const id of [6, 7, 8, 9]) bus.publish(event(id))
    releaseRead()
    await until(() => stream.text().length > 0)
    bus.publish(event(10))
    await until(() => stream.text().includes('id: 10\n'))
    expect(stream.text()).toBe(frameOf(event(9)) + frameOf(event(10)))
  })

  it('does not write again the events at or below Last-Event-ID that this instance releases after the replay', async () => {
    const { bus, hub, reads, releaseRead } = startBehindHub(5)
    await hub.ready
    const stream = recordingStream()
    releaseRead()
    hub.open(stream.res, { tenantId: 'acme', lastEventId: '8' })
    await until(() => reads.length === 1)
    // Let the (empty) replay finish before the relay catches up.
    await new Promise((resolve) => setTimeout(resolve, 20))
    for (const id of [6, 7, 8, 9, 10]) bus.publish(event(id))
    await until(() => stream.text().includes('id: 10\n'))
    expect(stream.text()).toBe(frameOf(event(9)) + frameOf(event(10)))
  })
})
