/**
 * OpenTelemetry demo (docs/control-plane/opentelemetry.md): runs a control plane in-process with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback OTLP/HTTP receiver started here, delivers one signed
 * multi-agent run to it the way a registry would (a plan, two research contexts derived from it, a draft derived
 * from both, a review, a retrieval, a second draft, a retraction), and writes what the receiver decoded:
 *
 *   $OUT_DIR/otel-demo-spans.json   the spans as received (OTLP JSON, decoded to one object per span)
 *   $OUT_DIR/otel-demo-trace.html   a waterfall of the trace, in the manner of Jaeger's trace view
 *   $OUT_DIR/otel-demo-trace.png    a screenshot of that page (Debian's /usr/bin/chromium, when installed)
 *
 * It stands in for a Jaeger screenshot: no Jaeger all-in-one binary is available from this project's package
 * sources (neither Debian nor npm ships one). Point OTEL_EXPORTER_OTLP_ENDPOINT at a real Jaeger
 * (`http://localhost:4318`) to see the same trace there.
 *
 *   npm run build && node bench/otel-demo.ts [OUT_DIR]        (default OUT_DIR: docs/control-plane/images)
 *
 * Loopback only; stops by itself.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const OUT_DIR = resolve(process.argv[2] ?? 'docs/control-plane/images')
const SECRET = 'otel-demo-webhook-secret-0123456789'
const AUTHORITY = 'registry.demo.example'
const RUN_ID = 'run-market-brief-0042'

interface Span {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  startMs: number
  endMs: number
  attributes: Record<string, unknown>
  links: Array<{ spanId: string }>
  service: string
}

type OtlpValue = { stringValue?: string; boolValue?: boolean; intValue?: string; arrayValue?: { values: OtlpValue[] } }

function valueOf(v: OtlpValue): unknown {
  if (v.arrayValue) return v.arrayValue.values.map(valueOf)
  return v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined)
}

/** A loopback OTLP/HTTP JSON receiver that keeps every span. */
async function startReceiver(): Promise<{ url: string; spans: Span[]; close(): Promise<void> }> {
  const spans: Span[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: OtlpValue }> }
          scopeSpans: Array<{ spans: Array<Record<string, unknown>> }>
        }>
      }
      for (const rs of body.resourceSpans) {
        const service = String(valueOf(rs.resource.attributes.find((a) => a.key === 'service.name')?.value ?? {}))
        for (const s of rs.scopeSpans.flatMap((ss) => ss.spans)) {
          const attributes = s['attributes'] as Array<{ key: string; value: OtlpValue }>
          spans.push({
            traceId: s['traceId'] as string,
            spanId: s['spanId'] as string,
            ...(s['parentSpanId'] ? { parentSpanId: s['parentSpanId'] as string } : {}),
            name: s['name'] as string,
            startMs: Number(BigInt(s['startTimeUnixNano'] as string) / 1_000_000n),
            endMs: Number(BigInt(s['endTimeUnixNano'] as string) / 1_000_000n),
            attributes: Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)])),
            links: ((s['links'] as Array<{ spanId: string }> | undefined) ?? []).map((l) => ({ spanId: l.spanId })),
            service,
          })
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((r) => server.close(() => r())),
  }
}

