/**
 * OpenTelemetry export of runs, end to end: signed deliveries through POST /ingest/acdp, the real SDK and OTLP/HTTP
 * exporter, and a loopback OTLP receiver that decodes what arrives (test/support/otlp-receiver.ts).
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AddressInfo } from 'node:net'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { type DecodedSpan, type OtlpReceiver, startOtlpReceiver } from './support/otlp-receiver.js'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { openTestApp, type TestApp } from './support/test-app.js'

const [sqlite] = testDatabaseTargets()
if (sqlite === undefined) throw new Error('the SQLite test target is always present')

/** Environment exporting to `url` with a short batch delay, so exports happen within the test. */
function otelEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: '20', ...extra }
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function byCtx(spans: DecodedSpan[], ctxId: unknown): DecodedSpan {
  const span = spans.find((s) => s.attributes['acdp.ctx_id'] === ctxId && s.name.startsWith('context_published'))
  if (span === undefined) throw new Error(`no span for ${String(ctxId)}`)
  return span
}

describe('OpenTelemetry export of runs', () => {
  const opened: TestApp[] = []
  let receiver: OtlpReceiver | undefined
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close()
    await receiver?.close()
    receiver = undefined
  })
  async function open(env: Record<string, string>): Promise<TestApp> {
    const t = await openTestApp(sqlite as NonNullable<typeof sqlite>, env)
    opened.push(t)
    return t
  }

  it('exports a run as one trace: a span per event, parented along derived_from, with acdp.* attributes', async () => {
    receiver = await startOtlpReceiver()
    const t = await open(otelEnv(receiver.url, { OTEL_SERVICE_NAME: 'cp-under-test' }))
    const root = publishedEvent({ run_id: 'run-otel', registry_receipt: { sig: 'x' } })
    const other = publishedEvent({ run_id: 'run-otel' })
    const child = publishedEvent({ run_id: 'run-otel', derived_from: [root.ctx_id, other.ctx_id] })
    const read = retrievedEvent({ run_id: 'run-otel', ctx_id: child.ctx_id })
    for (const body of [root, other, child, read])
      expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)

    const spans = await receiver.waitForSpans(4)
    expect(spans).toHaveLength(4)
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1)
    const [rootSpan, otherSpan, childSpan] = [
      byCtx(spans, root.ctx_id),
      byCtx(spans, other.ctx_id),
      byCtx(spans, child.ctx_id),
    ]
    const readSpan = spans.find((s) => s.name === 'context_retrieved')
    expect(rootSpan.parentSpanId).toBeUndefined()
    expect(childSpan.parentSpanId).toBe(rootSpan.spanId)
    expect(childSpan.links).toEqual([{ traceId: childSpan.traceId, spanId: otherSpan.spanId }])
    expect(readSpan?.parentSpanId).toBe(childSpan.spanId)
    expect(rootSpan).toMatchObject({
      name: 'context_published analysis',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      attributes: {
        'acdp.ctx_id': root.ctx_id,
        'acdp.lineage_id': root.lineage_id,
        'acdp.agent_did': root.agent_id,
        'acdp.registry': 'reg.example',
        'acdp.receipt_present': true,
        'acdp.verified': true,
        'acdp.run_id': 'run-otel',
        'gen_ai.agent.id': root.agent_id,
        'gen_ai.conversation.id': 'run-otel',
      },
      resource: { 'service.name': 'cp-under-test' },
      scope: { name: '@acdp/control-plane' },
    })
    expect(otherSpan.attributes['acdp.receipt_present']).toBe(false)
    // Start = the event's created_at; end = arrival on the (fixed) test clock.
    expect(BigInt(rootSpan.startTimeUnixNano)).toBe(BigInt(Date.parse(String(root.created_at))) * 1_000_000n)
    expect(BigInt(rootSpan.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(rootSpan.startTimeUnixNano))
    await t.app.close()
    expect(await t.counter('acdp_otel_spans_exported_total', {})).toBe(4)
  })

  it('references a parent exported earlier by another instance: the ids are derived, not remembered', async () => {
    receiver = await startOtlpReceiver()
    const first = await open(otelEnv(receiver.url))
    const parent = publishedEvent({ run_id: 'run-shared' })
    expect((await first.app.inject(signedDelivery(parent))).statusCode).toBe(204)
    await receiver.waitForSpans(1)
    const second = await open(otelEnv(receiver.url))
    const child = publishedEvent({ run_id: 'run-shared', derived_from: [parent.ctx_id] })
    expect((await second.app.inject(signedDelivery(child))).statusCode).toBe(204)
    const spans = await receiver.waitForSpans(2)
    expect(byCtx(spans, child.ctx_id).parentSpanId).toBe(byCtx(spans, parent.ctx_id).spanId)
    expect(byCtx(spans, child.ctx_id).traceId).toBe(byCtx(spans, parent.ctx_id).traceId)
  })

  it('sends the configured OTLP headers and never exports a duplicate delivery twice', async () => {
    receiver = await startOtlpReceiver()
    const t = await open(otelEnv(receiver.url, { OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cret%20value' }))
    const body = publishedEvent({ run_id: 'run-dup' })
    expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)
    expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)
    await t.app.close() // flushes
    expect(receiver.spans).toHaveLength(1)
    expect(receiver.lastHeaders?.['x-collector-token']).toBe('s3cret value')
  })

  it('keeps ingesting while the collector is down, and counts the spans it drops', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`
    const t = await open(otelEnv(url, { OTEL_EXPORTER_OTLP_TIMEOUT: '200' }))
    for (let i = 0; i < 3; i++) {
      expect((await t.app.inject(signedDelivery(publishedEvent({ run_id: 'run-down' })))).statusCode).toBe(204)
    }
    await t.app.close() // flushes
    expect(await t.counter('acdp_otel_spans_dropped_total', { reason: 'export_failed' })).toBe(3)
    expect(await t.counter('acdp_otel_spans_exported_total', {})).toBe(0)
    expect((await t.store.listEvents({ tenantId: 'default', order: 'asc', limit: 10 })).length).toBe(3)
  })

  it('drops (and counts) spans beyond the queue bound instead of buffering them while the collector stalls', async () => {
    receiver = await startOtlpReceiver()
    receiver.hold()
    const t = await open(otelEnv(receiver.url, { OTEL_BSP_MAX_QUEUE_SIZE: '2', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1' }))
    for (let i = 0; i < 5; i++) {
      expect((await t.app.inject(signedDelivery(publishedEvent({ run_id: 'run-stall' })))).statusCode).toBe(204)
    }
    // One span is in the held request, one waits in the queue: the other three were dropped at once.
    expect(await t.counter('acdp_otel_spans_dropped_total', { reason: 'queue_full' })).toBe(3)
    receiver.release()
    await receiver.waitForSpans(2)
    await t.app.close()
    expect(await t.counter('acdp_otel_spans_exported_total', {})).toBe(2)
  })

  it('opens no exporter and exports nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
    receiver = await startOtlpReceiver()
    const t = await open({ OTEL_SERVICE_NAME: 'ignored-without-endpoint' })
    expect(t.config.telemetry).toBeUndefined()
    expect((await t.app.inject(signedDelivery(publishedEvent({ run_id: 'run-off' })))).statusCode).toBe(204)
    await t.app.close()
    expect(receiver.requests).toBe(0)
    expect(await t.counter('acdp_otel_spans_dropped_total', { reason: 'shutdown' })).toBe(0)
  })

  it('loads the SDK only through the dynamic import: no static import chain from the entry points reaches it', () => {
    const reached = staticImportClosure(['src/index.ts', 'src/main.ts'])
    const offenders = [...reached].filter(([, specifiers]) => specifiers.some((s) => s.startsWith('@opentelemetry/')))
    expect(offenders.map(([file]) => file)).toEqual([])
    expect([...reached.keys()]).toContain('src/telemetry/run-traces.ts')
    expect([...reached.keys()]).not.toContain('src/telemetry/otlp-run-exporter.ts')
  })
})

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * Files reachable from `entries` through static `import … from` / `export … from` / side-effect imports (not
 * `import()`), each with the bare specifiers it imports statically.
 */
function staticImportClosure(entries: string[]): Map<string, string[]> {
  const reached = new Map<string, string[]>()
  const pending = [...entries]
  while (pending.length > 0) {
    const file = pending.pop() as string
    if (reached.has(file)) continue
    const text = readFileSync(join(PACKAGE_ROOT, file), 'utf8')
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gms),
    ].map((m) => (m[1] ?? m[2]) as string)
    reached.set(
      file,
      specifiers.filter((s) => !s.startsWith('.')),
    )
    for (const s of specifiers.filter((s) => s.startsWith('.'))) {
      pending.push(join(dirname(file), s).replace(/\.js$/, '.ts'))
    }
  }
  return reached
}
