import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { computeContentHash, createOutboundClient, deriveLineageId, type OutboundClient } from '@acdp/protocol'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createFakeDns } from '../../protocol/test/support/fake-dns.js'
import { createTestPki, type TestPki } from '../../protocol/test/support/test-ca.js'
import { isRegistryError } from '../src/core/errors.js'
import {
  type CrossRegistryDeps,
  createCrossRegistryResolver,
  findTopLevelMemberSpan,
  parseCtxIdAuthority,
  resolveForeignContext,
} from '../src/federation/cross-registry.js'
import { createTestRegistry, type TestRegistry } from './support/registry-harness.js'

const AUTHORITY = 'origin.test'
const CTX_ID = `acdp://${AUTHORITY}/550e8400-e29b-41d4-a716-446655440000`
const ENCODED_PATH = `/contexts/${encodeURIComponent(CTX_ID)}`

type Handler = (
  path: string,
  headers: Record<string, string | string[] | undefined>,
) =>
  | {
      status: number
      body?: string | Buffer
      headers?: Record<string, string>
    }
  | 'hang'

/** A signed-looking public body whose content_hash is correct. */
function makeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    acdp_version: '0.4.0',
    version: 1,
    supersedes: null,
    agent_id: 'did:web:agents.example.com:collector',
    contributors: [],
    type: 'data_snapshot',
    title: 'BTC price',
    visibility: 'public',
    derived_from: [],
    signature: { algorithm: 'ed25519', key_id: 'did:web:agents.example.com:collector#k1', value: 'A'.repeat(88) },
    ctx_id: CTX_ID,
    lineage_id: deriveLineageId(CTX_ID),
    origin_registry: AUTHORITY,
    created_at: '2026-05-01T12:00:00.000Z',
    ...overrides,
  }
  if (!('content_hash' in overrides)) body.content_hash = computeContentHash(body)
  return body
}

/** Serialized with unusual spacing and key order, so a re-serialization could never reproduce it. */
function envelopeText(body: Record<string, unknown>, status = 'superseded'): string {
  return `{ "registry_state" : {"status":"${status}"},\n  "body":${JSON.stringify(body, null, 3)} ,"x_origin_extra":[1,2.50]}`
}

