/**
 * The control plane's receipt audit against real registries of this repository on loopback sockets: the control
 * plane ingests signed context_published deliveries, then its sweep reads each context back from the announcing
 * registry (plain-http development enrollment through the app's SSRF-safe client, loopback allowlisted) and runs
 * RFC-ACDP-0010 §8 on the served receipt.
 *
 * Registries: an honest one (every verdict `verified`); one behind a tampering proxy that re-signs a receipt bound
 * to another content hash, or breaks a signature (`discrepancy` naming the failed check, announced as an event);
 * one whose receipt key was rotated (the earlier context verifies under the retired key: `verified_historical`);
 * one without receipts (`no_receipt`); and an enrollment whose registry is down (`error`, not flagged, retried).
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import {
  createProducer,
  createProducerKey,
  ed25519PublicKeyFromSeed,
  signRegistryReceipt,
  signTimestampedWebhook,
} from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { resolveConfig } from '../../packages/registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../packages/registry/src/start.js'
import {
  ADMIN_KEY,
  bearer,
  openTestApp,
  TEST_WEBHOOK_SECRET,
  type TestApp,
  USER_KEY,
} from '../../packages/control-plane/test/support/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const TENANT = 'acme'
const RUN = 'audit-run'
const HONEST = 'honest.audit.test'
const TAMPER = 'tamper.audit.test'
const ROTATED = 'rotated.audit.test'
const PLAIN = 'plain.audit.test'
const GONE = 'gone.audit.test'

const seed = (byte: number) => new Uint8Array(32).fill(byte)
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')
const TAMPER_SEED = seed(0x31)
const ROTATED_OLD_SEED = seed(0x41)
const ROTATED_NEW_SEED = seed(0x42)

interface Publication {
  authority: string
  ctxId: string
  lineageId: string
  createdAt: string
  agentId: string
  receipt: unknown
}

/** How the tampering proxy rewrites the receipt of a context it serves. */
type Tamper = 'rehash' | 'bad_signature' | 'hide'

