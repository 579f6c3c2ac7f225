import { describe, expect, it } from 'vitest'
import type { EventQuery, EventRecord } from '../store/store.js'
import { encodeEventCursor } from './event-cursor.js'
import { createEventPageReader } from './event-page-reader.js'
import { eventPageJson } from './list-json.js'

const T = Date.UTC(2026, 11, 3, 12, 0, 0)

function record(id: number, overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    id,
    tenantId: 'tenant-a',
    eventId: `e-${id}`,
    type: 'context_published',
    eventTs: T + id,
    receivedAt: T + id + 1,
    runId: 'run-1',
    ctxId: `acdp://reg.example/c-${id}`,
    lineageId: null,
    agentId: 'did:key:z6Mk',
    contextType: 'analysis',
    visibility: 'public',
    version: 1,
    derivedFrom: [],
    registryAuthority: 'reg.example',
    scenarioId: null,
    keyFingerprint: null,
    receiptPresent: false,
    rawPayload: `{"n":${id},"s":"é \\u2028 q\\"x"}`,
    ...overrides,
  }
}

/** A store over `records` (newest first), counting the rows it reads by id. */
function fakeStore(records: EventRecord[]) {
  const reads: number[][] = []
  return {
    reads,
    async listEventKeys(query: EventQuery) {
      return records
        .filter((r) => r.tenantId === query.tenantId)
        .slice(0, query.limit)
        .map((r) => ({ id: r.id, eventTs: r.eventTs }))
    },
    async getEventsById(tenantId: string, ids: readonly number[]) {
      reads.push([...ids])
      return records.filter((r) => r.tenantId === tenantId && ids.includes(r.id)).reverse()
    },
  }
}

const query = (limit: number): EventQuery => ({ tenantId: 'tenant-a', order: 'desc', limit })

describe('event page reader', () => {
  it('writes the bytes eventPageJson writes for the same rows, with the next cursor after the last row', async () => {
    const records = [5, 4, 3, 2, 1].map((id) => record(id))
    const reader = createEventPageReader(fakeStore(records))
    const page = await reader.read(query(3))
    const expected = eventPageJson({
      events: records.slice(0, 3),
      limit: 3,
      nextCursor: encodeEventCursor({ eventTs: T + 3, id: 3 }),
    })
    expect(page.equals(Buffer.from(expected))).toBe(true)
    const last = await reader.read(query(10))
    expect(last.toString('utf8')).toBe(eventPageJson({ events: records, limit: 10, nextCursor: null }))
    const empty = await createEventPageReader(fakeStore([])).read(query(10))
    expect(empty.toString('utf8')).toBe('{"data":[],"limit":10,"nextCursor":null}')
  })

  it('reads each event row once while it stays cached, and again once evicted', async () => {
    const records = [3, 2, 1].map((id) => record(id))
    const store = fakeStore(records)
    const oneEvent = Buffer.byteLength(eventPageJson({ events: [records[0]!], limit: 1, nextCursor: null })) - 39
    // Room for two events' JSON (each ≈ oneEvent bytes), not three.
    const reader = createEventPageReader(store, 2 * oneEvent + 10)
    await reader.read(query(2))
    await reader.read(query(2))
    expect(store.reads).toEqual([[3, 2]])
    await reader.read(query(3))
    expect(store.reads).toEqual([[3, 2], [1]])
    // Adding event 1 evicted the least recently used (event 3); event 2 stays.
    await reader.read(query(2))
    expect(store.reads).toEqual([[3, 2], [1], [3]])
  })

  it('fails rather than serve a page with a row the store no longer returns', async () => {
    const store = fakeStore([record(2), record(1)])
    const reader = createEventPageReader({ ...store, getEventsById: async () => [record(2)] })
    await expect(reader.read(query(2))).rejects.toThrow('event 1 was listed but could not be read')
  })
})