describe('cross-registry resolution against a local HTTPS origin', () => {
  let pki: TestPki
  let server: Server
  let port = 0
  let client: OutboundClient
  let handler: Handler
  const seen: Array<{ path: string; headers: Record<string, string | string[] | undefined> }> = []

  beforeAll(async () => {
    pki = createTestPki({ dnsNames: [AUTHORITY, 'other.test'], ipAddresses: ['127.0.0.1'] })
    server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers })
      const answer = handler(req.url ?? '', req.headers)
      if (answer === 'hang') return
      res.writeHead(answer.status, { 'content-type': 'application/acdp+json', ...answer.headers })
      res.end(answer.body ?? '')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
    client = createOutboundClient({
      allowCidrs: ['127.0.0.1/32'],
      trustedCaCertificates: [pki.caPem],
      lookup: createFakeDns({ [AUTHORITY]: ['127.0.0.1'], 'other.test': ['127.0.0.1'] }).lookup,
    })
  })

  afterAll(async () => {
    await client.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  beforeEach(() => {
    seen.length = 0
    handler = () => ({ status: 200, body: envelopeText(makeBody()) })
  })

  function deps(overrides: Partial<CrossRegistryDeps> = {}): CrossRegistryDeps {
    return { client, originBaseUrl: (authority) => `https://${authority}:${port}`, ...overrides }
  }

  it('returns the origin document byte for byte, registry_state included', async () => {
    const text = envelopeText(makeBody(), 'superseded')
    handler = () => ({ status: 200, body: text })
    const result = await resolveForeignContext(deps(), CTX_ID)
    expect(result.outcome).toBe('resolved')
    if (result.outcome !== 'resolved') return
    expect(Buffer.from(result.body).toString('utf8')).toBe(text)
    expect(result.bodyText).toBe(JSON.stringify(makeBody(), null, 3))
    expect(result.registryState).toEqual({ status: 'superseded' })
    expect(result.contentHash).toBe(makeBody().content_hash)
  })

  it('serves the registry resolver contract: body text as the origin wrote it, its registry_state and hash', async () => {
    const resolver = createCrossRegistryResolver(deps())
    expect(await resolver.resolve(CTX_ID)).toEqual({
      bodyText: JSON.stringify(makeBody(), null, 3),
      registryState: { status: 'superseded' },
      contentHash: makeBody().content_hash,
      evidenceJson: '',
    })
  })

  it.each([
    { name: 'an origin 404', answer: { status: 404 }, code: 'not_found', status: 404, details: undefined },
    {
      name: 'an origin 500',
      answer: { status: 500 },
      code: 'cross_registry_resolution_failed',
      status: 502,
      details: { reason: 'upstream_status' },
    },
    {
      name: 'a malformed document',
      answer: { status: 200, body: '{' },
      code: 'cross_registry_resolution_failed',
      status: 502,
      details: { reason: 'malformed_document' },
    },
  ])('maps $name to $code in the resolver contract', async ({ answer, code, status, details }) => {
    handler = () => answer
    const error = await createCrossRegistryResolver(deps())
      .resolve(CTX_ID)
      .catch((e: unknown) => e)
    expect(isRegistryError(error)).toBe(true)
    expect(error).toMatchObject({ code, status, details })
  })

  it('requests https://<authority>/contexts/<percent-encoded ctx_id> without any credential', async () => {
    await resolveForeignContext(deps(), CTX_ID)
    expect(seen).toHaveLength(1)
    expect(seen[0]!.path).toBe(ENCODED_PATH)
    expect(seen[0]!.headers.authorization).toBeUndefined()
    expect(seen[0]!.headers.cookie).toBeUndefined()
    expect(seen[0]!.headers['x-tenant-id']).toBeUndefined()
    expect(seen[0]!.headers.host).toBe(`${AUTHORITY}:${port}`)
  })

  it('fetches /body for the bare-body form and checks the bare body', async () => {
    const text = JSON.stringify(makeBody())
    handler = (path) => (path === `${ENCODED_PATH}/body` ? { status: 200, body: text } : { status: 500 })
    const result = await resolveForeignContext(deps(), CTX_ID, 'body')
    expect(result.outcome).toBe('resolved')
    if (result.outcome === 'resolved') expect(Buffer.from(result.body).toString()).toBe(text)
  })

  it('follows a same-authority redirect', async () => {
    handler = (path) =>
      path === '/moved'
        ? { status: 200, body: envelopeText(makeBody()) }
        : { status: 302, headers: { location: '/moved' } }
    expect((await resolveForeignContext(deps(), CTX_ID)).outcome).toBe('resolved')
  })

  it('answers not_found when the origin answers 404', async () => {
    handler = () => ({ status: 404, body: '{"error":{"code":"not_found","message":"x"}}' })
    expect(await resolveForeignContext(deps(), CTX_ID)).toEqual({ outcome: 'not_found' })
  })

  it.each([
    { name: 'a 500', status: 500 },
    { name: 'a 503', status: 503 },
    { name: 'a 403', status: 403 },
    { name: 'a 429', status: 429 },
    { name: 'a 201', status: 201 },
  ])('fails with upstream_status on $name from the origin', async ({ status }) => {
    handler = () => ({ status, body: envelopeText(makeBody()) })
    expect(await resolveForeignContext(deps(), CTX_ID)).toEqual({
      outcome: 'failed',
      reason: 'upstream_status',
      upstreamStatus: status,
    })
  })

  const documents: Array<{ name: string; body: string | Buffer; reason: string }> = [
    { name: 'not JSON', body: '<html>hello</html>', reason: 'malformed_document' },
    { name: 'truncated JSON', body: '{"body":{', reason: 'malformed_document' },
    { name: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), reason: 'malformed_document' },
    { name: 'a JSON array', body: '[]', reason: 'malformed_document' },
    { name: 'no registry_state', body: JSON.stringify({ body: makeBody() }), reason: 'malformed_document' },
    {
      name: 'registry_state without status',
      body: JSON.stringify({ body: makeBody(), registry_state: {} }),
      reason: 'malformed_document',
    },
    {
      name: 'a duplicate key',
      body: `{"registry_state":{"status":"active"},"body":${JSON.stringify(makeBody())},"body":{}}`,
      reason: 'malformed_document',
    },
    {
      name: 'another ctx_id',
      body: envelopeText(makeBody({ ctx_id: `acdp://${AUTHORITY}/11111111-1111-4111-8111-111111111111` })),
      reason: 'ctx_id_mismatch',
    },
    {
      name: 'another origin_registry',
      body: envelopeText(makeBody({ origin_registry: 'other.test' })),
      reason: 'authority_mismatch',
    },
    {
      name: 'a content_hash that does not match the body',
      body: envelopeText({ ...makeBody(), title: 'tampered' }),
      reason: 'hash_mismatch',
    },
    {
      name: 'a malformed content_hash',
      body: envelopeText(makeBody({ content_hash: 'sha256:zz' })),
      reason: 'hash_mismatch',
    },
    // RFC-ACDP-0004 §4.1: malformed registry state, refused by us as the origin's consumer.
    { name: 'the status "ACTIVE"', body: envelopeText(makeBody(), 'ACTIVE'), reason: 'malformed_status' },
    { name: 'the status "in progress"', body: envelopeText(makeBody(), 'in progress'), reason: 'malformed_status' },
    { name: 'an empty status', body: envelopeText(makeBody(), ''), reason: 'malformed_status' },
    {
      name: 'a restricted body served anonymously',
      body: envelopeText(makeBody({ visibility: 'restricted', audience: ['did:web:a.example'] })),
      reason: 'not_public',
    },
  ]

  it('relays a well-formed unknown status and tells the observer; a defined one is not reported', async () => {
    const told: Array<[string, string]> = []
    const onUnknownStatus = (authority: string, status: string) => told.push([authority, status])
    handler = () => ({ status: 200, body: envelopeText(makeBody(), 'paused_x') })
    const result = await resolveForeignContext(deps({ onUnknownStatus }), CTX_ID)
    expect(result).toMatchObject({ outcome: 'resolved', registryState: { status: 'paused_x' } })
    handler = () => ({ status: 200, body: envelopeText(makeBody(), 'retracted') })
    expect((await resolveForeignContext(deps({ onUnknownStatus }), CTX_ID)).outcome).toBe('resolved')
    expect(told).toEqual([[AUTHORITY, 'paused_x']])
  })

  it.each(documents)('fails with $reason when the origin serves $name', async ({ body, reason }) => {
    handler = () => ({ status: 200, body })
    expect(await resolveForeignContext(deps(), CTX_ID)).toEqual({ outcome: 'failed', reason })
  })

  it('fails with outbound_too_large when the document exceeds 1 MiB', async () => {
    handler = () => ({ status: 200, body: Buffer.alloc(1024 * 1024 + 1, 0x20) })
    expect(await resolveForeignContext(deps(), CTX_ID)).toEqual({ outcome: 'failed', reason: 'outbound_too_large' })
  })

  it('fails with outbound_refused when the origin resolves to a refused address (SSRF policy)', async () => {
    const strict = createOutboundClient({
      allowCidrs: [],
      trustedCaCertificates: [pki.caPem],
      lookup: createFakeDns({ [AUTHORITY]: ['127.0.0.1'] }).lookup,
    })
    try {
      expect(await resolveForeignContext(deps({ client: strict }), CTX_ID)).toEqual({
        outcome: 'failed',
        reason: 'outbound_refused',
      })
      expect(seen).toHaveLength(0)
    } finally {
      await strict.close()
    }
  })

  it('fails with outbound_refused for a plain-http origin', async () => {
    const result = await resolveForeignContext(deps({ originBaseUrl: (a) => `http://${a}:${port}` }), CTX_ID)
    expect(result).toEqual({ outcome: 'failed', reason: 'outbound_refused' })
  })

  it('fails with outbound_refused on a redirect to another authority', async () => {
    handler = () => ({ status: 302, headers: { location: `https://other.test:${port}/x` } })
    expect(await resolveForeignContext(deps(), CTX_ID)).toEqual({ outcome: 'failed', reason: 'outbound_refused' })
  })

  it('fails with outbound_failed when the origin does not answer before the deadline', async () => {
    handler = () => 'hang'
    expect(await resolveForeignContext(deps({ totalTimeoutMs: 300 }), CTX_ID)).toEqual({
      outcome: 'failed',
      reason: 'outbound_failed',
    })
  })

  it('fails with outbound_failed when the origin authority does not resolve', async () => {
    const ctxId = 'acdp://unknown.test/550e8400-e29b-41d4-a716-446655440000'
    expect(await resolveForeignContext(deps(), ctxId)).toEqual({ outcome: 'failed', reason: 'outbound_failed' })
  })

  describe('through the registry app (GET /contexts/{foreign ctx_id})', () => {
    let registry: TestRegistry | undefined
    afterEach(async () => {
      await registry?.close()
      registry = undefined
    })

    async function startRegistry(crossRegistryResolution = true) {
      registry = await createTestRegistry({
        config: { registry: { cross_registry_resolution: crossRegistryResolution } },
        deps: { crossRegistry: createCrossRegistryResolver(deps()) },
      })
      return registry
    }

    it('serves the origin body byte for byte with the origin registry_state', async () => {
      const { app } = await startRegistry()
      const res = await app.inject({ method: 'GET', url: ENCODED_PATH })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('application/acdp+json')
      expect(res.headers.etag).toBe(`"${makeBody().content_hash}"`)
      expect(res.body).toBe(`{"body":${JSON.stringify(makeBody(), null, 3)},"registry_state":{"status":"superseded"}}`)
      const bare = await app.inject({ method: 'GET', url: `${ENCODED_PATH}/body` })
      expect(bare.body).toBe(JSON.stringify(makeBody(), null, 3))
    })

    it.each([
      { name: 'an origin 404', answer: { status: 404 }, status: 404, code: 'not_found', details: undefined },
      {
        name: 'an origin 503',
        answer: { status: 503 },
        status: 502,
        code: 'cross_registry_resolution_failed',
        details: { reason: 'upstream_status' },
      },
      {
        name: 'a body for another ctx_id',
        answer: {
          status: 200,
          body: envelopeText(makeBody({ ctx_id: `acdp://${AUTHORITY}/11111111-1111-4111-8111-111111111111` })),
        },
        status: 502,
        code: 'cross_registry_resolution_failed',
        details: { reason: 'ctx_id_mismatch' },
      },
    ])('answers $status $code for $name', async ({ answer, status, code, details }) => {
      handler = () => answer
      const { app } = await startRegistry()
      const res = await app.inject({ method: 'GET', url: ENCODED_PATH })
      expect(res.statusCode).toBe(status)
      expect(res.json()).toEqual({
        error: { code, message: expect.any(String), ...(details === undefined ? {} : { details }) },
      })
    })

    it('answers 404 without contacting the origin when cross_registry_resolution is off', async () => {
      const { app } = await startRegistry(false)
      const res = await app.inject({ method: 'GET', url: ENCODED_PATH })
      expect(res.statusCode).toBe(404)
      expect(seen).toHaveLength(0)
    })
  })

  it('reports every outcome to the observer', async () => {
    const outcomes: string[] = []
    await resolveForeignContext(deps({ onOutcome: (o) => outcomes.push(o) }), CTX_ID)
    handler = () => ({ status: 404 })
    await resolveForeignContext(deps({ onOutcome: (o) => outcomes.push(o) }), CTX_ID)
    handler = () => ({ status: 200, body: 'nope' })
    await resolveForeignContext(deps({ onOutcome: (o) => outcomes.push(o) }), CTX_ID)
    expect(outcomes).toEqual(['resolved', 'not_found', 'malformed_document'])
  })
})

