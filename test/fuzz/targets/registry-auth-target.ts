/**
 * The registry under fuzz with bearer authentication on (registry-target.ts runs it without): the real app (real
 * store on a temporary SQLite file, real signature checks, the DID resolver on in-memory did:web hosting, so
 * nothing leaves the machine), listening on 127.0.0.1 port 0, with one valid seed per route, /auth/* included.
 * Publish seeds carry a bearer for their producer and re-sign mutated requests so they reach the validators.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
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
import { createRegistryMetrics } from '../../../packages/registry/src/metrics.js'
import { login, requestChallenge, tokenRequestFor } from '../../../packages/registry/test/support/bearer-login.js'
import { listRoutes } from '../route-list.js'
import { coreRegistrySeeds } from './registry-core-seeds.js'
import type { FuzzSeed, FuzzTarget } from '../seed.js'

export async function startRegistryAuthTarget(): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-fuzz-registry-'))
  const dids = new FakeDidWeb()
  const webProducer = didWebProducer('did:web:agents.example.com')
  dids.host([webProducer])
  const keyProducer = didKeyProducer()
  const p256Producer = didKeyProducer('ecdsa-p256')
  const registry = await createTestRegistry({
    dids,
    openDatabase: () => openDatabase({ kind: 'sqlite', path: join(dir, 'registry.db') }),
    config: {
      registry: { profiles: ['acdp-registry-core', 'acdp-registry-discovery'] },
      limits: { publish_rate_per_minute: 0 },
      metrics: { enabled: true },
      // Bearer authentication on, so /auth/* is fuzzed too and publishes go through the bearer check.
      auth: { enabled: true, jwt_secret: Buffer.alloc(32, 7).toString('base64') },
      // The harness clock stands still: per-IP buckets would never refill and hide /auth/* behind 429s.
      rate_limit: { enabled: false },
      // Trust layer and lifecycle on, so their routes are fuzzed past the 501 of a disabled profile.
      receipt: { signing_key_seed_b64: Buffer.alloc(32, 3).toString('base64') },
      log: { enabled: true },
      lifecycle: { enabled: true },
    },
    deps: { metrics: createRegistryMetrics() },
  })
  // The harness clock stands still, so these tokens outlive the run.
  const tokens = new Map<string, string>()
  for (const producer of [webProducer, keyProducer, p256Producer]) {
    tokens.set(producer.did, `Bearer ${await login(registry.app, producer)}`)
  }
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
    { route: 'GET /openapi.json', method: 'GET', path: '/openapi.json', headers: {} },
  ]

  const routes = listRoutes(registry.app.printRoutes({ commonPrefix: true }))
  await registry.app.listen({ host: '127.0.0.1', port: 0 })
  const address = registry.app.server.address()
  return {
    name: 'registry with bearer auth',
    port: typeof address === 'object' && address !== null ? address.port : 0,
    seeds,
    routes,
    checkErrorEnvelope: (status, body) => {
      const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error
      if (typeof error !== 'object' || error === null) return `${status} without {"error":{…}}`
      if (typeof error.code !== 'string' || typeof error.message !== 'string')
        return `${status} error lacks code/message`
      return undefined
    },
    async close() {
      await registry.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
