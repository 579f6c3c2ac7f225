/**
 * Test harness: a real registry (real store, real DID resolver, real signature verification) driven through
 * `app.inject`, with producers whose keys are generated per test. did:web documents are served by an in-memory
 * fetcher injected into the real `DidResolver`, so the full resolution pipeline runs without network.
 */
import { randomBytes } from 'node:crypto'
import {
  computeContentHash,
  type DidMethod,
  DidResolver,
  decompressP256PublicKey,
  didKeyKeyId,
  didWebToUrl,
  encodeDidKey,
  generateSigningKey,
  ProtocolError,
  type RegistryWebhookEventFields,
  type SignatureAlgorithm,
  signContentHash,
} from '@acdp/protocol'
import { type Database, openDatabase } from '@acdp/storage'
import type { FastifyInstance } from 'fastify'
import { afterEach } from 'vitest'
import { buildApp } from '../../src/app.js'
import { type RegistryConfig, type RegistryConfigInput, resolveConfig } from '../../src/core/config.js'
import { allowedDidMethods, type RegistryDeps } from '../../src/core/deps.js'
import { RegistryEvents } from '../../src/core/registry-events.js'
import { createAuthStore } from '../../src/auth/auth-store.js'
import { createKyselyStore } from '../../src/store/kysely-store.js'
import { migrateRegistryDatabase } from '../../src/store/open-store.js'
import { createRevocationFeedStore } from '../../src/auth/revocation-feed-store.js'
import type { WebhookDispatcher } from '../../src/webhooks/webhooks.js'
import type { RegistryDatabase } from '../../src/store/schema.js'
import { createContextSearchStore } from '../../src/search/search-store.js'
import type { RegistryStore } from '../../src/store/store.js'

export const AUTHORITY = 'registry.example.com'

/** A signing identity: did:key (pure resolution) or did:web (served by `FakeDidWeb`). */
export interface Producer {
  did: string
  keyId: string
  algorithm: SignatureAlgorithm
  privateKey: Uint8Array
  publicKey: Uint8Array
}

export function didKeyProducer(algorithm: SignatureAlgorithm = 'ed25519'): Producer {
  const key = generateSigningKey(algorithm)
  const did = encodeDidKey({ algorithm, publicKey: key.publicKey })
  return { did, keyId: didKeyKeyId(did), algorithm, privateKey: key.privateKey, publicKey: key.publicKey }
}

export function didWebProducer(did: string, algorithm: SignatureAlgorithm = 'ed25519', fragment = 'key-1'): Producer {
  const key = generateSigningKey(algorithm)
  return { did, keyId: `${did}#${fragment}`, algorithm, privateKey: key.privateKey, publicKey: key.publicKey }
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')

/** A DID document listing each producer's key in verificationMethod and (unless told otherwise) assertionMethod. */
export function didDocumentFor(producers: Producer[], options: { assert?: boolean } = {}): Record<string, unknown> {
  const did = producers[0]?.did as string
  const methods = producers.map((p) => {
    if (p.algorithm === 'ed25519') {
      return {
        id: p.keyId,
        type: 'JsonWebKey2020',
        controller: did,
        publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: b64url(p.publicKey) },
      }
    }
    const full = decompressP256PublicKey(p.publicKey)
    return {
      id: p.keyId,
      type: 'JsonWebKey2020',
      controller: did,
      publicKeyJwk: { kty: 'EC', crv: 'P-256', x: b64url(full.subarray(1, 33)), y: b64url(full.subarray(33, 65)) },
    }
  })
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: did,
    verificationMethod: methods,
    assertionMethod: options.assert === false ? [] : producers.map((p) => p.keyId),
  }
}

type Answer = { status: number; body: Uint8Array } | 'unreachable'

/** In-memory did:web hosting: URL → answer. Counts fetches so tests can assert "no DID work". */
export class FakeDidWeb {
  readonly #answers = new Map<string, Answer>()
  fetches = 0

  /** Serves the DID document of `producers` (all of one DID). */
  host(producers: Producer[], options: { assert?: boolean } = {}): void {
    const did = producers[0]?.did as string
    this.#answers.set(didWebToUrl(did).href, {
      status: 200,
      body: new TextEncoder().encode(JSON.stringify(didDocumentFor(producers, options))),
    })
  }

  answer(did: string, answer: Answer): void {
    this.#answers.set(didWebToUrl(did).href, answer)
  }

  readonly fetchDidDocument = async (url: URL): Promise<{ status: number; body: Uint8Array }> => {
    this.fetches++
    const answer = this.#answers.get(url.href)
    if (answer === 'unreachable') throw new ProtocolError('outbound_failed', 'connect timeout')
    return answer ?? { status: 404, body: new Uint8Array() }
  }
}

/** A settable clock. */
export class TestClock {
  constructor(public nowMs = Date.parse('2026-05-01T12:00:00.000Z')) {}
  readonly now = () => new Date(this.nowMs)
  advance(ms: number): void {
    this.nowMs += ms
  }
}