describe('receipt audit against live registries', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-receipt-audit-'))
  const registries: RunningRegistry[] = []
  const baseUrls = new Map<string, string>()
  const publications = new Map<string, Publication>()
  const tampering = new Map<string, Tamper>()
  let proxy: Server
  /** A closed port: the registry that is "down". */
  let gonePort: number

  async function launch(authority: string, file: string, receipt: Record<string, unknown> | undefined) {
    const registry = await startRegistry(
      resolveConfig(
        {
          registry: { authority, base_url: `https://${authority}`, log_level: 'silent' },
          storage: { backend: 'sqlite', sqlite_path: join(dataDir, file) },
          ...(receipt === undefined ? {} : { receipt }),
        },
        { nodeEnv: 'test' },
      ),
    )
    await registry.app.listen({ host: '127.0.0.1', port: 0 })
    registries.push(registry)
    return { registry, url: `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}` }
  }

  async function publish(name: string, authority: string, url: string): Promise<Publication> {
    const producer = createProducer({ registryUrl: url, key: createProducerKey() })
    const result = await producer.publish({ title: `audit ${name}`, type: 'analysis' }, { runId: RUN })
    expect(result.status).toBe(201)
    const publication: Publication = {
      authority,
      ctxId: result.ctxId,
      lineageId: String(result.response['lineage_id']),
      createdAt: String(result.response['created_at']),
      agentId: producer.did,
      receipt: result.response['registry_receipt'],
    }
    publications.set(name, publication)
    return publication
  }

  /** A loopback proxy in front of `target` that rewrites receipts of the contexts named in `tampering`. */
  async function startTamperingProxy(target: string): Promise<Server> {
    const server = createServer(async (req, res) => {
      const upstream = await fetch(`${target}${req.url ?? '/'}`, { headers: { accept: req.headers.accept ?? '*/*' } })
      const type = upstream.headers.get('content-type') ?? 'application/json'
      let text = await upstream.text()
      const path = decodeURIComponent(new URL(req.url ?? '/', target).pathname)
      const mode = path.startsWith('/contexts/') ? tampering.get(path.slice('/contexts/'.length)) : undefined
      if (mode === 'hide') {
        // Not visible to the control plane (as a private context would be): only the webhook's copy can be checked.
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found"}}')
        return
      }
      if (mode !== undefined && upstream.status === 200) {
        const envelope = JSON.parse(text)
        const { signature, ...unsigned } = envelope.registry_receipt
        if (mode === 'rehash') {
          // The registry's own key signs a receipt bound to content it did not receive.
          envelope.registry_receipt = signRegistryReceipt(
            { ...unsigned, content_hash: `sha256:${'0'.repeat(64)}` },
            { algorithm: 'ed25519', keyId: signature.key_id, privateKey: TAMPER_SEED },
          )
        } else {
          const value: string = signature.value
          envelope.registry_receipt = { ...unsigned, signature: { ...signature, value: flip(value) } }
        }
        text = JSON.stringify(envelope)
      }
      res.writeHead(upstream.status, { 'content-type': type }).end(text)
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    return server
  }

  beforeAll(async () => {
    const honest = await launch(HONEST, 'honest.db', { signing_key_seed_b64: b64(seed(0x21)) })
    baseUrls.set(HONEST, honest.url)
    await publish('honest-1', HONEST, honest.url)
    await publish('honest-2', HONEST, honest.url)

    const tamper = await launch(TAMPER, 'tamper.db', { signing_key_seed_b64: b64(TAMPER_SEED) })
    proxy = await startTamperingProxy(tamper.url)
    baseUrls.set(TAMPER, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`)
    tampering.set((await publish('rehashed', TAMPER, tamper.url)).ctxId, 'rehash')
    tampering.set((await publish('forged', TAMPER, tamper.url)).ctxId, 'bad_signature')
    tampering.set((await publish('hidden', TAMPER, tamper.url)).ctxId, 'hide')

    // Rotation: publish under key 1, restart on the same data with key 2 current and key 1 retired (§9).
    const first = await launch(ROTATED, 'rotated.db', { signing_key_seed_b64: b64(ROTATED_OLD_SEED) })
    await publish('before-rotation', ROTATED, first.url)
    await first.registry.close()
    registries.splice(registries.indexOf(first.registry), 1)
    const rotated = await launch(ROTATED, 'rotated.db', {
      signing_key_seed_b64: b64(ROTATED_NEW_SEED),
      key_id_fragment: 'receipt-key-2',
      retired_keys: [
        { public_key_b64: b64(ed25519PublicKeyFromSeed(ROTATED_OLD_SEED)), key_id_fragment: 'receipt-key-1' },
      ],
    })
    baseUrls.set(ROTATED, rotated.url)
    await publish('after-rotation', ROTATED, rotated.url)

    const plain = await launch(PLAIN, 'plain.db', undefined)
    baseUrls.set(PLAIN, plain.url)
    await publish('receiptless', PLAIN, plain.url)

    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    gonePort = (closed.address() as AddressInfo).port
    closed.close()
    baseUrls.set(GONE, `http://127.0.0.1:${gonePort}`)
    publications.set('unreachable', {
      authority: GONE,
      ctxId: `acdp://${GONE}/${randomUUID()}`,
      lineageId: `lin:sha256:${'b'.repeat(64)}`,
      createdAt: new Date().toISOString(),
      agentId: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      receipt: undefined,
    })
  })

  afterAll(async () => {
    proxy?.close()
    for (const registry of registries) await registry.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  describe.each(testDatabaseTargets())('on $name', (target) => {
    let t: TestApp
    afterEach(async () => {
      await t.close()
    })

    async function openAuditingPlane(): Promise<TestApp> {
      const app = await openTestApp(target, {
        RECEIPT_AUDIT_ENABLED: 'true',
        RECEIPT_AUDIT_SCHEDULE: 'false',
        RECEIPT_AUDIT_SETTLE_MS: '0',
        RECEIPT_AUDIT_RETRY_BASE_MS: '1000',
        RECEIPT_AUDIT_TIMEOUT_MS: '3000',
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        OUTBOUND_ALLOW_HTTP: 'true',
      })
      for (const [authority, baseUrl] of baseUrls) {
        await app.store.upsertEnrollment({ authority, tenantId: TENANT, baseUrl, now: app.deps.clock().getTime() })
      }
      return app
    }

    /** Delivers the registry's context_published event as the registry would (timestamped HMAC). */
    async function ingest(app: TestApp, publication: Publication): Promise<void> {
      const raw = JSON.stringify({
        event_id: randomUUID(),
        type: 'context_published',
        registry_authority: publication.authority,
        ctx_id: publication.ctxId,
        lineage_id: publication.lineageId,
        agent_id: publication.agentId,
        context_type: 'analysis',
        visibility: 'public',
        version: 1,
        created_at: publication.createdAt,
        derived_from: [],
        run_id: RUN,
        ...(publication.receipt === undefined ? {} : { registry_receipt: publication.receipt }),
      })
      const ts = Math.floor(app.deps.clock().getTime() / 1000)
      const res = await app.app.inject({
        method: 'POST',
        url: '/ingest/acdp',
        payload: raw,
        headers: {
          'content-type': 'application/json',
          'x-acdp-timestamp': String(ts),
          'x-acdp-signature-timestamped': signTimestampedWebhook(TEST_WEBHOOK_SECRET, ts, raw),
        },
      })
      expect(res.statusCode).toBe(204)
    }

    const get = (app: TestApp, url: string) =>
      app.app.inject({ method: 'GET', url, headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT } })

    async function verdictOf(app: TestApp, name: string): Promise<Json> {
      const ctxId = publications.get(name)?.ctxId
      const list = (await get(app, `/receipt-audit/verdicts?runId=${RUN}&limit=500`)).json()
      return list.data.find((row: Json) => row.ctxId === ctxId)
    }

    it('gives each publication its verdict and sums them in the run’s trust member', async () => {
      t = await openAuditingPlane()
      for (const publication of publications.values()) await ingest(t, publication)
      const auditor = t.app.receiptAudit.auditor
      if (auditor === undefined) throw new Error('receipt audit not enabled')
      expect(await auditor.sweepNow()).toBe(publications.size)

      expect(await verdictOf(t, 'honest-1')).toMatchObject({ verdict: 'verified', discrepancies: [] })
      expect(await verdictOf(t, 'honest-2')).toMatchObject({ verdict: 'verified', discrepancies: [] })
      expect(await verdictOf(t, 'after-rotation')).toMatchObject({ verdict: 'verified' })
      expect(await verdictOf(t, 'before-rotation')).toMatchObject({ verdict: 'verified_historical' })
      expect(await verdictOf(t, 'receiptless')).toMatchObject({ verdict: 'no_receipt' })
      const hidden = await verdictOf(t, 'hidden')
      expect(hidden).toMatchObject({ verdict: 'structural', discrepancies: [] })
      expect(hidden.detail).toContain('not readable')
      const rehashed = await verdictOf(t, 'rehashed')
      expect(rehashed.verdict).toBe('discrepancy')
      expect(rehashed.discrepancies).toContain('content_hash_mismatch')
      expect(rehashed.discrepancies).toContain('webhook_receipt_differs')
      const forged = await verdictOf(t, 'forged')
      expect(forged.verdict).toBe('discrepancy')
      expect(forged.discrepancies).toEqual(expect.arrayContaining([expect.stringMatching(/signature/)]))
      const down = await verdictOf(t, 'unreachable')
      expect(down).toMatchObject({ verdict: 'error', discrepancies: [], attempts: 1 })

      const run = (await get(t, `/runs/${RUN}`)).json()
      expect(run.trust).toMatchObject({
        audited: publications.size,
        verified: 3,
        verifiedHistorical: 1,
        structural: 1,
        noReceipt: 1,
        errors: 1,
      })
      // Only discrepancies are flagged; the unreachable registry's error is not a trust flag.
      const flagged = run.trust.flagged.map((f: Json) => f.ctxId).sort()
      expect(flagged).toEqual([publications.get('rehashed')?.ctxId, publications.get('forged')?.ctxId].sort())
      for (const entry of run.trust.flagged) expect(entry.status).toBe('discrepancy')

      // A discrepancy is an alert: an event in the tenant's event list, once per audited event.
      const events = (await get(t, '/events?eventType=receipt_audit_discrepancy')).json()
      expect(events.data.map((e: Json) => e.ctxId).sort()).toEqual(flagged)
      expect(await t.counter('acdp_receipt_audit_verdicts_total', { verdict: 'discrepancy' })).toBe(2)
    })

    it('retries an environmental error later, counts attempts, and never re-announces a discrepancy', async () => {
      t = await openAuditingPlane()
      await ingest(t, publications.get('unreachable') as Publication)
      await ingest(t, publications.get('rehashed') as Publication)
      const auditor = t.app.receiptAudit.auditor!
      expect(await auditor.sweepNow()).toBe(2)
      // Nothing new and no retry due yet: the next sweep records nothing.
      expect(await auditor.sweepNow()).toBe(0)
      t.advance(1000)
      expect(await auditor.sweepNow()).toBe(1)
      expect(await verdictOf(t, 'unreachable')).toMatchObject({ verdict: 'error', attempts: 2 })
      const events = (await get(t, '/events?eventType=receipt_audit_discrepancy')).json()
      expect(events.data).toHaveLength(1)
    })

    it('runs one sweep at a time: while another instance holds the lease, this one records nothing', async () => {
      t = await openAuditingPlane()
      await ingest(t, publications.get('honest-1') as Publication)
      const now = t.deps.clock().getTime()
      expect(await t.app.receiptAudit.store.claim({ owner: 'other-instance', now, leaseMs: 60_000 })).toBe(0)
      expect(await t.app.receiptAudit.auditor!.sweepNow()).toBe(0)
      expect(await verdictOf(t, 'honest-1')).toBeUndefined()
      // The other instance's lease expires (it died): this instance takes over and audits.
      t.advance(60_000)
      expect(await t.app.receiptAudit.auditor!.sweepNow()).toBe(1)
      expect(await verdictOf(t, 'honest-1')).toMatchObject({ verdict: 'verified' })
    })

    it('lists discrepancies as alerts that an admin acknowledges; other tenants see none', async () => {
      t = await openAuditingPlane()
      await ingest(t, publications.get('forged') as Publication)
      await t.app.receiptAudit.auditor!.sweepNow()
      const open = (await get(t, '/receipt-audit/verdicts?verdict=discrepancy&acknowledged=false')).json()
      expect(open.data).toHaveLength(1)
      const id = open.data[0].eventId
      const asUser = await t.app.inject({
        method: 'POST',
        url: `/receipt-audit/verdicts/${id}/ack`,
        headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT },
      })
      expect(asUser.statusCode).toBe(403)
      const ack = await t.app.inject({
        method: 'POST',
        url: `/receipt-audit/verdicts/${id}/ack`,
        headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': TENANT },
      })
      expect(ack.statusCode).toBe(200)
      expect(ack.json().acknowledgedAt).not.toBeNull()
      expect((await get(t, '/receipt-audit/verdicts?verdict=discrepancy&acknowledged=false')).json().data).toEqual([])
      const other = await t.app.inject({
        method: 'GET',
        url: '/receipt-audit/verdicts',
        headers: { ...bearer(USER_KEY), 'x-tenant-id': 'someone-else' },
      })
      expect(other.json().data).toEqual([])
      const missing = await t.app.inject({
        method: 'POST',
        url: `/receipt-audit/verdicts/999999/ack`,
        headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': TENANT },
      })
      expect(missing.statusCode).toBe(404)
    })
  })
})

/** The same base64url signature with its first character changed (still well-formed, no longer valid). */
function flip(value: string): string {
  return (value[0] === 'A' ? 'B' : 'A') + value.slice(1)
}
