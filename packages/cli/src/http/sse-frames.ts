/**
 * A reader for `text/event-stream` bodies (the control plane's GET /events/stream and
 * GET /runs/:runId/events/stream; WHATWG HTML "Server-sent events" parsing rules), used by `acdp watch` and
 * the end-to-end tests.
 */

/** One dispatched SSE event. `event` defaults to `message` as the standard says. */
export interface SseFrame {
  event: string
  data: string
  id?: string
}

/** Largest frame the reader accepts, in bytes; a stream that exceeds it is cut off (attacker-controlled size). */
export const MAX_SSE_FRAME_BYTES = 1_048_576

/**
 * Yields frames as they complete. Comment lines and frames without `data` are skipped; `data` lines of one
 * frame are joined with `\n`. The stream is attacker-controlled: a frame over {@link MAX_SSE_FRAME_BYTES}
 * ends the iteration with an Error rather than growing memory without bound.
 */
export async function* readSseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder()
  let buffer = ''
  let pendingCarriageReturn = false
  let event = ''
  let data: string[] = []
  let id: string | undefined
  let frameBytes = 0
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    frameBytes += chunk.byteLength
    let start = 0
    for (let index = 0; index < buffer.length; index++) {
      const char = buffer[index]
      if (char !== '\n' && char !== '\r') continue
      // "\r\n" is one line break: the "\n" right after a "\r" ends nothing.
      if (char === '\n' && pendingCarriageReturn && index === start) {
        pendingCarriageReturn = false
        start = index + 1
        continue
      }
      pendingCarriageReturn = char === '\r'
      const line = buffer.slice(start, index)
      start = index + 1
      if (line === '') {
        if (data.length > 0)
          yield { event: event === '' ? 'message' : event, data: data.join('\n'), ...(id === undefined ? {} : { id }) }
        event = ''
        data = []
        frameBytes = 0
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      let value = colon < 0 ? '' : line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
      else if (field === 'id' && !value.includes('\u0000')) id = value
    }
    buffer = buffer.slice(start)
    if (frameBytes > MAX_SSE_FRAME_BYTES) throw new Error(`event stream frame exceeds ${MAX_SSE_FRAME_BYTES} bytes`)
  }
}
