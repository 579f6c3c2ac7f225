/**
 * Test support: a loopback OTLP/HTTP trace receiver (JSON encoding, as the OpenTelemetry collector accepts it on
 * POST /v1/traces). It decodes every request into flat spans, answers 200 `{}` — or holds requests while
 * `hold()` is in force — and refuses anything that is not OTLP JSON with 400, as a collector would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** An attribute value as OTLP JSON carries it, decoded. */
export type DecodedValue = string | number | boolean | DecodedValue[] | undefined

/** One received span with its resource and scope. */
export interface DecodedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: Record<string, DecodedValue>
  links: Array<{ traceId: string; spanId: string }>
  droppedLinksCount: number
  resource: Record<string, DecodedValue>
  scope: { name: string; version?: string }
}

export interface OtlpReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT (the exporter posts to `${url}/v1/traces`). */
  url: string
  spans: DecodedSpan[]
  /** Export requests received (answered or held). */
  requests: number
  /** Headers of the last request. */
  lastHeaders: IncomingMessage['headers'] | undefined
  /** Holds every request (unanswered) until `release()`. */
  hold(): void
  release(): void
  /** Resolves once `count` spans arrived; rejects after `timeoutMs`. */
  waitForSpans(count: number, timeoutMs?: number): Promise<DecodedSpan[]>
  close(): Promise<void>
}

interface OtlpAnyValue {
  stringValue?: string
  boolValue?: boolean
  intValue?: string | number
  doubleValue?: number
  arrayValue?: { values?: OtlpAnyValue[] }
}
interface OtlpKeyValue {
  key: string
  value: OtlpAnyValue
}
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes?: OtlpKeyValue[]
  links?: Array<{ traceId: string; spanId: string }>
  droppedLinksCount?: number
}
interface OtlpRequest {
  resourceSpans: Array<{
    resource?: { attributes?: OtlpKeyValue[] }
    scopeSpans: Array<{ scope?: { name: string; version?: string }; spans: OtlpSpan[] }>
  }>
}

/** Starts a receiver on 127.0.0.1, port 0. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const held: ServerResponse[] = []
  let isHolding = false
  const waiters: Array<() => void> = []
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    requests: 0,
    lastHeaders: undefined,
    hold() {
      isHolding = true
    },
    release() {
      isHolding = false
      for (const res of held.splice(0)) answer(res, 200, '{}')
    },
    waitForSpans(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} spans, got ${receiver.spans.length}`)),
          timeoutMs,
        )
        // Checked now and after every request until enough spans arrived (a waiter runs once per request).
        const check = () => {
          if (receiver.spans.length < count) {
            waiters.push(check)
            return
          }
          clearTimeout(timer)
          resolve(receiver.spans)
        }
        check()
      })
    },
    close() {
      receiver.release()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      receiver.requests += 1
      receiver.lastHeaders = req.headers
      let decoded: DecodedSpan[]
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`unexpected ${req.method} ${req.url}`)
        if (!String(req.headers['content-type']).startsWith('application/json')) throw new Error('not JSON')
        decoded = decodeRequest(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest)
      } catch {
        answer(res, 400, '{}')
        return
      }
      receiver.spans.push(...decoded)
      for (const waiter of waiters.splice(0)) waiter()
      if (isHolding) held.push(res)
      else answer(res, 200, '{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return receiver
}

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body)
}

function decodeRequest(request: OtlpRequest): DecodedSpan[] {
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId === '' ? undefined : span.parentSpanId,
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: String(span.startTimeUnixNano),
        endTimeUnixNano: String(span.endTimeUnixNano),
        attributes: decodeAttributes(span.attributes),
        links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        droppedLinksCount: span.droppedLinksCount ?? 0,
        resource: decodeAttributes(rs.resource?.attributes),
        scope: ss.scope ?? { name: '' },
      })),
    ),
  )
}

function decodeAttributes(list: OtlpKeyValue[] | undefined): Record<string, DecodedValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeValue(kv.value)]))
}

function decodeValue(value: OtlpAnyValue): DecodedValue {
  if (value.stringValue !== undefined) return value.stringValue
  if (value.boolValue !== undefined) return value.boolValue
  if (value.intValue !== undefined) return Number(value.intValue)
  if (value.doubleValue !== undefined) return value.doubleValue
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeValue)
  return undefined
}
