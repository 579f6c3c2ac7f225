/**
 * GET /contexts/search with an enrollment's read credential, against real registries on loopback sockets: one
 * registry with bearer authentication (its own challenge login issues the credential), one read anonymously.
 * A restricted context is found with the token of an audience member and not without it; the private one is
 * found only with its producer's token (RFC-ACDP-0005 §2.5.5); a token the registry refuses is that registry's
 * entry (not_authorized) while the other registry still answers; the federation proxy the inspector uses reads
 * the restricted context with the same credential. The credential never appears in a response body (enroll,
 * enrollment list, search) nor in a log line. The control plane store runs on SQLite, and on PostgreSQL when
 * ACDP_TEST_DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import {
  createProducer,
  createProducerKey,
  encodeBase64,
  type ProducerKey,
  signEcdsaP256,
  signEd25519,
} from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN_KEY,
  bearer,
  openTestApp,
  type TestApp,
  USER_KEY,
} from '../../packages/control-plane/test/support/test-app.js'
import { resolveConfig } from '../../packages/registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../packages/registry/src/start.js'
import { createRecordingLogger, type RecordingLogger } from '../support/recording-logger.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const PRIVATE_REGISTRY = 'tenant-reg.test'
const PUBLIC_REGISTRY = 'open-reg.test'

async function listen(registry: RunningRegistry): Promise<string> {
  await registry.app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}`
}

/** The registry's challenge login (POST /auth/challenge, then /auth/token with the signed signing input). */
async function login(registryUrl: string, key: ProducerKey): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${registryUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
    return (await response.json()) as Json
  }
  const challenge = await post('/auth/challenge', { agent_id: key.did })
  const message = new TextEncoder().encode(challenge.signing_input)
  const signature =
    key.algorithm === 'ed25519' ? signEd25519(key.privateKey, message) : signEcdsaP256(key.privateKey, message)
  const issued = await post('/auth/token', {
    agent_id: key.did,
    key_id: key.keyId,
    nonce: challenge.nonce,
    expires_at: challenge.expires_at,
    algorithm: key.algorithm,
    signature: encodeBase64(signature),
  })
  return String(issued.token)
}

/** `fetch` with the producer's bearer: a registry with authentication accepts a publish only from its agent. */
const withBearer =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set('authorization', `Bearer ${token}`)
    return fetch(input, { ...init, headers })
  }

