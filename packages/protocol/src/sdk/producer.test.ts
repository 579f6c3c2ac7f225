import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../errors.js'
import { computeContentHash } from '../hash/content-hash.js'
import { decodeBase64Strict } from '../signature/base64.js'
import { verifyContentSignature } from '../signature/content-signature.js'
import { generateSigningKey } from '../signature/generate-signing-key.js'
import { completeProducerContent, createProducer, SDK_ACDP_VERSION } from './producer.js'
import type { ProducerKey } from './producer-key.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read and tamper with untyped JSON documents
type Json = Record<string, any>

const REGISTRY = 'http://registry.test'

function sampleKey(): ProducerKey {
  const generated = generateSigningKey('ed25519')
  return { ...generated, did: 'did:web:agents.example.com:alice', keyId: 'did:web:agents.example.com:alice#key-1' }
}

interface SeenRequest {
  url: string
  headers: Headers
  body: Record<string, unknown>
}

/**
 * A registry stand-in that enforces the publish contract the way a real registry does: it recomputes
 * content_hash and verifies the signature with the producer's public key before assigning a ctx_id, and serves
 * what it stored on GET /contexts/{ctx_id}.
 */
function fakeRegistry(key: ProducerKey) {
  const stored = new Map<string, Record<string, unknown>>()
  const seen: SeenRequest[] = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input)
    const headers = new Headers(init?.headers)
    if (init?.method === 'POST') {
      const body = JSON.parse(String(init.body)) as Json
      seen.push({ url, headers, body })
      const hashOk = computeContentHash(body) === body['content_hash']
      const signatureOk =
        hashOk &&
        verifyContentSignature({
          algorithm: body.signature.algorithm,
          publicKey: key.publicKey,
          contentHash: body.content_hash,
          signature: body.signature.value,
        })
      if (!signatureOk) {
        return Response.json(
          { error: { code: hashOk ? 'invalid_signature' : 'hash_mismatch', message: 'rejected' } },
          { status: 400 },
        )
      }
      const ctxId = `acdp://registry.test/${randomUUID()}`
      stored.set(ctxId, { ...body, ctx_id: ctxId })
      return Response.json(
        {
          ctx_id: ctxId,
          lineage_id: `lin:sha256:${'0'.repeat(64)}`,
          version: body.version,
          created_at: '2026-01-01T00:00:00.000Z',
          status: 'active',
        },
        { status: 201, headers: { location: `/contexts/${encodeURIComponent(ctxId)}` } },
      )
    }
    const ctxId = decodeURIComponent(url.slice(`${REGISTRY}/contexts/`.length))
    const body = stored.get(ctxId)
    return body === undefined
      ? Response.json({ error: { code: 'not_found', message: 'no such context' } }, { status: 404 })
      : Response.json({ body, registry_state: { status: 'active' } })
  }
  return { fetch, seen }
}

describe('createProducer', () => {
  it('publishes a signed request the registry accepts and returns ctx_id, Location and 201', async () => {
    const key = sampleKey()
    const registry = fakeRegistry(key)
    const producer = createProducer({ registryUrl: `${REGISTRY}/`, key, fetch: registry.fetch })
    const result = await producer.publish(
      { title: 'hello', type: 'analysis' },
      { runId: 'run-1', idempotencyKey: 'idem-1' },
    )
    expect(result.status).toBe(201)
    expect(result.replayed).toBe(false)
    expect(result.ctxId).toMatch(/^acdp:\/\/registry\.test\//)
    expect(result.location).toBe(`/contexts/${encodeURIComponent(result.ctxId)}`)
    const [request] = registry.seen
    expect(request?.url).toBe(`${REGISTRY}/contexts`)
    expect(request?.headers.get('x-run-id')).toBe('run-1')
    expect(request?.headers.get('idempotency-key')).toBe('idem-1')
    expect(request?.headers.get('content-type')).toBe('application/acdp+json')
    expect(request?.body).toMatchObject({
      agent_id: key.did,
      version: 1,
      supersedes: null,
      acdp_version: SDK_ACDP_VERSION,
    })
  })

  it('supersedes a context with version + 1 after reading the previous version', async () => {
    const key = sampleKey()
    const registry = fakeRegistry(key)
    const producer = createProducer({ registryUrl: REGISTRY, key, fetch: registry.fetch })
    const first = await producer.publish({ title: 'v1', type: 'analysis' })
    const second = await producer.publish({ title: 'v2', type: 'analysis' }, { supersedes: first.ctxId })
    expect(second.request).toMatchObject({ supersedes: first.ctxId, version: 2 })
  })

  it('reports a registry rejection as request_rejected with the registry’s code and status', async () => {
    const key = sampleKey()
    const registry = fakeRegistry(sampleKey()) // verifies with a different public key
    const producer = createProducer({ registryUrl: REGISTRY, key, fetch: registry.fetch })
    const failure = await producer.publish({ title: 'x', type: 'analysis' }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect(failure).toMatchObject({ code: 'request_rejected', details: { status: 400, code: 'invalid_signature' } })
  })

  it('reports a registry that cannot be reached as outbound_failed', async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed')
    }
    const producer = createProducer({ registryUrl: REGISTRY, key: sampleKey(), fetch })
    await expect(producer.publish({ title: 'x' })).rejects.toMatchObject({
      code: 'outbound_failed',
      details: { reason: 'transport' },
    })
  })

  it('reports an answer without ctx_id as malformed_input', async () => {
    const fetch: typeof globalThis.fetch = async () => Response.json({ ok: true }, { status: 201 })
    const producer = createProducer({ registryUrl: REGISTRY, key: sampleKey(), fetch })
    await expect(producer.publish({ title: 'x' })).rejects.toMatchObject({ code: 'malformed_input' })
  })

  it('gives up at the deadline with outbound_failed (timeout)', async () => {
    const fetch: typeof globalThis.fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)))
    const producer = createProducer({ registryUrl: REGISTRY, key: sampleKey(), fetch, timeoutMs: 20 })
    await expect(producer.publish({ title: 'x' })).rejects.toMatchObject({
      code: 'outbound_failed',
      details: { reason: 'timeout' },
    })
  })

  it('sends a signature value that decodes to 64 bytes', async () => {
    const key = sampleKey()
    const registry = fakeRegistry(key)
    const result = await createProducer({ registryUrl: REGISTRY, key, fetch: registry.fetch }).publish({
      title: 'x',
      type: 'analysis',
    })
    expect(decodeBase64Strict(result.request.signature.value)).toHaveLength(64)
  })
})

describe('completeProducerContent', () => {
  it('fills absent required members and keeps those the body sets', () => {
    const content = completeProducerContent(
      { title: 't', visibility: 'private', audience: ['did:web:b.example'] },
      { did: 'did:key:zA' },
    )
    expect(content).toEqual({
      title: 't',
      visibility: 'private',
      audience: ['did:web:b.example'],
      agent_id: 'did:key:zA',
      version: 1,
      supersedes: null,
      contributors: [],
      data_refs: [],
      derived_from: [],
      acdp_version: SDK_ACDP_VERSION,
    })
  })

  it('refuses a body whose agent_id is not the key’s DID', () => {
    expect(() => completeProducerContent({ agent_id: 'did:key:zOther' }, { did: 'did:key:zA' })).toThrow(TypeError)
  })
})
