/**
 * The control plane under fuzz: the real app on a temporary SQLite file, listening on 127.0.0.1 port 0, with
 * every optional feature on (agent tokens with pinned keys and an EdDSA signer, the log witness with cosigning,
 * the console on a temporary asset directory, capabilities, routing, the federation proxy) and one valid seed per
 * route. Nothing leaves the machine: the outbound client resolves the test names to 127.0.0.1, where a loopback
 * HTTPS registry (test CA) answers the federation proxy; the outbox enqueues nothing, so no webhook delivery is
 * ever attempted, and the witness never polls on its own (LOG_WITNESS_SCHEDULE=false). HMAC routes re-sign the
 * final (mutated) bytes most of the time and capability declarations are re-signed, so mutations reach the
 * parser and the validators behind the signature checks.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signWebhookBody, signWebhookV2 } from '@acdp/protocol'
import { openDatabase, openPostgresTestSchema } from '@acdp/storage'
import {
  createTestAgent,
  issueToken,
  requestChallenge,
  type TestAgent,
  tokenRequest,
} from '../../../packages/control-plane/test/support/agent-keys.js'
import { startHttpsUpstream } from '../../../packages/control-plane/test/support/https-upstream.js'
import {
  publishedEvent,
  retrievedEvent,
  signedDelivery,
} from '../../../packages/control-plane/test/support/signed-delivery.js'
import {
  ADMIN_KEY,
  bearer,
  openTestApp,
  T0,
  TEST_WEBHOOK_SECRET,
  USER_KEY,
} from '../../../packages/control-plane/test/support/test-app.js'
import { listRoutes } from '../route-list.js'
import type { FuzzSeed, FuzzTarget } from '../seed.js'

/** The enrolled registry the federation proxy reaches (a loopback HTTPS server) and the witness watches. */
const UPSTREAM = 'reg-a.test'
const UPSTREAM_CTX = `acdp://${UPSTREAM}/0b6b1b7e-1d5c-4c3e-9a57-3f1f7f3f2a10`
const UPSTREAM_ENVELOPE = `{"body":{"ctx_id":"${UPSTREAM_CTX}","context_type":"note"},"registry_state":{"status":"active"}}`
const CAPABILITY = 'urn:acdp:cap:summarize:earnings_report:finance'
/** A second enrolled registry that serves its capabilities (no log) and DID document: the trust relay's seeds. */
const RELAYED = 'reg-b.test'
const RELAYED_CTX = `acdp://${RELAYED}/5d1c0f0e-7a43-4b8e-9c1d-2f6a8e4b7c21`
const RELAYED_CAPABILITIES = JSON.stringify({
  acdp_version: '0.5.0',
  registry_did: `did:web:${RELAYED}`,
  profiles: ['acdp-registry-core'],
})
const RELAYED_DID_DOCUMENT = JSON.stringify({
  '@context': ['https://www.w3.org/ns/did/v1'],
  id: `did:web:${RELAYED}`,
  verificationMethod: [],
  assertionMethod: [],
})

const RUN_ID = 'run-fuzz-1'

