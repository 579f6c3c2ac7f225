/**
 * The control plane under fuzz: the real app on a temporary SQLite file, listening on 127.0.0.1 port 0, with
 * one valid seed per route. Nothing leaves the machine: the webhook feature's outbound client resolves every
 * name to 127.0.0.1 (allowlisted, so subscriptions are accepted) and the outbox enqueues nothing, so no
 * delivery is ever attempted. HMAC routes re-sign the final (mutated) bytes most of the time, so mutations reach
 * the parser and the validators behind the signature check.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOutboundClient, signWebhookBody } from '@acdp/protocol'
import { openDatabase } from '@acdp/storage'
import {
  publishedEvent,
  retrievedEvent,
  signedDelivery,
} from '../../../packages/control-plane/test/support/signed-delivery.js'
import {
  ADMIN_KEY,
  bearer,
  openTestApp,
  TEST_WEBHOOK_SECRET,
  USER_KEY,
} from '../../../packages/control-plane/test/support/test-app.js'
import { listRoutes } from '../route-list.js'
import type { FuzzSeed, FuzzTarget } from '../seed.js'

const RUN_ID = 'run-fuzz-1'

export async function startControlPlaneTarget(): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-fuzz-control-plane-'))
  const outbound = createOutboundClient({
    allowCidrs: ['127.0.0.1/32'],
    allowHttpForAllowlisted: true,
    lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  })
  const test = await openTestApp(
    { name: 'sqlite', open: () => openDatabase({ kind: 'sqlite', path: join(dir, 'control-plane.db') }) },
    {},
    {
      outbound,
      webhookOutbox: { enqueue: async () => {} },
      // The test app's default randomness repeats every 256 draws (deterministic ids for assertions); a long run
      // would then mint a subscription id that already exists.
      random: (size) => new Uint8Array(randomBytes(size)),
    },
  )
  const { app } = test
  // The signature covers the exact bytes, so byte-level mutations (bad UTF-8, truncation) reach the parser.
  const hmac = (body: Buffer) => ({ 'x-acdp-signature': signWebhookBody(TEST_WEBHOOK_SECRET, body) })

  const runStart = { run_id: RUN_ID, scenario_id: 'fuzz', started_at: '2026-01-15T11:58:00.000Z', inputs: { a: 1 } }
  await expectOk(app.inject(signedDelivery(runStart, { url: '/runs/started' })), 'run start')
  const parent = publishedEvent({ run_id: RUN_ID })
  await expectOk(app.inject(signedDelivery(parent, { headers: { 'x-run-id': RUN_ID } })), 'ingest')
  const child = publishedEvent({ run_id: RUN_ID, derived_from: [parent.ctx_id] })
  const hook = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: bearer(USER_KEY),
    payload: { url: 'https://hooks.example.com/acdp', events: ['context_published'] },
  })
  if (hook.statusCode !== 201) throw new Error(`control-plane fuzz setup: POST /webhooks answered ${hook.statusCode}`)
  const hookId = (hook.json() as { id: string }).id
  const doomed = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: bearer(USER_KEY),
    payload: { url: 'https://hooks.example.com/doomed' },
  })
  const doomedId = (doomed.json() as { id: string }).id
  const user = bearer(USER_KEY)
  const admin = bearer(ADMIN_KEY)
  const agent = encodeURIComponent(String(parent.agent_id))

  const seeds: FuzzSeed[] = [
    { route: 'GET /healthz', method: 'GET', path: '/healthz', headers: {} },
    { route: 'GET /readyz', method: 'GET', path: '/readyz', headers: {} },
    { route: 'GET /ingest/health', method: 'GET', path: '/ingest/health', headers: {} },
    {
      route: 'POST /ingest/acdp',
      method: 'POST',
      path: '/ingest/acdp',
      headers: { 'content-type': 'application/json', 'x-run-id': RUN_ID },
      body: child,
      sealBytes: hmac,
    },
    {
      route: 'POST /ingest/acdp',
      method: 'POST',
      path: '/ingest/acdp',
      headers: { 'content-type': 'application/json' },
      body: retrievedEvent(),
      sealBytes: hmac,
    },
    {
      route: 'POST /runs/started',
      method: 'POST',
      path: '/runs/started',
      headers: { 'content-type': 'application/json' },
      body: { ...runStart, run_id: 'run-fuzz-2', registry_authority: 'reg.example' },
      sealBytes: hmac,
    },
    {
      route: 'POST /runs/:runId/complete',
      method: 'POST',
      path: `/runs/${RUN_ID}/complete`,
      headers: { 'content-type': 'application/json' },
      body: { status: 'completed', result: { ok: true } },
      sealBytes: hmac,
    },
    {
      route: 'GET /runs',
      method: 'GET',
      path: '/runs?status=running&scenarioId=fuzz&limit=10&offset=0',
      headers: user,
    },
    { route: 'GET /runs/:runId', method: 'GET', path: `/runs/${RUN_ID}`, headers: user },
    { route: 'GET /runs/:runId/lineage', method: 'GET', path: `/runs/${RUN_ID}/lineage`, headers: user },
    {
      route: 'GET /runs/:runId/events',
      method: 'GET',
      path: `/runs/${RUN_ID}/events?eventType=context_published&limit=5`,
      headers: user,
    },
    {
      route: 'GET /events',
      method: 'GET',
      path: `/events?runId=${RUN_ID}&eventType=context_published&registryAuthority=reg.example&afterTs=2026-01-01T00:00:00.000Z&limit=5`,
      headers: user,
    },
    {
      route: 'GET /events/stream',
      method: 'GET',
      path: '/events/stream?eventType=context_published',
      headers: { ...user, 'last-event-id': '1' },
    },
    { route: 'GET /runs/:runId/events/stream', method: 'GET', path: `/runs/${RUN_ID}/events/stream`, headers: user },
    { route: 'GET /agents', method: 'GET', path: '/agents?limit=5&offset=0', headers: user },
    { route: 'GET /agents/*', method: 'GET', path: `/agents/${agent}`, headers: user },
    { route: 'GET /registries', method: 'GET', path: '/registries', headers: user },
    { route: 'GET /registries/enrollments', method: 'GET', path: '/registries/enrollments', headers: user },
    {
      route: 'POST /registries/enroll',
      method: 'POST',
      path: '/registries/enroll',
      headers: { ...admin, 'content-type': 'application/json' },
      body: {
        authority: 'reg.example',
        baseUrl: 'https://reg.example',
        registryDid: 'did:web:reg.example',
        webhookSecret: 'enrollment-secret-0123456789',
        enabled: true,
      },
    },
    { route: 'GET /dashboard/overview', method: 'GET', path: '/dashboard/overview?window=24h', headers: user },
    { route: 'GET /metrics', method: 'GET', path: '/metrics', headers: {} },
    { route: 'GET /domain-packs', method: 'GET', path: '/domain-packs', headers: user },
    {
      route: 'POST /webhooks',
      method: 'POST',
      path: '/webhooks',
      headers: { ...user, 'content-type': 'application/json' },
      body: {
        url: 'https://hooks.example.com/fuzz',
        events: ['context_published'],
        secret: 's3cret-value-0123456789',
        active: true,
      },
    },
    { route: 'GET /webhooks', method: 'GET', path: '/webhooks', headers: user },
    { route: 'GET /webhooks/:id', method: 'GET', path: `/webhooks/${hookId}`, headers: user },
    {
      route: 'PATCH /webhooks/:id',
      method: 'PATCH',
      path: `/webhooks/${hookId}`,
      headers: { ...user, 'content-type': 'application/json' },
      body: { active: true, events: ['context_published', 'context_retrieved'] },
    },
    {
      route: 'DELETE /webhooks/:id',
      method: 'DELETE',
      path: `/webhooks/${doomedId}`,
      headers: user,
    },
    {
      route: 'GET /webhooks/:id/deliveries',
      method: 'GET',
      path: `/webhooks/${hookId}/deliveries?limit=5`,
      headers: user,
    },
    {
      route: 'POST /webhooks/:id/deliveries/:deliveryId/redeliver',
      method: 'POST',
      path: `/webhooks/${hookId}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
      headers: user,
      // No delivery ever exists here (the outbox enqueues nothing): the seed reaches the lookup and its 404.
      expectStatus: 404,
    },
  ]

  const routes = listRoutes(app.printRoutes({ commonPrefix: false }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return {
    name: 'control-plane',
    port: typeof address === 'object' && address !== null ? address.port : 0,
    seeds,
    routes,
    checkErrorEnvelope: (status, body) => {
      const envelope = body as { statusCode?: unknown; errorCode?: unknown; message?: unknown } | null
      if (typeof envelope !== 'object' || envelope === null) return `${status} body is not an object`
      if (envelope.statusCode !== status) return `${status} with statusCode ${String(envelope.statusCode)}`
      if (typeof envelope.errorCode !== 'string' || typeof envelope.message !== 'string') {
        return `${status} without errorCode/message`
      }
      return undefined
    },
    async close() {
      await test.close()
      await outbound.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function expectOk(answer: Promise<{ statusCode: number; body: string }>, what: string): Promise<void> {
  const { statusCode, body } = await answer
  if (statusCode < 200 || statusCode >= 300) {
    throw new Error(`control-plane fuzz setup: ${what} answered ${statusCode} ${body.slice(0, 200)}`)
  }
}