describe('ctx_id authority parsing', () => {
  it.each([
    { ctxId: CTX_ID, expected: { authority: AUTHORITY, id: '550e8400-e29b-41d4-a716-446655440000' } },
    {
      ctxId: 'acdp://a.b.c/550e8400-e29b-41d4-a716-446655440000',
      expected: { authority: 'a.b.c', id: '550e8400-e29b-41d4-a716-446655440000' },
    },
    { ctxId: 'acdp://Origin.test/550e8400-e29b-41d4-a716-446655440000', expected: undefined },
    { ctxId: 'acdp://origin.test:8443/550e8400-e29b-41d4-a716-446655440000', expected: undefined },
    { ctxId: 'acdp://origin.test/550e8400-e29b-11d4-a716-446655440000', expected: undefined },
    { ctxId: 'https://origin.test/550e8400-e29b-41d4-a716-446655440000', expected: undefined },
    { ctxId: 'acdp://origin.test/../550e8400-e29b-41d4-a716-446655440000', expected: undefined },
  ])('$ctxId parses to $expected', ({ ctxId, expected }) => {
    expect(parseCtxIdAuthority(ctxId)).toEqual(expected)
  })

  it('answers invalid_ctx_id without any network call for a malformed id', async () => {
    const calls: string[] = []
    const result = await resolveForeignContext(
      {
        client: {
          request: async (url) => {
            calls.push(String(url))
            throw new Error('unreachable')
          },
        },
      },
      'acdp://bad host/x',
    )
    expect(result).toEqual({ outcome: 'failed', reason: 'invalid_ctx_id' })
    expect(calls).toEqual([])
  })
})

