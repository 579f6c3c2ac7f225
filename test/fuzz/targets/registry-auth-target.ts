/**
 * The registry under fuzz with bearer authentication on (registry-target.ts runs it without): the real app (real
 * store on a temporary SQLite file, real signature checks, the DID resolver on in-memory did:web hosting, so
 * nothing leaves the machine), listening on 127.0.0.1 port 0, with one valid seed per route, /auth/* included.
 * Publish seeds carry a bearer for their producer and re-sign mutated requests so they reach the validators.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signLifecycleEvent } from '@acdp/protocol'
import { openDatabase } from '@acdp/storage'
import {
  createTestRegistry,
  didKeyProducer,
  didWebProducer,
  FakeDidWeb,
  minimalUnsigned,
  publish,
  signRequest,
} from '../../../packages/registry/test/support/registry-harness.js'
import { createRegistryMetrics } from '../../../packages/registry/src/core/metrics.js'
import { login, requestChallenge, tokenRequestFor } from '../../../packages/registry/test/support/bearer-login.js'
import { coreRegistrySeeds } from './registry-core-seeds.js'
import type { FuzzSeed, FuzzTarget } from '../seed.js'
import { serveRegistryTarget } from './serve-registry-target.js'

const ADMIN_TOKEN = 'fuzz-admin-token'
/** Pins valid around the harness clock (which stands still at 2026-05-01T12:00Z), in unix seconds. */
const PIN_WINDOW = { from: Date.parse('2026-05-01T00:00:00Z') / 1000, until: Date.parse('2026-05-02T00:00:00Z') / 1000 }

