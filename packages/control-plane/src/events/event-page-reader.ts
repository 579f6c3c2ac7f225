/**
 * The event pages of GET /events and GET /runs/:runId/events as JSON bytes, each event's JSON written once and
 * kept in a bounded cache by store id.
 *
 * Why: a 100-event page cost ≈ 1.1 ms of CPU on PostgreSQL, most of it decoding every row and its body off the
 * wire, writing each event's JSON, then encoding the whole page text to UTF-8 again for the socket. A stored event
 * never changes (events are appended, never updated or deleted), so its JSON bytes for a given id are fixed: a
 * page now reads only its rows' (id, event_ts) from the listing index, fetches the rows of the ids it has not
 * written before, and joins the bytes. The keyset query still runs on every request, so a page always lists
 * exactly what the store holds (events committed by another instance included); only the rendering is reused.
 */
import type { ControlPlaneStore, EventQuery } from '../store/store.js'
import { encodeEventCursor } from './event-cursor.js'
import { eventJson } from './list-json.js'

/** Bytes of event JSON kept (≈ 4,000 events of a typical 1 KiB body: the newest pages of the busiest listings). */
export const EVENT_JSON_CACHE_BYTES = 4 * 1024 * 1024

export interface EventPageReader {
  /** The page of `query` (at most `query.limit` events) as `{ data, limit, nextCursor }` JSON bytes. */
  read(query: EventQuery): Promise<Buffer>
}

const PAGE_HEAD = Buffer.from('{"data":[')
const COMMA = Buffer.from(',')

export function createEventPageReader(
  store: Pick<ControlPlaneStore, 'listEventKeys' | 'getEventsById'>,
  maxBytes = EVENT_JSON_CACHE_BYTES,
): EventPageReader {
  const cache = new EventJsonCache(maxBytes)
  return {
    async read(query) {
      // One extra key tells whether another page exists.
      const keys = await store.listEventKeys({ ...query, limit: query.limit + 1 })
      const page = keys.length > query.limit ? keys.slice(0, query.limit) : keys
      const parts: Array<Buffer | undefined> = page.map((key) => cache.get(key.id))
      const missing: number[] = []
      parts.forEach((part, index) => {
        if (part === undefined) missing.push((page[index] as { id: number }).id)
      })
      if (missing.length > 0) {
        const written = new Map<number, Buffer>()
        for (const record of await store.getEventsById(query.tenantId, missing)) {
          written.set(record.id, cache.set(record.id, eventJson(record)))
        }
        for (let index = 0; index < parts.length; index++) {
          if (parts[index] !== undefined) continue
          const id = (page[index] as { id: number }).id
          const bytes = written.get(id)
          // Unreachable while events are never deleted: the listing just read this id within the tenant.
          if (bytes === undefined) throw new Error(`event ${id} was listed but could not be read`)
          parts[index] = bytes
        }
      }
      const last = page.at(-1)
      const nextCursor = keys.length > query.limit && last !== undefined ? encodeEventCursor(last) : null
      const chunks: Buffer[] = [PAGE_HEAD]
      parts.forEach((part, index) => {
        if (index > 0) chunks.push(COMMA)
        chunks.push(part as Buffer)
      })
      // The cursor is base64url: no character needs escaping.
      chunks.push(
        Buffer.from(`],"limit":${query.limit},"nextCursor":${nextCursor === null ? 'null' : `"${nextCursor}"`}}`),
      )
      return Buffer.concat(chunks)
    },
  }
}

/** An LRU of event JSON bytes by store id, bounded by the bytes it holds. */
class EventJsonCache {
  readonly #maxBytes: number
  readonly #entries = new Map<number, Buffer>()
  #bytes = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  get(id: number): Buffer | undefined {
    const bytes = this.#entries.get(id)
    if (bytes !== undefined) {
      this.#entries.delete(id)
      this.#entries.set(id, bytes)
    }
    return bytes
  }

  /** Stores `json` for `id` (evicting the least recently used) and returns its bytes. */
  set(id: number, json: string): Buffer {
    // Unpooled: a small Buffer.from() is a slice of a shared 8 KiB slab, which one cached entry would keep alive.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json))
    bytes.write(json)
    if (bytes.length > this.#maxBytes) return bytes
    const previous = this.#entries.get(id)
    if (previous !== undefined) {
      this.#entries.delete(id)
      this.#bytes -= previous.length
    }
    this.#entries.set(id, bytes)
    this.#bytes += bytes.length
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.entries().next().value
      if (oldest === undefined) break
      this.#entries.delete(oldest[0])
      this.#bytes -= oldest[1].length
    }
    return bytes
  }
}