/** @param postgresUrl run on a throwaway schema of this PostgreSQL database instead of a temporary SQLite file. */
export async function startControlPlaneTarget(postgresUrl?: string): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-fuzz-control-plane-'))
  const upstream = await startHttpsUpstream([UPSTREAM, RELAYED])
  upstream.handle((path, _headers, host) => {
    if (host === UPSTREAM && path === `/contexts/${encodeURIComponent(UPSTREAM_CTX)}`) {
      return { status: 200, headers: { 'content-type': 'application/acdp+json' }, body: UPSTREAM_ENVELOPE }
    }
    if (host === RELAYED && path === '/.well-known/acdp.json') {
      return { status: 200, headers: { 'content-type': 'application/json' }, body: RELAYED_CAPABILITIES }
    }
    if (host === RELAYED && path === '/.well-known/did.json') {
      return { status: 200, headers: { 'content-type': 'application/did+json' }, body: RELAYED_DID_DOCUMENT }
    }
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"error":{"code":"not_found","message":"Not found."}}',
    }
  })
  // Webhook subscription URLs resolve (to loopback, allowlisted) so they are accepted; nothing is delivered.
  const outbound = upstream.client({
    answers: { [UPSTREAM]: ['127.0.0.1'], [RELAYED]: ['127.0.0.1'], 'hooks.example.com': ['127.0.0.1'] },
  })
  const alice = createTestAgent('alice')
  const bob = createTestAgent('bob', 'ecdsa-p256')
  const consoleDir = writeConsoleAssets(join(dir, 'console'))
  const test = await openTestApp(
    postgresUrl === undefined
      ? { name: 'sqlite', open: () => openDatabase({ kind: 'sqlite', path: join(dir, 'control-plane.db') }) }
      : { name: 'postgres', open: () => openPostgresTestSchema(postgresUrl) },
    {
      TOKEN_ISSUANCE_ENABLED: 'true',
      JWT_SIGNING_ALG: 'EdDSA',
      JWT_PRIVATE_KEY_PEM: ed25519Pem(),
      JWT_AUTHORITY: 'cp.fuzz',
      CONTROL_PLANE_PINNED_KEYS: [alice.pinnedEntry(), bob.pinnedEntry()].join(','),
      LOG_WITNESS_ENABLED: 'true',
      LOG_WITNESS_SCHEDULE: 'false',
      LOG_WITNESS_UNREACHABLE_THRESHOLD: '1',
      WITNESS_COSIGNING_ENABLED: 'true',
      WITNESS_ID: 'did:web:witness.fuzz',
      PUBLIC_HOST: 'witness.fuzz',
      WITNESS_SIGNING_PRIVATE_KEY_PEM: ed25519Pem(),
      CONSOLE_ENABLED: 'true',
      CONSOLE_ASSETS_DIR: consoleDir,
    },
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
  // Issue 19 attacks, kept under fuzz: a V2 seal binding a tenant (mutated tenant/run/id headers must not verify)
  // and a retraction of another registry's context (the authority binding must refuse it, never 5xx).
  const stamp = Math.floor(T0 / 1000)
  const bound = { tenantId: 'fuzz-tenant', runId: RUN_ID, eventId: 'fuzz-delivery' }
  const hmacV2 = (body: Buffer) => ({
    'x-acdp-timestamp': String(stamp),
    'x-acdp-signature-v2': signWebhookV2(TEST_WEBHOOK_SECRET, stamp, bound, body),
  })

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
  await expectOk(
    app.inject({
      method: 'POST',
      url: '/registries/enroll',
      headers: admin,
      payload: { authority: UPSTREAM, baseUrl: upstream.origin(UPSTREAM) },
    }),
    'enroll',
  )
  await expectOk(
    app.inject({
      method: 'POST',
      url: '/registries/enroll',
      headers: admin,
      payload: { authority: RELAYED, baseUrl: upstream.origin(RELAYED) },
    }),
    'enroll the relayed registry',
  )
  // One witness poll of the enrolled registry: it serves no log, so the poll fails and (threshold 1) raises the
  // unreachable alert the state and acknowledgement seeds read.
  const poller = app.witness.poller
  if (poller === undefined) throw new Error('control-plane fuzz setup: the witness poller is off')
  await poller.pollDue()
  // Tokens: a challenge for the exchange seed (single use: only the first exchange succeeds), one token to
  // introspect and one to revoke.
  const challenge = await requestChallenge(app, alice)
  const heldToken = await issueToken(app, alice)
  const revokedToken = await issueToken(app, bob)
  await expectOk(
    app.inject({ method: 'POST', url: '/capabilities', headers: user, payload: declaration(bob) }),
    'capability',
  )

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
      route: 'POST /ingest/acdp',
      method: 'POST',
      path: '/ingest/acdp',
      headers: {
        'content-type': 'application/json',
        'x-tenant-id': bound.tenantId,
        'x-run-id': bound.runId,
        'x-acdp-event-id': bound.eventId,
      },
      body: retrievedEvent({ event_id: undefined }),
      sealBytes: hmacV2,
    },
    {
      route: 'POST /ingest/acdp',
      method: 'POST',
      path: '/ingest/acdp',
      headers: { 'content-type': 'application/json' },
      body: {
        type: 'context_retracted',
        registry_authority: 'attacker.fuzz',
        ctx_id: parent.ctx_id,
        actor: 'did:web:attacker.fuzz',
        at: '2026-01-15T11:59:30.000Z',
      },
      expectStatus: 403,
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
        // The write-only read credential (an RFC 6750 b64token): mutations probe its type, length and syntax.
        readCredential: 'fuzz-read-credential.eyJzdWIiOiJmdXp6In0.c2ln',
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
    { route: 'GET /session', method: 'GET', path: '/session', headers: user },
    { route: 'GET /dashboard/activity', method: 'GET', path: '/dashboard/activity?window=7d', headers: user },
    {
      route: 'POST /auth/challenge',
      method: 'POST',
      path: '/auth/challenge',
      headers: { 'content-type': 'application/json' },
      body: { agent_id: alice.did },
    },
    {
      route: 'POST /auth/token',
      method: 'POST',
      path: '/auth/token',
      headers: { 'content-type': 'application/json' },
      body: tokenRequest(alice, challenge),
    },
    {
      route: 'POST /auth/introspect',
      method: 'POST',
      path: '/auth/introspect',
      headers: { ...admin, 'content-type': 'application/json' },
      body: { token: heldToken },
    },
    {
      route: 'POST /auth/token/revoke',
      method: 'POST',
      path: '/auth/token/revoke',
      headers: { ...admin, 'content-type': 'application/json' },
      body: { token: revokedToken, reason: 'admin_revoke' },
    },
    { route: 'GET /auth/revocations', method: 'GET', path: '/auth/revocations?since=0&limit=10', headers: admin },
    // The fuzz target follows no peer feed: the list is empty, the route and its admin check are reached.
    { route: 'GET /auth/revocation-feeds', method: 'GET', path: '/auth/revocation-feeds', headers: admin },
    { route: 'GET /.well-known/jwks.json', method: 'GET', path: '/.well-known/jwks.json', headers: {} },
    { route: 'GET /admin/pinned-keys', method: 'GET', path: '/admin/pinned-keys', headers: admin },
    { route: 'POST /admin/pinned-keys/reload', method: 'POST', path: '/admin/pinned-keys/reload', headers: admin },
    { route: 'GET /runs', method: 'GET', path: '/runs?limit=1', headers: bearer(heldToken) },
    {
      route: 'POST /capabilities',
      method: 'POST',
      path: '/capabilities',
      headers: { ...user, 'content-type': 'application/json' },
      body: declaration(alice),
      sealValue: (value) => resignDeclaration(value, [alice, bob]),
    },
    {
      route: 'GET /capabilities/search',
      method: 'GET',
      path: `/capabilities/search?capability=${encodeURIComponent(CAPABILITY)}`,
      headers: user,
    },
    {
      route: 'GET /capabilities/by-agent/*',
      method: 'GET',
      path: `/capabilities/by-agent/${encodeURIComponent(bob.did)}`,
      headers: user,
    },
    {
      route: 'GET /routing/select',
      method: 'GET',
      path: `/routing/select?capability=${encodeURIComponent(CAPABILITY)}`,
      headers: user,
    },
    {
      route: 'GET /routing/stats',
      method: 'GET',
      path: `/routing/stats?capability=${encodeURIComponent(CAPABILITY)}`,
      headers: admin,
    },
    { route: 'GET /contexts/*', method: 'GET', path: `/contexts/${encodeURIComponent(UPSTREAM_CTX)}`, headers: user },
    { route: 'GET /contexts/*', method: 'GET', path: `/contexts/${UPSTREAM_CTX}`, headers: user },
    {
      route: 'GET /registries/log-witness/alerts',
      method: 'GET',
      path: '/registries/log-witness/alerts',
      headers: user,
    },
    {
      route: 'GET /receipt-audit/verdicts',
      method: 'GET',
      path: '/receipt-audit/verdicts?verdict=discrepancy&acknowledged=false&limit=10',
      headers: user,
    },
    {
      route: 'GET /receipt-audit/summary',
      method: 'GET',
      path: '/receipt-audit/summary?runs=5',
      headers: user,
    },
    {
      route: 'POST /receipt-audit/verdicts/:eventId/ack',
      method: 'POST',
      path: '/receipt-audit/verdicts/1/ack',
      headers: admin,
      // The receipt audit is off in the fuzz target, so there is no discrepancy to acknowledge: the envelope's 404.
      expectStatus: 404,
    },
    {
      route: 'GET /registries/:authority/log-witness',
      method: 'GET',
      path: `/registries/${UPSTREAM}/log-witness`,
      headers: user,
    },
    // Webhook secret rotation of the upstream's enrollment (no secret of its own: WEBHOOK_SECRET becomes the
    // previous one), and the end of that rotation.
    {
      route: 'POST /registries/:authority/webhook-secret/rotate',
      method: 'POST',
      path: `/registries/${UPSTREAM}/webhook-secret/rotate`,
      headers: { ...admin, 'content-type': 'application/json' },
      body: { webhookSecret: 'rotated-enrollment-secret-0123456789', previousValidForSeconds: 3600 },
    },
    {
      route: 'DELETE /registries/:authority/webhook-secret/previous',
      method: 'DELETE',
      path: `/registries/${UPSTREAM}/webhook-secret/previous`,
      headers: admin,
    },
    {
      route: 'POST /registries/:authority/log-witness/ack',
      method: 'POST',
      path: `/registries/${UPSTREAM}/log-witness/ack`,
      headers: admin,
    },
    // The relayed registry serves its capabilities (no log: the evidence is null) and DID document.
    {
      route: 'GET /registries/:authority/capabilities',
      method: 'GET',
      path: `/registries/${RELAYED}/capabilities`,
      headers: user,
    },
    // Keyword search fanned out to the enrolled registries: each registry's answer (here their 404s) comes back in
    // its own entry, so the search itself succeeds.
    { route: 'GET /contexts/search', method: 'GET', path: '/contexts/search?q=fuzz&limit=5', headers: user },
    {
      route: 'GET /registries/:authority/lineages/:lineageId',
      method: 'GET',
      path: `/registries/${RELAYED}/lineages/${encodeURIComponent('lin:sha256:' + 'ab'.repeat(32))}`,
      headers: user,
      // The relayed registry holds no lineage: the seed reaches the relay and its answer, the registry's 404.
      expectStatus: 404,
    },
    // The relayed registry's probes (it serves neither: both are not_served, the route answers 200).
    {
      route: 'GET /registries/:authority/health',
      method: 'GET',
      path: `/registries/${RELAYED}/health`,
      headers: user,
    },
    {
      route: 'GET /registries/:authority/did-document',
      method: 'GET',
      path: `/registries/${RELAYED}/did-document`,
      headers: user,
    },
    {
      route: 'GET /registries/:authority/log-evidence',
      method: 'GET',
      path: `/registries/${RELAYED}/log-evidence?ctxId=${encodeURIComponent(RELAYED_CTX)}`,
      headers: user,
    },
    {
      route: 'GET /log/witness',
      method: 'GET',
      path: `/log/witness?log_id=${encodeURIComponent(`did:web:${UPSTREAM}/log/1`)}&tree_size=1`,
      headers: {},
    },
    { route: 'GET /.well-known/acdp-witness.json', method: 'GET', path: '/.well-known/acdp-witness.json', headers: {} },
    { route: 'GET /.well-known/did.json', method: 'GET', path: '/.well-known/did.json', headers: {} },
    // /console redirects to /console/ (the seed reaches the redirect).
    { route: 'GET /console', method: 'GET', path: '/console', headers: {}, expectStatus: 301 },
    { route: 'GET /console/', method: 'GET', path: '/console/', headers: {} },
    { route: 'GET /console/*', method: 'GET', path: '/console/assets/app.js', headers: {} },
  ]

  const routes = listRoutes(app.printRoutes({ commonPrefix: true }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return {
    name: postgresUrl === undefined ? 'control-plane' : 'control-plane-postgres',
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
      await upstream.close()
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

/** A fresh Ed25519 PKCS#8 PEM (JWT signer, witness key). */
function ed25519Pem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
}

/** A minimal console build (index.html and one hashed asset) for the static routes to serve. */
function writeConsoleAssets(root: string): string {
  mkdirSync(join(root, 'assets'), { recursive: true })
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title><script src="assets/app.js"></script>')
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log("fuzz")\n')
  return root
}

/** A capability declaration signed by `agent` (product spec "Capabilities": `acdp-cap:v1:<did>:<uri>:<at>`). */
function declaration(agent: TestAgent, uri = CAPABILITY, at = '2026-01-15T12:00:00.000Z'): Record<string, unknown> {
  return {
    agent_did: agent.did,
    capability_uri: uri,
    declared_at: at,
    key_id: agent.keyId,
    algorithm: agent.key.algorithm,
    signature: agent.sign(`acdp-cap:v1:${agent.did}:${uri}:${at}`),
  }
}

/** Re-signs a mutated declaration with the key of the agent it names (when that agent is one of ours). */
function resignDeclaration(value: Record<string, unknown>, agents: TestAgent[]): Record<string, unknown> {
  const signer = agents.find((a) => a.did === value['agent_did'])
  if (signer === undefined) return value
  const { agent_did, capability_uri, declared_at } = value
  return {
    ...value,
    signature: signer.sign(`acdp-cap:v1:${String(agent_did)}:${String(capability_uri)}:${String(declared_at)}`),
  }
}