export async function startRegistryAuthTarget(): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-fuzz-registry-'))
  const dids = new FakeDidWeb()
  const webProducer = didWebProducer('did:web:agents.example.com')
  dids.host([webProducer])
  const keyProducer = didKeyProducer()
  const p256Producer = didKeyProducer('ecdsa-p256')
  const pins = [webProducer, keyProducer].map((p) => ({
    agent_did: p.did,
    public_key_b64: Buffer.from(p.publicKey).toString('base64'),
    algorithm: 'ed25519' as const,
    valid_from: PIN_WINDOW.from,
    valid_until: PIN_WINDOW.until,
  }))
  const registry = await createTestRegistry({
    dids,
    openDatabase: () => openDatabase({ kind: 'sqlite', path: join(dir, 'registry.db') }),
    config: {
      registry: { profiles: ['acdp-registry-core', 'acdp-registry-discovery'] },
      limits: { publish_rate_per_minute: 0 },
      metrics: { enabled: true },
      // Bearer authentication on (below), so /auth/* is fuzzed too and publishes go through the bearer check.
      // The harness clock stands still: per-IP buckets would never refill and hide /auth/* behind 429s.
      // Loopback is a trusted proxy, so X-Tenant-Id reaches the tenant checks instead of a flat 403.
      // Trust layer and lifecycle on, so their routes are fuzzed past the 501 of a disabled profile.
      receipt: { signing_key_seed_b64: Buffer.alloc(32, 3).toString('base64') },
      log: { enabled: true },
      lifecycle: { enabled: true },
      // Admin routes mounted (admin lifecycle, log verify) and, as a playground build, GET /admin/contexts.
      auth: {
        enabled: true,
        jwt_secret: Buffer.alloc(32, 7).toString('base64'),
        admin_tokens: [ADMIN_TOKEN],
        tenant_header_trust: 'trusted_proxies',
      },
      rate_limit: { enabled: false, trusted_proxies: ['127.0.0.1'] },
      // A playground build refuses a receipt key unless every producer is pinned (pinned_only): the two Ed25519
      // producers are; the P-256 one is not, so its publishes are refused before any DID work (403).
      playground: {
        enabled: true,
        pinned_only: true,
        pinned_keys: pins,
      },
    },
    // The reload re-reads the same pins (a real deployment re-reads its file and environment).
    deps: { metrics: createRegistryMetrics(), reloadPinnedKeys: () => pins },
  })
  // The harness clock stands still, so these tokens outlive the run.
  const tokens = new Map<string, string>()
  for (const producer of [webProducer, keyProducer]) {
    tokens.set(producer.did, `Bearer ${await login(registry.app, producer)}`)
  }
  // The unpinned P-256 producer cannot log in; its seeds carry another agent's token (refused as not its own).
  tokens.set(p256Producer.did, tokens.get(keyProducer.did) as string)
  const authorization = (producer: typeof keyProducer) => tokens.get(producer.did) as string
  const first = await publish(
    registry.app,
    signRequest(keyProducer, minimalUnsigned(keyProducer, { title: 'fuzz parent', tags: ['fuzz', 'parent'] })),
    { authorization: authorization(keyProducer) },
  )
  if (first.statusCode !== 201) throw new Error(`registry fuzz setup: publish answered ${first.statusCode}`)
  const parent = first.json() as { ctx_id: string; lineage_id: string }
  const victimAnswer = await publish(
    registry.app,
    signRequest(keyProducer, minimalUnsigned(keyProducer, { title: 'fuzz retraction target' })),
    { authorization: authorization(keyProducer) },
  )
  if (victimAnswer.statusCode !== 201)
    throw new Error(`registry fuzz setup: publish answered ${victimAnswer.statusCode}`)
  const victim = victimAnswer.json() as { ctx_id: string }
  const adminVictimAnswer = await publish(
    registry.app,
    signRequest(keyProducer, minimalUnsigned(keyProducer, { title: 'fuzz admin retraction target' })),
    { authorization: authorization(keyProducer) },
  )
  if (adminVictimAnswer.statusCode !== 201)
    throw new Error(`registry fuzz setup: publish answered ${adminVictimAnswer.statusCode}`)
  const adminVictim = adminVictimAnswer.json() as { ctx_id: string }

  const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const reseal = (producer: typeof keyProducer) => (value: Record<string, unknown>) => signRequest(producer, value)
  const publishSeed = (
    producer: typeof keyProducer,
    overrides: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): FuzzSeed => ({
    route: 'POST /contexts',
    method: 'POST',
    path: '/contexts',
    headers: { 'content-type': 'application/acdp+json', authorization: authorization(producer), ...headers },
    body: signRequest(producer, minimalUnsigned(producer, overrides)),
    sealValue: reseal(producer),
    // The unpinned P-256 producer publishes with another agent's token: refused, whatever the body says.
    ...(producer === p256Producer ? { expectStatus: 403 } : {}),
  })

  const seeds: FuzzSeed[] = [
    ...coreRegistrySeeds({ keyProducer, webProducer, p256Producer, parent, publishSeed }),
    { route: 'GET /.well-known/did.json', method: 'GET', path: '/.well-known/did.json', headers: {} },
    { route: 'GET /log/checkpoint', method: 'GET', path: '/log/checkpoint', headers: {} },
    { route: 'GET /log/proof', method: 'GET', path: '/log/proof?leaf_index=0&tree_size=1', headers: {} },
    { route: 'GET /log/entries', method: 'GET', path: '/log/entries?start=0&end=1', headers: {} },
    {
      // The unmutated seed retracts `victim` once; later (mutated) events must be refused cleanly.
      route: 'POST /contexts/*',
      method: 'POST',
      path: `/contexts/${encodeURIComponent(victim.ctx_id)}/retract`,
      headers: { 'content-type': 'application/acdp+json', authorization: authorization(keyProducer) },
      body: {
        event: signLifecycleEvent(
          {
            event_id: randomUUID(),
            ctx_id: victim.ctx_id,
            event_type: 'retracted',
            occurred_at: registry.clock.now().toISOString(),
            actor: keyProducer.did,
          },
          { algorithm: keyProducer.algorithm, keyId: keyProducer.keyId, privateKey: keyProducer.privateKey },
        ),
      },
    },
    { route: 'GET /.well-known/jwks.json', method: 'GET', path: '/.well-known/jwks.json', headers: {} },
    { route: 'GET /admin/status', method: 'GET', path: '/admin/status', headers: adminHeaders },
    {
      route: 'POST /admin/pinned-keys/reload',
      method: 'POST',
      path: '/admin/pinned-keys/reload',
      headers: adminHeaders,
    },
    {
      route: 'POST /auth/challenge',
      method: 'POST',
      path: '/auth/challenge',
      headers: { 'content-type': 'application/json' },
      body: { agent_id: keyProducer.did },
    },
    {
      // Single-use: the unmutated seed redeems it once; every later (mutated) attempt must be refused cleanly.
      route: 'POST /auth/token',
      method: 'POST',
      path: '/auth/token',
      headers: { 'content-type': 'application/json' },
      body: tokenRequestFor(webProducer, await requestChallenge(registry.app, webProducer.did)),
    },
    {
      // Revokes a token of its own, so the publish seeds' tokens stay valid.
      route: 'POST /auth/token/revoke',
      method: 'POST',
      path: '/auth/token/revoke',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await login(registry.app, keyProducer)}`,
      },
      body: { reason: 'user_logout' },
      expectStatus: 204,
    },
    {
      // auth.admin_tokens is empty here (it would mount the admin routes too): the feed refuses every caller,
      // and mutated cursors, limits and bearers must be refused cleanly before anything is read.
      route: 'GET /auth/revocations',
      method: 'GET',
      path: '/auth/revocations?since=0&limit=10',
      headers: { authorization: 'Bearer not-an-admin-token' },
      expectStatus: 403,
    },
    { route: 'GET /openapi.json', method: 'GET', path: '/openapi.json', headers: {} },
    {
      route: 'GET /admin/contexts',
      method: 'GET',
      path: '/admin/contexts?limit=2',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-tenant-id': 'fuzz-tenant' },
    },
    {
      // The unmutated seed retracts `adminVictim` once; later (mutated) requests must be refused cleanly.
      route: 'POST /admin/contexts/*',
      method: 'POST',
      path: `/admin/contexts/${encodeURIComponent(adminVictim.ctx_id)}/retract`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { reason: 'fuzz' },
    },
    {
      route: 'POST /admin/log/verify',
      method: 'POST',
      path: '/admin/log/verify',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    },
  ]

  return serveRegistryTarget('registry with bearer auth', registry, seeds, dir)
}
