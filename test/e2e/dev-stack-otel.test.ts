/**
 * End to end with OpenTelemetry export on: the dev stack (as `acdp dev` wires it) started with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback OTLP receiver; a producer publishes two contexts of one run
 * through the registry, whose signed webhooks reach the control plane, which exports them as one trace. Every wait
 * is bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProducer, createProducerKey } from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningDevStack, startDevStack } from '../../packages/cli/src/index.js'
import { type OtlpReceiver, startOtlpReceiver } from '../../packages/control-plane/test/support/otlp-receiver.js'

describe('dev stack exporting runs to an OTLP receiver', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-e2e-otel-'))
  let receiver: OtlpReceiver
  let stack: RunningDevStack
  const runId = `e2e-otel-${Date.now()}`
  const published: string[] = []

  beforeAll(async () => {
    receiver = await startOtlpReceiver()
    stack = await startDevStack({
      dataDir,
      host: '127.0.0.1',
      registryPort: 0,
      controlPlanePort: 0,
      logLevel: 'warn',
      writeLog: () => undefined,
      telemetryEnv: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '20',
        // Not an OTEL_ name: never handed to the control plane.
        WEBHOOK_SECRET: 'ignored-by-the-dev-stack-0123456789',
      },
    })
    const producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })
    const first = await producer.publish({ title: 'otel snapshot', type: 'data_snapshot' }, { runId })
    const second = await producer.publish(
      { title: 'otel analysis', type: 'analysis', derived_from: [first.ctxId] },
      { runId },
    )
    expect([first.status, second.status]).toEqual([201, 201])
    published.push(first.ctxId, second.ctxId)
  })

  afterAll(async () => {
    await stack?.close()
    await receiver?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('exports both publications as one trace, the derived one parented on its source', async () => {
    const spans = await receiver.waitForSpans(2, 10_000)
    const [first, second] = published.map((ctxId) => spans.find((s) => s.attributes['acdp.ctx_id'] === ctxId))
    expect(first).toBeDefined()
    expect(second).toBeDefined()
    expect(second?.traceId).toBe(first?.traceId)
    expect(second?.parentSpanId).toBe(first?.spanId)
    expect(first?.attributes).toMatchObject({
      'acdp.run_id': runId,
      'acdp.registry': 'localhost',
      // The dev stack enrolls the registry with its own webhook secret: the delivery was verified.
      'acdp.verified': true,
      'gen_ai.conversation.id': runId,
    })
    expect(first?.attributes['acdp.agent_did']).toMatch(/^did:key:/)
    expect(first?.resource['service.name']).toBe('acdp-control-plane')
  })
})