async function main(): Promise<void> {
  const { loadConfig, startControlPlane } = await import('@acdp/control-plane')
  const { signWebhookBody } = await import('@acdp/protocol')
  const receiver = await startReceiver()
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-otel-demo-'))
  const running = await startControlPlane(
    loadConfig({
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      SQLITE_PATH: ':memory:',
      WEBHOOK_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'acdp-control-plane',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    }),
  )
  let n = 0
  const ctx = (name: string) => `acdp://${AUTHORITY}/${name}`
  const deliver = async (body: Record<string, unknown>, registryDelayMs: number): Promise<void> => {
    n += 1
    const createdAt = new Date(Date.now() - registryDelayMs).toISOString()
    const full = JSON.stringify({
      event_id: `demo-${n}`,
      schema_version: '1.0',
      registry_authority: AUTHORITY,
      run_id: RUN_ID,
      lineage_id: `lin:${String(body['ctx_id'] ?? 'none')
        .split('/')
        .pop()}`,
      scenario_id: 'market-brief',
      visibility: 'tenant',
      version: 1,
      ...(body['type'] === 'context_published' ? { created_at: createdAt } : { at: createdAt }),
      ...body,
    })
    const res = await fetch(`${running.url}/ingest/acdp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-acdp-signature': signWebhookBody(SECRET, full) },
      body: full,
    })
    if (res.status !== 204) throw new Error(`ingest answered ${res.status}: ${await res.text()}`)
  }
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
  const publish = (name: string, agent: string, type: string, derivedFrom: string[], receipt = true) => ({
    type: 'context_published',
    ctx_id: ctx(name),
    agent_id: `did:key:z6Mk${agent}`,
    context_type: type,
    derived_from: derivedFrom.map(ctx),
    ...(receipt ? { registry_receipt: { log_index: n } } : {}),
  })

  await deliver(publish('plan-01', 'PlannerAgent', 'plan', []), 40)
  await pause(250)
  await deliver(publish('findings-a', 'ResearcherA', 'research.findings', ['plan-01']), 60)
  await pause(120)
  await deliver(publish('findings-b', 'ResearcherB', 'research.findings', ['plan-01'], false), 90)
  await pause(400)
  await deliver(publish('draft-01', 'WriterAgent', 'report.draft', ['findings-a', 'findings-b']), 50)
  await pause(200)
  await deliver({ type: 'context_retrieved', ctx_id: ctx('draft-01') }, 20)
  await pause(150)
  await deliver(publish('review-01', 'ReviewerAgent', 'review', ['draft-01']), 70)
  await pause(300)
  await deliver(publish('draft-02', 'WriterAgent', 'report.draft', ['draft-01', 'review-01']), 45)
  await pause(100)
  await deliver({ type: 'context_retracted', ctx_id: ctx('draft-01'), reason: 'superseded by draft-02' }, 30)

  await running.close() // flushes the exporter
  await receiver.close()
  rmSync(dataDir, { recursive: true, force: true })

  mkdirSync(OUT_DIR, { recursive: true })
  writeFileSync(join(OUT_DIR, 'otel-demo-spans.json'), `${JSON.stringify(receiver.spans, null, 2)}\n`)
  const html = renderWaterfall(receiver.spans)
  const htmlPath = join(OUT_DIR, 'otel-demo-trace.html')
  writeFileSync(htmlPath, html)
  printTree(receiver.spans)
  if (existsSync('/usr/bin/chromium')) {
    execFileSync(
      '/usr/bin/chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        '--window-size=1280,760',
        `--screenshot=${join(OUT_DIR, 'otel-demo-trace.png')}`,
        `file://${htmlPath}`,
      ],
      { stdio: 'ignore', timeout: 60_000 },
    )
    console.log(`wrote ${join(OUT_DIR, 'otel-demo-trace.png')}`)
  }
}

