import { verifyTimestampedWebhook, verifyWebhookSignature, verifyWebhookV2 } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { notifyRunCompleted, notifyRunStarted } from './control-plane-client.js'

const SECRET = 'cli-run-notice-secret-0123456789'
const TARGET = { baseUrl: 'http://127.0.0.1:1' }

/** A fetch that records the one request and answers 204, as the control plane does. */
function recordingIo() {
  const sent: { url: string; headers: Record<string, string>; body: string }[] = []
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, headers: init.headers as Record<string, string>, body: String(init.body) })
    return new Response(null, { status: 204 })
  }) as unknown as typeof globalThis.fetch
  return { io: { fetch, signal: new AbortController().signal }, sent }
}

function check(headers: Record<string, string>) {
  return { timestamp: headers['x-acdp-timestamp'], nowSeconds: Date.now() / 1000, toleranceSeconds: 60 }
}

describe('run notifications', () => {
  it('POST /runs/:runId/complete carries the plain, timestamped and V2 signatures, V2 binding the path run', async () => {
    const { io, sent } = recordingIo()
    await notifyRunCompleted(io, TARGET, SECRET, 'run-7', { status: 'completed' })
    const [request] = sent
    expect(request?.url).toBe('http://127.0.0.1:1/runs/run-7/complete')
    const { headers, body } = request!
    expect(verifyWebhookSignature(SECRET, body, headers['x-acdp-signature'])).toBe(true)
    expect(verifyTimestampedWebhook(SECRET, body, headers['x-acdp-signature-timestamped'], check(headers))).toBe(true)
    const v2 = headers['x-acdp-signature-v2']
    const bound = (runId: string | undefined) => ({ tenantId: undefined, runId, eventId: undefined })
    expect(verifyWebhookV2(SECRET, body, v2, bound('run-7'), check(headers))).toBe(true)
    // Replayed onto another run's path, the same headers do not verify.
    expect(verifyWebhookV2(SECRET, body, v2, bound('run-8'), check(headers))).toBe(false)
  })

  it('POST /runs/started binds no run header (the run is in the body)', async () => {
    const { io, sent } = recordingIo()
    await notifyRunStarted(io, TARGET, SECRET, { run_id: 'run-7', scenario_id: 's' })
    const { headers, body } = sent[0]!
    const bound = { tenantId: undefined, runId: undefined, eventId: undefined }
    expect(verifyWebhookV2(SECRET, body, headers['x-acdp-signature-v2'], bound, check(headers))).toBe(true)
  })
})
