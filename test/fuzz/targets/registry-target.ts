/**
 * The registry under fuzz: the real app (real store on a temporary SQLite file, real signature checks, the
 * DID resolver on in-memory did:web hosting, so nothing leaves the machine), listening on 127.0.0.1 port 0, with
 * every optional feature on (receipts, head receipts, the transparency log, lifecycle, admin routes) and one valid
 * seed per route. Publish and lifecycle seeds re-sign mutated requests so they reach the validators.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signLifecycleEvent } from '@acdp/protocol'
import { openDatabase, openPostgresTestSchema } from '@acdp/storage'
import {
  createTestRegistry,
  didKeyProducer,
  didWebProducer,
  FakeDidWeb,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
} from '../../../packages/registry/test/support/registry-harness.js'
import { TRUST_CONFIG } from '../../../packages/registry/test/support/trust.js'
import { createRegistryMetrics } from '../../../packages/registry/src/core/metrics.js'
import { coreRegistrySeeds } from './registry-core-seeds.js'
import type { FuzzSeed, FuzzTarget } from '../seed.js'
import { serveRegistryTarget } from './serve-registry-target.js'

/** The admin bearer of the fuzzed registry (test only). */
const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdef'

/** @param postgresUrl run on a throwaway schema of this PostgreSQL database instead of a temporary SQLite file. */
export async function startRegistryTarget(postgresUrl?: string): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-fuzz-registry-'))
  const dids = new FakeDidWeb()
  const webProducer = didWebProducer('did:web:agents.example.com')
  dids.host([webProducer])
  const keyProducer = didKeyProducer()
  const p256Producer = didKeyProducer('ecdsa-p256')
  const registry = await createTestRegistry({
    dids,
    openDatabase: () =>
      postgresUrl === undefined
        ? openDatabase({ kind: 'sqlite', path: join(dir, 'registry.db') })
        : openPostgresTestSchema(postgresUrl),
    config: {
      ...TRUST_CONFIG,
      registry: {
        profiles: ['acdp-registry-core', 'acdp-registry-discovery'],
        cors: { allowed_origins: ['https://app.example.com'] },
      },
      limits: { publish_rate_per_minute: 0 },
      metrics: { enabled: true },
      lifecycle: { enabled: true },
      auth: { admin_tokens: [ADMIN_TOKEN] },
    },
    deps: { metrics: createRegistryMetrics() },
  })
  const first = await publish(
    registry.app,
    signRequest(keyProducer, minimalUnsigned(keyProducer, { title: 'fuzz parent', tags: ['fuzz', 'parent'] })),
  )
  if (first.statusCode !== 201) throw new Error(`registry fuzz setup: publish answered ${first.statusCode}`)
  const parent = first.json() as { ctx_id: string; lineage_id: string }
  const encoded = encodeURIComponent(parent.ctx_id)
  // Lifecycle targets, one per seed so the seeds do not undo each other: one to retract, one already retracted
  // (to republish), one for the registry-initiated retraction.
  const toRetract = await publishContext(registry, keyProducer, 'fuzz retract target')
  const toRepublish = await publishContext(registry, keyProducer, 'fuzz republish target')
  const retracted = await registry.app.inject({
    method: 'POST',
    url: `/contexts/${encodeURIComponent(toRepublish)}/retract`,
    headers: { 'content-type': 'application/acdp+json' },
    payload: { event: lifecycleEvent(registry, keyProducer, toRepublish, 'retracted') },
  })
  if (retracted.statusCode !== 200) throw new Error(`registry fuzz setup: retract answered ${retracted.statusCode}`)
  const toAdminRetract = await publishContext(registry, keyProducer, 'fuzz admin retract target')
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const lifecycleSeed = (ctxId: string, action: 'retract' | 'republish'): FuzzSeed => ({
    route: 'POST /contexts/*',
    method: 'POST',
    path: `/contexts/${encodeURIComponent(ctxId)}/${action}`,
    headers: { 'content-type': 'application/acdp+json' },
    body: { event: lifecycleEvent(registry, keyProducer, ctxId, action === 'retract' ? 'retracted' : 'republished') },
    sealValue: (value) => resignEvent(value, keyProducer),
  })

  const reseal = (producer: typeof keyProducer) => (value: Record<string, unknown>) => signRequest(producer, value)
  const publishSeed = (
    producer: typeof keyProducer,
    overrides: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): FuzzSeed => ({
    route: 'POST /contexts',
    method: 'POST',
    path: '/contexts',
    headers: { 'content-type': 'application/acdp+json', ...headers },
    body: signRequest(producer, minimalUnsigned(producer, overrides)),
    sealValue: reseal(producer),
  })

  const seeds: FuzzSeed[] = [
    ...coreRegistrySeeds({ keyProducer, webProducer, p256Producer, parent, publishSeed }),
    { route: 'GET /openapi.json', method: 'GET', path: '/openapi.json', headers: {} },
    { route: 'GET /.well-known/did.json', method: 'GET', path: '/.well-known/did.json', headers: {} },
    // Served with auth off too (an empty key set).
    { route: 'GET /.well-known/jwks.json', method: 'GET', path: '/.well-known/jwks.json', headers: {} },
    { route: 'GET /log/checkpoint', method: 'GET', path: '/log/checkpoint', headers: {} },
    { route: 'GET /log/proof', method: 'GET', path: `/log/proof?ctx_id=${encoded}`, headers: {} },
    { route: 'GET /log/proof', method: 'GET', path: '/log/proof?leaf_index=0&tree_size=2', headers: {} },
    // No tree_size: the current size, which the SQLite store takes from its writer once a leaf has committed.
    { route: 'GET /log/proof', method: 'GET', path: '/log/proof?leaf_index=1', headers: {} },
    { route: 'GET /log/proof', method: 'GET', path: '/log/proof?first=1&second=3', headers: {} },
    { route: 'GET /log/entries', method: 'GET', path: '/log/entries?start=0&end=3', headers: {} },
    { route: 'POST /admin/log/verify', method: 'POST', path: '/admin/log/verify', headers: admin },
    { route: 'GET /admin/status', method: 'GET', path: '/admin/status', headers: admin },
    {
      route: 'OPTIONS /*',
      method: 'OPTIONS',
      path: '/contexts',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, authorization',
      },
    },
    lifecycleSeed(toRetract, 'retract'),
    lifecycleSeed(toRepublish, 'republish'),
    {
      route: 'POST /admin/contexts/*',
      method: 'POST',
      path: `/admin/contexts/${encodeURIComponent(toAdminRetract)}/retract`,
      headers: { ...admin, 'content-type': 'application/json' },
      body: { reason: 'fuzz: registry-initiated retraction' },
    },
  ]

  return serveRegistryTarget(postgresUrl === undefined ? 'registry' : 'registry-postgres', registry, seeds, dir)
}