/** Spans in tree order (parents first, children by start time) with their depth. */
function treeOrder(spans: Span[]): Array<{ span: Span; depth: number }> {
  const ids = new Set(spans.map((s) => s.spanId))
  const children = new Map<string | undefined, Span[]>()
  for (const s of spans) {
    const parent = s.parentSpanId !== undefined && ids.has(s.parentSpanId) ? s.parentSpanId : undefined
    children.set(parent, [...(children.get(parent) ?? []), s])
  }
  const out: Array<{ span: Span; depth: number }> = []
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => a.startMs - b.startMs)) {
      out.push({ span: s, depth })
      walk(s.spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  return out
}

function printTree(spans: Span[]): void {
  const t0 = Math.min(...spans.map((s) => s.startMs))
  console.log(`trace ${spans[0]?.traceId} — ${spans.length} spans`)
  for (const { span, depth } of treeOrder(spans)) {
    const links = span.links.length > 0 ? `  (+ link to ${span.links.map((l) => l.spanId).join(', ')})` : ''
    console.log(
      `${'  '.repeat(depth)}${span.name}  span ${span.spanId}  +${span.startMs - t0} ms, ${span.endMs - span.startMs} ms  ` +
        `${span.attributes['acdp.agent_did'] ?? ''}${links}`,
    )
  }
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function renderWaterfall(spans: Span[]): string {
  const t0 = Math.min(...spans.map((s) => s.startMs))
  const t1 = Math.max(...spans.map((s) => s.endMs))
  const total = Math.max(1, t1 - t0)
  const rows = treeOrder(spans)
  const detail = rows.find((r) => r.span.name.startsWith('context_published report.draft'))?.span
  const colors = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1']
  const agents = [...new Set(spans.map((s) => String(s.attributes['acdp.agent_did'] ?? '')))]
  const row = ({ span, depth }: { span: Span; depth: number }) => {
    // 85 % of the column: the duration label after the last bar stays on the page.
    const left = ((span.startMs - t0) / total) * 85
    const width = Math.max(0.4, ((span.endMs - span.startMs) / total) * 85)
    const color = colors[agents.indexOf(String(span.attributes['acdp.agent_did'] ?? '')) % colors.length]
    const agent = String(span.attributes['acdp.agent_did'] ?? 'registry').replace('did:key:z6Mk', '')
    return `<tr${span === detail ? ' class="sel"' : ''}><td class="name" style="padding-left:${8 + depth * 18}px">
      <span class="svc" style="background:${color}"></span>${escape(span.name)} <small>${escape(agent)}</small></td>
      <td class="bar"><div style="left:${left}%;width:${width}%;background:${color}"></div>
      <span style="left:calc(${left + width}% + 4px)">${span.endMs - span.startMs} ms</span></td></tr>`
  }
  const attrs = detail
    ? Object.entries(detail.attributes)
        .map(([k, v]) => `<tr><td>${escape(k)}</td><td>${escape(JSON.stringify(v))}</td></tr>`)
        .join('')
    : ''
  return `<!doctype html><meta charset="utf-8"><title>ACDP run trace</title>
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{background:#1f2933;color:#fff;padding:10px 16px}header b{font-size:15px}header small{color:#b8c4ce;margin-left:12px}
table.w{border-collapse:collapse;width:100%}table.w td{border-bottom:1px solid #eee;height:26px}
td.name{width:38%;white-space:nowrap}td.name small{color:#777}
.svc{display:inline-block;width:4px;height:16px;margin-right:6px;vertical-align:middle}
td.bar{position:relative}td.bar div{position:absolute;top:7px;height:12px;border-radius:2px}
td.bar span{position:absolute;top:5px;font-size:11px;color:#555}
tr.sel{background:#eef5ff}
.detail{margin:10px 16px;border:1px solid #ccd;padding:8px}.detail table td{padding:1px 10px 1px 0;font:12px monospace}
</style>
<header><b>acdp-control-plane: ${escape(String(spans[0]?.attributes['acdp.run_id'] ?? ''))}</b>
<small>trace ${escape(spans[0]?.traceId ?? '')}</small><small>${spans.length} spans</small>
<small>duration ${total} ms</small><small>decoded by a loopback OTLP/HTTP receiver (not Jaeger)</small></header>
<table class="w">${rows.map(row).join('')}</table>
${detail ? `<div class="detail"><b>${escape(detail.name)}</b> span ${detail.spanId}, parent ${detail.parentSpanId ?? '—'}, links ${detail.links.map((l) => l.spanId).join(', ') || '—'}<table>${attrs}</table></div>` : ''}`
}

await main()
