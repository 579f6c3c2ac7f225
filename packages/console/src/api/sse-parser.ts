/**
 * An incremental parser of the text/event-stream format (HTML Living Standard §9.2.6 "Interpreting an event
 * stream"): feed it decoded text in any chunking, get whole frames back. Comments, `retry:` and unknown fields are
 * handled as the standard says; an `id:` containing NUL is ignored.
 */

export interface SseMessage {
  /** The last event id in effect after this frame (the standard's "last event ID buffer"). */
  id: string
  event: string
  data: string
}

export class SseParser {
  #buffer = ''
  #lastId = ''
  #event = ''
  #data: string[] = []
  #hasData = false
  /** The previous chunk ended in \r: a \n starting the next one belongs to that line end. */
  #skipLeadingLineFeed = false
  /** The server's latest `retry:` value in ms, if any. */
  retryMs: number | undefined

  /** Parses `chunk`, returning every frame it completed. */
  push(chunk: string): SseMessage[] {
    if (chunk === '') return []
    if (this.#skipLeadingLineFeed && chunk.startsWith('\n')) chunk = chunk.slice(1)
    this.#skipLeadingLineFeed = chunk.endsWith('\r')
    this.#buffer += chunk
    const frames: SseMessage[] = []
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer)
      if (match === null) break
      const line = this.#buffer.slice(0, match.index)
      this.#buffer = this.#buffer.slice(match.index + match[0].length)
      const frame = this.#line(line)
      if (frame !== undefined) frames.push(frame)
    }
    return frames
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') this.#event = value
    else if (field === 'data') {
      this.#data.push(value)
      this.#hasData = true
    } else if (field === 'id') {
      if (!value.includes('\u0000')) this.#lastId = value
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) this.retryMs = Number(value)
    }
    return undefined
  }

  #dispatch(): SseMessage | undefined {
    const frame = this.#hasData
      ? { id: this.#lastId, event: this.#event === '' ? 'message' : this.#event, data: this.#data.join('\n') }
      : undefined
    this.#event = ''
    this.#data = []
    this.#hasData = false
    return frame
  }

  /** The last event id seen so far (sent back as Last-Event-ID on reconnect). */
  get lastEventId(): string {
    return this.#lastId
  }
}