async function publishContext(registry: TestRegistry, producer: Producer, title: string): Promise<string> {
  const answer = await publish(registry.app, signRequest(producer, minimalUnsigned(producer, { title })))
  if (answer.statusCode !== 201) throw new Error(`registry fuzz setup: publish answered ${answer.statusCode}`)
  return (answer.json() as { ctx_id: string }).ctx_id
}

/** A producer-signed lifecycle event (RFC-ACDP-0013 §5) for `ctxId`, occurring now on the registry's clock. */
function lifecycleEvent(
  registry: TestRegistry,
  producer: Producer,
  ctxId: string,
  eventType: 'retracted' | 'republished',
): Record<string, unknown> {
  return signLifecycleEvent(
    {
      event_id: randomUUID(),
      ctx_id: ctxId,
      event_type: eventType,
      occurred_at: new Date(registry.clock.nowMs).toISOString(),
      actor: producer.did,
    },
    { algorithm: producer.algorithm, keyId: producer.keyId, privateKey: producer.privateKey },
  ) as unknown as Record<string, unknown>
}

/** Re-signs a mutated `{ event }` body's event so mutations reach the checks behind the signature. */
function resignEvent(value: Record<string, unknown>, producer: Producer): Record<string, unknown> {
  const event = value['event']
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return value
  const { signature: _signature, ...unsigned } = event as Record<string, unknown>
  const signed = signLifecycleEvent(unsigned as unknown as Parameters<typeof signLifecycleEvent>[0], {
    algorithm: producer.algorithm,
    keyId: producer.keyId,
    privateKey: producer.privateKey,
  })
  return { ...value, event: signed }
}
