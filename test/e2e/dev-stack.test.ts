/**
 * End to end, on real sockets, wired exactly as `acdp dev` wires it (startDevStack: both services in-process on
 * embedded SQLite in a temp directory, webhook → POST /ingest/acdp, enrollment with the registry's own secret,
 * loopback reached through the outbound allowlist). A producer publishes through the SDK with a run id; the
 * event must reach the control plane through the registry's signed webhook and show up in the run, its events,
 * its lineage graph and on a live SSE subscription. Every wait is bounded.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProducer, createProducerKey, signWebhookBody, WEBHOOK_HEADERS } from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CliError,
  type RunningDevStack,
  readSseFrames,
  type SseFrame,
  startDevStack,
} from '../../packages/cli/src/index.js'

const WAIT_MS = 10_000

/** Polls `probe` until it returns a value other than undefined, or fails after {@link WAIT_MS}. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS
  let delayMs = 20
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    delayMs = Math.min(delayMs * 2, 200)
  }
}

function startStack(dataDir: string, logs: string[], extra: { reset?: boolean } = {}): Promise<RunningDevStack> {
  return startDevStack({
    dataDir,
    host: '127.0.0.1',
    registryPort: 0,
    controlPlanePort: 0,
    logLevel: 'warn',
    writeLog: (line) => logs.push(line),
    ...extra,
  })
}

describe('dev stack end to end', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-e2e-'))
  const logs: string[] = []
  let stack: RunningDevStack
  let api: (path: string, init?: RequestInit) => Promise<Response>
  const frames: SseFrame[] = []
  const streamAbort = new AbortController()
  const runId = `e2e-${Date.now()}`
  const published: string[] = []

  beforeAll(async () => {
    stack = await startStack(dataDir, logs)
    const headers = { authorization: `Bearer ${stack.secrets.control_plane_api_key}` }
    api = (path, init = {}) =>
      fetch(`${stack.controlPlaneUrl}${path}`, {
        ...init,
        headers: { ...headers, ...init.headers },
        signal: AbortSignal.timeout(5000),
      })

    // A live subscriber, connected before anything is published.
    const stream = await fetch(`${stack.controlPlaneUrl}/events/stream`, { headers, signal: streamAbort.signal })
    expect(stream.status).toBe(200)
    void (async () => {
      try {
        for await (const frame of readSseFrames(stream.body!)) frames.push(frame)
      } catch {
        // aborted in afterAll
      }
    })()

    const runStarted = JSON.stringify({ run_id: runId, scenario_id: 'e2e-scenario', inputs: { n: 2 } })
    const started = await fetch(`${stack.controlPlaneUrl}/runs/started`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [WEBHOOK_HEADERS.signature]: signWebhookBody(stack.secrets.run_secret, runStarted),
      },
      body: runStarted,
    })
    expect(started.status).toBe(204)

    const producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })
    const first = await producer.publish({ title: 'e2e snapshot', type: 'data_snapshot' }, { runId })
    const second = await producer.publish(
      { title: 'e2e analysis', type: 'analysis', derived_from: [first.ctxId] },
      { runId },
    )
    expect([first.status, second.status]).toEqual([201, 201])
    published.push(first.ctxId, second.ctxId)
  })

  afterAll(async () => {
    streamAbort.abort()
    await stack?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('files both contexts under the run through the registry’s signed webhook', async () => {
    const events = await eventually('two ingested events', async () => {
      const response = await api(`/runs/${runId}/events`)
      const page = (await response.json()) as { data: Array<Record<string, unknown>> }
      return page.data.length >= 2 ? page.data : undefined
    })
    expect(events.map((event) => event['ctxId'])).toEqual(published)
    for (const event of events) {
      expect(event).toMatchObject({ eventType: 'context_published', runId, registryAuthority: 'localhost' })
    }
  })

  it('records the run with the scenario from /runs/started', async () => {
    const response = await api(`/runs/${runId}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      runId,
      scenarioId: 'e2e-scenario',
      status: 'running',
      contextsCount: 2,
    })
  })

  it('serves the run’s lineage graph with the derived_from edge', async () => {
    const graph = await eventually('a two-node lineage', async () => {
      const body = (await (await api(`/runs/${runId}/lineage`)).json()) as { nodes: unknown[]; edges: unknown[] }
      return body.nodes.length >= 2 ? body : undefined
    })
    expect(graph).toMatchObject({
      runId,
      nodes: [
        { ctxId: published[0], contextType: 'data_snapshot', registryAuthority: 'localhost', step: 1 },
        { ctxId: published[1], contextType: 'analysis', registryAuthority: 'localhost', step: 2 },
      ],
      edges: [{ from: published[0], to: published[1] }],
    })
  })

  it('pushed both events to a live SSE subscriber', async () => {
    const received = await eventually('two SSE frames', async () => {
      const mine = frames.filter(
        (frame) => frame.event === 'context_published' && JSON.parse(frame.data).runId === runId,
      )
      return mine.length >= 2 ? mine : undefined
    })
    expect(received.map((frame) => JSON.parse(frame.data).ctxId)).toEqual(published)
  })

  it('verifies the registry’s webhooks with the enrolled secret, not the global one', async () => {
    const event = JSON.stringify({
      type: 'context_published',
      registry_authority: 'localhost',
      agent_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      ctx_id: 'acdp://localhost/2f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
      run_id: `${runId}-direct`,
      context_type: 'analysis',
      derived_from: [],
      created_at: new Date().toISOString(),
    })
    const post = (secret: string, body: string) =>
      fetch(`${stack.controlPlaneUrl}/ingest/acdp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [WEBHOOK_HEADERS.signature]: signWebhookBody(secret, body) },
        body,
      })
    expect((await post(stack.secrets.run_secret, event)).status).toBe(401)
    expect((await post(stack.secrets.webhook_secret, event)).status).toBe(204)
  })

  it('rejects a tampered webhook body with 401 and stores nothing of it', async () => {
    const tamperedRun = `${runId}-tampered`
    const original = JSON.stringify({
      type: 'context_published',
      registry_authority: 'localhost',
      agent_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      ctx_id: 'acdp://localhost/3f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
      run_id: 'innocent-run',
      context_type: 'analysis',
      derived_from: [],
      created_at: new Date().toISOString(),
    })
    const signature = signWebhookBody(stack.secrets.webhook_secret, original)
    const tampered = original.replace('innocent-run', tamperedRun)
    const response = await fetch(`${stack.controlPlaneUrl}/ingest/acdp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [WEBHOOK_HEADERS.signature]: signature },
      body: tampered,
    })
    expect(response.status).toBe(401)
    // Neither the run the tampered body names nor any event of it exists.
    expect((await api(`/runs/${tamperedRun}`)).status).toBe(404)
    expect((await api(`/runs/${tamperedRun}/events`)).status).toBe(404)
    expect((await api('/runs/innocent-run')).status).toBe(404)
    const byCtx = (await (await api(`/events?registryAuthority=localhost&limit=500`)).json()) as {
      data: Array<Record<string, unknown>>
    }
    expect(byCtx.data.some((event) => event['ctxId'] === 'acdp://localhost/3f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7')).toBe(
      false,
    )
  })

  it('keeps the dev secrets private to the user', () => {
    expect(statSync(join(dataDir, 'dev-secrets.json')).mode & 0o777).toBe(0o600)
  })
})

describe('dev stack lifecycle', () => {
  it('reuses data and secrets on a second run and starts clean with reset', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'acdp-e2e-'))
    const logs: string[] = []
    try {
      const first = await startStack(dataDir, logs)
      const producer = createProducer({ registryUrl: first.registryUrl, key: createProducerKey() })
      const { ctxId } = await producer.publish({ title: 'persisted', type: 'analysis' })
      const secrets = first.secrets
      expect(first.isFirstRun).toBe(true)
      await first.close()

      const second = await startStack(dataDir, logs)
      expect(second.isFirstRun).toBe(false)
      expect(second.secrets).toEqual(secrets)
      expect((await fetch(`${second.registryUrl}/contexts/${encodeURIComponent(ctxId)}`)).status).toBe(200)
      await second.close()

      const third = await startStack(dataDir, logs, { reset: true })
      expect(third.isFirstRun).toBe(true)
      expect(third.secrets.webhook_secret).not.toBe(secrets.webhook_secret)
      expect((await fetch(`${third.registryUrl}/contexts/${encodeURIComponent(ctxId)}`)).status).toBe(404)
      await third.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('refuses a port in use with port_in_use (exit 3) and leaves nothing running', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen({ host: '127.0.0.1', port: 0 }, resolve))
    const address = blocker.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    const dataDir = mkdtempSync(join(tmpdir(), 'acdp-e2e-'))
    try {
      const failure = await startDevStack({
        dataDir,
        host: '127.0.0.1',
        registryPort: port,
        controlPlanePort: 0,
        writeLog: () => {},
      }).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(CliError)
      expect(failure).toMatchObject({
        code: 'port_in_use',
        exitCode: 3,
        message: expect.stringContaining(`port ${port}`),
      })
    } finally {
      blocker.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('refuses NODE_ENV=production before touching anything', async () => {
    const dataDir = join(tmpdir(), `acdp-never-created-${Date.now()}`)
    await expect(
      startDevStack({
        dataDir,
        host: '127.0.0.1',
        registryPort: 0,
        controlPlanePort: 0,
        writeLog: () => {},
        nodeEnv: 'production',
      }),
    ).rejects.toMatchObject({ code: 'production_refused', exitCode: 2 })
    expect(() => statSync(dataDir)).toThrow()
  })
})