/** The fields a producer signs (everything but content_hash and signature). */
export type UnsignedRequest = Record<string, unknown>

/**
 * A minimal publishable body. A did:key producer declares acdp_version 0.2.0 (did:key arrived in 0.2.0; an absent
 * version reads as 0.1.0, which admits only did:web agents); did:web bodies omit it, the 0.1.0 form.
 */
export function minimalUnsigned(producer: Producer, overrides: UnsignedRequest = {}): UnsignedRequest {
  return {
    ...(producer.did.startsWith('did:key:') ? { acdp_version: '0.2.0' } : {}),
    version: 1,
    supersedes: null,
    agent_id: producer.did,
    contributors: [],
    title: 'Minimal',
    type: 'data_snapshot',
    data_refs: [],
    derived_from: [],
    visibility: 'public',
    ...overrides,
  }
}

/** Computes content_hash and signs it: a publish request the registry must accept. */
export function signRequest(producer: Producer, unsigned: UnsignedRequest): Record<string, unknown> {
  const { content_hash: _h, signature: _s, ...rest } = unsigned
  const contentHash = computeContentHash(rest)
  const value = signContentHash({ algorithm: producer.algorithm, privateKey: producer.privateKey, contentHash })
  return {
    ...rest,
    content_hash: contentHash,
    signature: { algorithm: producer.algorithm, key_id: producer.keyId, value },
  }
}

export interface TestRegistry {
  app: FastifyInstance
  deps: RegistryDeps
  store: RegistryStore
  database: Database<RegistryDatabase>
  config: RegistryConfig
  clock: TestClock
  dids: FakeDidWeb
  close(): Promise<void>
}

export interface TestRegistryOptions {
  config?: RegistryConfigInput
  /** Opens the database (default SQLite in memory). */
  openDatabase?: () => Promise<Database<unknown>>
  clock?: TestClock
  dids?: FakeDidWeb
  deps?: Partial<RegistryDeps>
}

export async function createTestRegistry(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  const config = resolveConfig({
    ...options.config,
    registry: { authority: AUTHORITY, ...options.config?.registry },
    storage: { backend: 'sqlite', sqlite_path: ':memory:', ...options.config?.storage },
  })
  const database = (await (
    options.openDatabase ?? (() => openDatabase({ kind: 'sqlite', path: ':memory:' }))
  )()) as Database<RegistryDatabase>
  await migrateRegistryDatabase(database)
  const store = createKyselyStore(database)
  const clock = options.clock ?? new TestClock()
  const dids = options.dids ?? new FakeDidWeb()
  const deps: RegistryDeps = {
    store,
    searchStore: createContextSearchStore(database),
    authStore: createAuthStore(database),
    revocationFeedStore: createRevocationFeedStore(database),
    clock: clock.now,
    random: (size) => new Uint8Array(randomBytes(size)),
    resolver: new DidResolver({
      fetchDidDocument: dids.fetchDidDocument,
      clock: () => clock.nowMs,
      allowedMethods: allowedDidMethods(config) as DidMethod[],
      minRefetchIntervalMs: 0,
      failureCacheMs: 0,
    }),
    logger: false,
    events: new RegistryEvents(),
    ...options.deps,
  }
  const app = await buildApp(config, deps)
  await app.ready()
  return {
    app,
    deps,
    store,
    database,
    config,
    clock,
    dids,
    async close() {
      await app.close()
      await database.close()
    },
  }
}

/**
 * For a test file whose tests each start one registry: registers an `afterEach` that closes the registry the
 * returned `start` opened last, and returns `start`. Call once, at the top level of the file.
 */
export function useTestRegistry(): (options?: TestRegistryOptions) => Promise<TestRegistry> {
  let current: TestRegistry | undefined
  afterEach(async () => {
    await current?.close()
    current = undefined
  })
  return async (options = {}) => {
    current = await createTestRegistry(options)
    return current
  }
}

/** A webhook dispatcher that records the events it is handed (in `events`) instead of delivering them. */
export function recordingDispatcher(): WebhookDispatcher & { events: RegistryWebhookEventFields[] } {
  const events: RegistryWebhookEventFields[] = []
  return {
    events,
    emit(event) {
      events.push(event)
      return 'event-id'
    },
    stats: () => ({ enabled: true, queue_in_flight: 0, queue_capacity: 1 }),
    close: async () => {},
  }
}

/** POST /contexts with the ACDP media type. */
export function publish(app: FastifyInstance, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/contexts',
    headers: { 'content-type': 'application/acdp+json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** Counts the rows a failed publish must not have written. */
export async function countRows(database: Database<RegistryDatabase>): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of [
    'context',
    'context_audience',
    'context_tag',
    'context_derived_from',
    'idempotency_record',
  ] as const) {
    const rows = await database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    out[table] = Number(rows.n)
  }
  return out
}
