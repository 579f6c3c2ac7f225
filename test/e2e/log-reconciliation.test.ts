/**
 * No publish missing from the control plane: the registry's transparency log as the change feed. A registry of
 * this repository (receipts and log on) delivers its webhooks to a control plane through a loopback relay the test
 * can take down; publications made while it is down are dropped by the registry's best-effort webhook queue
 * (no retries). The control plane's reconciliation then walks the registry's log, recovers exactly the missing
 * publications (marked `recovered_from_log`, keeping the run a body names in `metadata.run_id`), and a webhook
 * arriving after the recovery stores nothing; every leaf is recorded as its publication's log evidence. SQLite and PostgreSQL (the control plane's store).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { createProducer, createProducerKey, signTimestampedWebhook } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually as waitFor } from '../support/eventually.js'
import { startRelayedRegistry } from '../support/relayed-registry.js'
import { startRelay } from '../support/webhook-relay.js'
import type { RunningRegistry } from '../../packages/registry/src/start.js'
import {
  bearer,
  openTestApp,
  TEST_WEBHOOK_SECRET,
  type TestApp,
  USER_KEY,
} from '../../packages/control-plane/test/support/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const AUTHORITY = 'feed.reconcile.test'
const TENANT = 'acme'
const RUN = 'reconciled-run'
const WAIT_MS = 15_000

/** Polls every 50 ms for up to WAIT_MS. */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitFor(what, probe, { timeoutMs: WAIT_MS, intervalMs: 50 })

describe.each(testDatabaseTargets())('log reconciliation on $name', (target) => {
  let t: TestApp
  let registry: RunningRegistry
  let relay: Awaited<ReturnType<typeof startRelay>>
  let dataDir: string
  // The registry signs its webhooks with the wall clock: the control plane runs on it too (stepped for schedules).
  let offsetMs = 0
  const clock = () => new Date(Date.now() + offsetMs)

  afterEach(async () => {
    await registry?.close()
    relay?.server.close()
    await t?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function setUp(): Promise<string> {
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-reconcile-'))
    t = await openTestApp(
      target,
      {
        LOG_RECONCILE_ENABLED: 'true',
        LOG_RECONCILE_SCHEDULE: 'false',
        LOG_RECONCILE_MAX_ENTRIES: '7', // several walks, so the cursor's resumption is exercised
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        OUTBOUND_ALLOW_HTTP: 'true',
        ENROLLMENT_CACHE_MS: '0',
      },
      { clock },
    )
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const planeUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    relay = await startRelay(() => planeUrl)
    const started = await startRelayedRegistry(t, relay, {
      authority: AUTHORITY,
      tenant: TENANT,
      dataDir,
      receiptSeedByte: 0x51,
    })
    registry = started.registry
    return started.url
  }

  const get = (url: string) =>
    t.app.inject({ method: 'GET', url, headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT } })

  async function publications(): Promise<Json[]> {
    const page = (await get('/events?eventType=context_published&limit=500')).json()
    return page.data
  }

  it('recovers every publication the webhooks lost, exactly once, and a late webhook stores nothing', async () => {
    const registryUrl = await setUp()
    const producer = createProducer({ registryUrl, key: createProducerKey() })
    const delivered: string[] = []
    for (let i = 0; i < 5; i += 1) {
      delivered.push((await producer.publish({ title: `live ${i}`, type: 'analysis' }, { runId: RUN })).ctxId)
    }
    await eventually('the live webhooks', async () => ((await publications()).length === 5 ? true : undefined))

    relay.setDown(true)
    const lost: string[] = []
    for (let i = 0; i < 12; i += 1) {
      // Half of them name their run in the body, the only place a recovery can read it from.
      const body = { title: `lost ${i}`, type: 'analysis', ...(i % 2 === 0 ? { metadata: { run_id: RUN } } : {}) }
      lost.push((await producer.publish(body, { runId: RUN })).ctxId)
    }
    // The registry tried each once (no retries) and dropped it.
    await eventually('the refused deliveries', async () => (relay.refused() === 12 ? true : undefined))
    relay.setDown(false)
    delivered.push((await producer.publish({ title: 'after the outage', type: 'analysis' }, { runId: RUN })).ctxId)
    await eventually('the post-outage webhook', async () => {
      const ids = (await publications()).map((e: Json) => e.ctxId)
      return ids.includes(delivered.at(-1)) ? true : undefined
    })
    expect((await publications()).length).toBe(6)

    const reconciler = t.app.logReconcile.reconciler
    if (reconciler === undefined) throw new Error('log reconciliation not enabled')
    let recovered = 0
    // 18 leaves at 7 per walk: three walks (each due again after the interval).
    for (let walk = 0; walk < 3; walk += 1) {
      recovered += await reconciler.reconcileNow()
      offsetMs += 60_000
    }
    expect(recovered).toBe(12)
    expect(await reconciler.reconcileNow()).toBe(0)

    const stored = await publications()
    const ids = stored.map((e: Json) => e.ctxId)
    expect(ids).toHaveLength(18)
    expect(new Set(ids).size).toBe(18)
    expect(new Set(ids)).toEqual(new Set([...delivered, ...lost]))
    for (const event of stored.filter((e: Json) => lost.includes(e.ctxId))) {
      expect(event.rawPayload.recovered_from_log).toMatchObject({ log_id: `did:web:${AUTHORITY}/log/1` })
    }
    // The run keeps the recovered publications that name it; the others are filed outside any run.
    const inRun = stored.filter((e: Json) => e.runId === RUN).map((e: Json) => e.ctxId)
    expect(new Set(inRun)).toEqual(new Set([...delivered, ...lost.filter((_, i) => i % 2 === 0)]))
    const run = (await get(`/runs/${RUN}`)).json()
    expect(run.contextsCount).toBe(inRun.length)
    expect(await t.counter('acdp_log_reconcile_entries_total', { result: 'recovered' })).toBe(12)
    // Every leaf, held or recovered, is recorded as the log evidence of its publication (no witness here: none is
    // under a witnessed head).
    const totals = (await get('/receipt-audit/summary')).json().registries
    expect(totals).toEqual([
      expect.objectContaining({
        registryAuthority: AUTHORITY,
        published: 18,
        inLog: 18,
        underWitnessedHead: 0,
        fullyEvidenced: 0,
      }),
    ])

    // The registry redelivers one lost publication late, under its own fresh event id: a duplicate.
    const late = stored.find((e: Json) => e.ctxId === lost[0])
    const raw = JSON.stringify({ ...late.rawPayload, event_id: randomUUID(), recovered_from_log: undefined })
    const ts = Math.floor(clock().getTime() / 1000)
    const answer = await t.app.inject({
      method: 'POST',
      url: '/ingest/acdp',
      payload: raw,
      headers: {
        'content-type': 'application/json',
        'x-acdp-timestamp': String(ts),
        'x-acdp-signature-timestamped': signTimestampedWebhook(TEST_WEBHOOK_SECRET, ts, raw),
      },
    })
    expect(answer.statusCode).toBe(204)
    expect((await publications()).length).toBe(18)
  })
})