describe('top-level member span', () => {
  it('finds the exact source text of a member whatever the formatting and member order', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom(undefined, 1, 2, '\t'),
        fc.boolean(),
        (others, body, indent, bodyFirst) => {
          const rest = Object.fromEntries(Object.entries(others).filter(([k]) => k !== 'body' && k !== '__proto__'))
          const doc = bodyFirst ? { body, ...rest } : { ...rest, body }
          const text = JSON.stringify(doc, null, indent)
          const span = findTopLevelMemberSpan(text, 'body')
          expect(span).toBeDefined()
          const slice = text.slice(span!.start, span!.end)
          expect(JSON.parse(slice)).toEqual(JSON.parse(JSON.stringify(body)))
        },
      ),
    )
  })

  it.each([
    { text: '{"a":"x\\"body\\":1","body":{"k":"}"}}', expected: '{"k":"}"}' },
    { text: '{ "bo\\u0064y" : [1, {"b":"]"}] }', expected: '[1, {"b":"]"}]' },
    { text: '{"bodyx":1}', expected: undefined },
    { text: '[]', expected: undefined },
  ])('reads $text', ({ text, expected }) => {
    const span = findTopLevelMemberSpan(text, 'body')
    expect(span === undefined ? undefined : text.slice(span.start, span.end)).toBe(expected)
  })
})
