/**
 * An SSE client of the control plane's event streams (docs/control-plane/streams.md "Ordering and resume"): reads
 * frames into a ledger per client, resumes with Last-Event-ID, and tallies what a client missed or saw twice.
 */
/** What one client received: `eventId` (or the reader's `keyOf`) of each event frame and its `id:`, in arrival order, per connection. */
export interface Received {
  eventIds: string[]
  /** Frame ids of each connection (a connection's frames must ascend; the next one starts above the last). */
  frameIds: string[]
  connections: number
}

/**
 * Reads one stream until `signal` aborts or the server ends it. Returns the last frame id seen (the resume point).
 */
export async function readStream(
  baseUrl: string,
  lastEventId: string | undefined,
  into: Received,
  signal: AbortSignal,
  headers: Record<string, string>,
  keyOf: (data: Record<string, unknown>) => string = (data) => String(data['eventId']),
) {
  let lastId = lastEventId
  try {
    const answer = await fetch(`${baseUrl}/events/stream`, {
      headers: { ...headers, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
      signal,
    })
    if (answer.status !== 200 || answer.body === null) return lastId
    into.connections += 1
    const decoder = new TextDecoder()
    let text = ''
    for await (const chunk of answer.body) {
      text += decoder.decode(chunk, { stream: true })
      let end = text.indexOf('\n\n')
      while (end !== -1) {
        const lines = text.slice(0, end).split('\n')
        text = text.slice(end + 2)
        end = text.indexOf('\n\n')
        const id = lines.find((line) => line.startsWith('id: '))?.slice(4)
        const data = lines.find((line) => line.startsWith('data: '))?.slice(6)
        if (id === undefined || data === undefined) continue
        into.eventIds.push(keyOf(JSON.parse(data) as Record<string, unknown>))
        into.frameIds.push(id)
        if (id !== '') lastId = id
      }
    }
  } catch {
    // aborted by us, or the instance died
  }
  return lastId
}

/** Missing, repeated, unknown (never stored) events and frame-id inversions of what `received` got. */
export function streamFaults(received: Received, stored: string[]) {
  const counts = new Map<string, number>()
  for (const id of received.eventIds) counts.set(id, (counts.get(id) ?? 0) + 1)
  let inversions = 0
  for (let i = 1; i < received.frameIds.length; i++) {
    if (Number(received.frameIds[i]) <= Number(received.frameIds[i - 1])) inversions += 1
  }
  const storedSet = new Set(stored)
  return {
    missing: stored.filter((id) => !counts.has(id)).length,
    repeated: [...counts.values()].reduce((sum, n) => sum + n - 1, 0),
    unknown: [...counts.keys()].filter((id) => !storedSet.has(id)).length,
    inversions,
  }
}