describe('context search with an enrollment read credential against real registries', () => {
  let dataDir: string
  const registries: RunningRegistry[] = []
  let privateUrl: string
  let publicUrl: string
  const producer = createProducerKey()
  const reader = createProducerKey()
  let producerToken: string
  let readerToken: string
  const word = `quokka${Date.now().toString(36)}`
  const ctx: Record<'public' | 'restricted' | 'private' | 'open', string> = {
    public: '',
    restricted: '',
    private: '',
    open: '',
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-search-credentials-'))
    const start = (authority: string, auth: Record<string, unknown>) =>
      startRegistry(
        resolveConfig(
          {
            registry: { authority, base_url: `https://${authority}`, log_level: 'silent' },
            storage: { backend: 'sqlite', sqlite_path: join(dataDir, `${authority}.db`) },
            auth,
          },
          { nodeEnv: 'test' },
        ),
      )
    const authenticated = await start(PRIVATE_REGISTRY, {
      enabled: true,
      jwt_secret: Buffer.alloc(32, 5).toString('base64'),
      did_methods: ['did:web', 'did:key'],
    })
    registries.push(authenticated)
    privateUrl = await listen(authenticated)
    const open = await start(PUBLIC_REGISTRY, {})
    registries.push(open)
    publicUrl = await listen(open)

    producerToken = await login(privateUrl, producer)
    readerToken = await login(privateUrl, reader)
    const publisher = createProducer({ registryUrl: privateUrl, key: producer, fetch: withBearer(producerToken) })
    const publish = async (title: string, visibility: Record<string, unknown>) =>
      (await publisher.publish({ type: 'analysis', title: `${word} ${title}`, ...visibility })).ctxId
    ctx.public = await publish('public finding', {})
    ctx.restricted = await publish('restricted finding', { visibility: 'restricted', audience: [reader.did] })
    ctx.private = await publish('private finding', { visibility: 'private' })
    const anyone = createProducer({ registryUrl: publicUrl, key: createProducerKey() })
    ctx.open = (await anyone.publish({ type: 'analysis', title: `${word} open finding` })).ctxId
  }, 120_000)

  afterAll(async () => {
    for (const registry of registries) await registry.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  describe.each(testDatabaseTargets())('control plane store on $name', (target) => {
    let t: TestApp
    let recording: RecordingLogger
    const bodies: string[] = []

    beforeAll(async () => {
      recording = createRecordingLogger()
      t = await openTestApp(
        target,
        { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', OUTBOUND_ALLOW_HTTP: 'true' },
        { logger: recording.logger },
      )
      await enroll({ authority: PRIVATE_REGISTRY, baseUrl: privateUrl })
      await enroll({ authority: PUBLIC_REGISTRY, baseUrl: publicUrl })
    })
    afterEach(() => {
      for (const token of [producerToken, readerToken]) {
        for (const body of bodies) expect(body).not.toContain(token)
        for (const line of recording.lines) expect(inspect(line, { depth: 8 })).not.toContain(token)
      }
    })
    afterAll(async () => {
      await t?.close()
    })

    async function enroll(body: Record<string, unknown>): Promise<Json> {
      const res = await t.app.inject({
        method: 'POST',
        url: '/registries/enroll',
        headers: bearer(ADMIN_KEY),
        payload: body,
      })
      bodies.push(res.body)
      expect(res.statusCode).toBe(200)
      return res.json()
    }
    async function get(path: string): Promise<{ status: number; body: Json }> {
      const res = await t.app.inject({ method: 'GET', url: path, headers: bearer(USER_KEY) })
      bodies.push(res.body)
      return { status: res.statusCode, body: res.json() }
    }
    async function found(): Promise<Record<string, Json>> {
      const { status, body } = await get(`/contexts/search?q=${word}`)
      expect(status).toBe(200)
      return Object.fromEntries(body.registries.map((entry: Json) => [entry.authority, entry]))
    }
    const ids = (entry: Json): string[] => entry.matches.map((m: Json) => m.ctx_id).sort()

    it('without a credential each registry answers as to an anonymous reader: public contexts only', async () => {
      const entries = await found()
      expect(entries[PRIVATE_REGISTRY]).toMatchObject({ outcome: 'ok', error: null })
      expect(ids(entries[PRIVATE_REGISTRY])).toEqual([ctx.public])
      expect(ids(entries[PUBLIC_REGISTRY])).toEqual([ctx.open])
      expect((await get(`/contexts/${encodeURIComponent(ctx.restricted)}`)).status).toBe(404)
    })

    it("with the audience member's token the restricted context is found and retrieved; never the private one", async () => {
      const enrolled = await enroll({ authority: PRIVATE_REGISTRY, readCredential: readerToken })
      expect(enrolled).toMatchObject({ authority: PRIVATE_REGISTRY, hasReadCredential: true })
      const list = await get('/registries/enrollments')
      expect(list.body.data.map((e: Json) => [e.authority, e.hasReadCredential])).toEqual([
        [PUBLIC_REGISTRY, false],
        [PRIVATE_REGISTRY, true],
      ])
      const entries = await found()
      expect(entries[PRIVATE_REGISTRY]).toMatchObject({ outcome: 'ok', error: null, total_estimate: 2 })
      expect(ids(entries[PRIVATE_REGISTRY])).toEqual([ctx.public, ctx.restricted].sort())
      expect(entries[PRIVATE_REGISTRY].matches.find((m: Json) => m.ctx_id === ctx.restricted)).toMatchObject({
        visibility: 'restricted',
      })
      // The other registry is still asked anonymously and answers as before.
      expect(ids(entries[PUBLIC_REGISTRY])).toEqual([ctx.open])
      const retrieved = await get(`/contexts/${encodeURIComponent(ctx.restricted)}`)
      expect(retrieved.status).toBe(200)
      expect(retrieved.body.body.ctx_id).toBe(ctx.restricted)
    })

    it("with the producer's token (a replacement) the private context is found too", async () => {
      await enroll({ authority: PRIVATE_REGISTRY, readCredential: producerToken })
      const entries = await found()
      expect(ids(entries[PRIVATE_REGISTRY])).toEqual([ctx.public, ctx.restricted, ctx.private].sort())
    })

    it("a token the registry refuses is that registry's error entry; the search and the other registry go on", async () => {
      await enroll({ authority: PRIVATE_REGISTRY, readCredential: `${readerToken.slice(0, -4)}AAAA` })
      const { status, body } = await get(`/contexts/search?q=${word}`)
      expect(status).toBe(200)
      const entries = Object.fromEntries(body.registries.map((entry: Json) => [entry.authority, entry]))
      expect(entries[PRIVATE_REGISTRY]).toMatchObject({
        outcome: 'error',
        matches: [],
        error: { code: 'not_authorized', status: 403 },
      })
      expect(entries[PUBLIC_REGISTRY]).toMatchObject({ outcome: 'ok', error: null })
      expect(ids(entries[PUBLIC_REGISTRY])).toEqual([ctx.open])
    })

    it('cleared, the registry is read anonymously again', async () => {
      expect(await enroll({ authority: PRIVATE_REGISTRY, readCredential: null })).toMatchObject({
        hasReadCredential: false,
      })
      expect(ids((await found())[PRIVATE_REGISTRY])).toEqual([ctx.public])
    })
  })
})
