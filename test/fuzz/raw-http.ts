/**
 * One HTTP/1.1 exchange over a fresh loopback TCP connection, written byte for byte: the fuzzer needs request
 * lines, header values and bodies that no HTTP client library would agree to send (bad UTF-8 in the path,
 * conflicting framing headers, lying Content-Length). The answer is read just far enough to judge it: the
 * header block, then the body as framed by Content-Length or chunked encoding, or until the server closes.
 * Event streams are cut after their header block (they never end by themselves).
 */
import { connect } from 'node:net'

/** A request as bytes on the wire. */
export interface WireRequest {
  method: string
  /** The request target exactly as written after the method (may hold any byte but CR, LF and space). */
  target: Buffer
  /** Header lines in order; names and values are written as given (duplicates allowed). */
  headers: Array<[string, Buffer | string]>
  body: Buffer
}

/** What came back. `status` is 0 when the server closed (or the deadline passed) before a status line. */
export interface WireAnswer {
  status: number
  headerText: string
  body: Buffer
  /** True when the deadline passed with the exchange unfinished. */
  timedOut: boolean
}

/** Largest answer body kept for the oracle; the rest is read and dropped. */
const MAX_KEPT_BODY = 256 * 1024

export function encodeRequest(request: WireRequest): Buffer {
  const head: Buffer[] = [Buffer.from(`${request.method} `, 'latin1'), request.target, Buffer.from(' HTTP/1.1\r\n')]
  for (const [name, value] of request.headers) {
    head.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value)
    head.push(Buffer.from('\r\n'))
  }
  head.push(Buffer.from('\r\n'))
  return Buffer.concat([...head, request.body])
}

/** Sends `request` to 127.0.0.1:`port` and reads the first answer. Never rejects. */
export function exchange(port: number, request: WireRequest, deadlineMs: number): Promise<WireAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let received = 0
    let settled = false
    const socket = connect({ host: '127.0.0.1', port })
    const finish = (timedOut: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(parseAnswer(Buffer.concat(chunks), request.method, timedOut))
    }
    const timer = setTimeout(() => finish(true), deadlineMs)
    socket.on('connect', () => {
      // The server may answer (and close) before it has read everything: a failed write is not a finding.
      socket.write(encodeRequest(request), () => {})
      // A body shorter than its declared length would keep the server waiting for bytes that never come:
      // end the stream so it sees the truncation now rather than at its request timeout.
      if (declaredLength(request) > request.body.length || hasHeader(request, 'transfer-encoding')) socket.end()
    })
    socket.on('data', (chunk: Buffer) => {
      if (received < MAX_KEPT_BODY * 2) chunks.push(chunk)
      received += chunk.length
      if (isComplete(Buffer.concat(chunks), request.method)) finish(false)
    })
    socket.on('error', () => finish(false))
    socket.on('close', () => finish(false))
  })
}

function hasHeader(request: WireRequest, name: string): boolean {
  return request.headers.some(([n]) => n.toLowerCase() === name)
}

function declaredLength(request: WireRequest): number {
  const header = request.headers.find(([name]) => name.toLowerCase() === 'content-length')
  const value = Number(header?.[1].toString())
  return Number.isSafeInteger(value) ? value : 0
}

/** Drops interim (1xx) answers such as `100 Continue`: the final answer follows them. */
function skipInterim(bytes: Buffer): Buffer {
  let rest = bytes
  while (/^HTTP\/1\.[01] 1\d\d/.test(rest.subarray(0, 12).toString('latin1'))) {
    const end = rest.indexOf('\r\n\r\n')
    if (end === -1) break
    rest = rest.subarray(end + 4)
  }
  return rest
}

/** True once the bytes hold a whole answer (or an event stream's header block). */
function isComplete(all: Buffer, method: string): boolean {
  const bytes = skipInterim(all)
  const end = bytes.indexOf('\r\n\r\n')
  if (end === -1) return false
  const head = bytes.subarray(0, end).toString('latin1')
  const status = Number(head.slice(9, 12))
  if (/\r\ncontent-type:\s*text\/event-stream/i.test(head)) return true
  if (method === 'HEAD' || status === 204 || status === 304) return true
  const body = bytes.subarray(end + 4)
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  if (length) return body.length >= Number(length[1])
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head))
    return body.includes('\r\n0\r\n\r\n') || body.indexOf('0\r\n\r\n') === 0
  return false
}

function parseAnswer(all: Buffer, method: string, timedOut: boolean): WireAnswer {
  const bytes = skipInterim(all)
  const end = bytes.indexOf('\r\n\r\n')
  const headerText = (end === -1 ? bytes : bytes.subarray(0, end)).toString('latin1')
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(headerText)
  // Only this answer's body: a request with surplus bytes can draw a second answer on the same connection.
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(headerText)
  const bodyEnd = end + 4 + Math.min(MAX_KEPT_BODY, length ? Number(length[1]) : MAX_KEPT_BODY)
  const raw = end === -1 || method === 'HEAD' ? Buffer.alloc(0) : bytes.subarray(end + 4, bodyEnd)
  const body = /\r\ntransfer-encoding:\s*chunked/i.test(headerText) ? dechunk(raw) : raw
  return { status: match ? Number(match[1]) : 0, headerText, body, timedOut }
}

/** Joins the chunks of a chunked body (what was received of it). */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  while (at < raw.length) {
    const lineEnd = raw.indexOf('\r\n', at)
    if (lineEnd === -1) break
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16)
    if (!Number.isFinite(size) || size === 0) break
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}
