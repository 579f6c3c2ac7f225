/**
 * Retrieval, lineage reads, capabilities and the cross-cutting HTTP surface (request ids, error envelopes,
 * unknown routes, health, OpenAPI) through a real registry.
 */

import { CapabilitiesDocument, checkCapabilitiesConsistency } from '@acdp/protocol'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import { RegistryError } from '../src/core/errors.js'
import {
  AUTHORITY,
  didKeyProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  type TestRegistryOptions,
  useTestRegistry,
} from './support/registry-harness.js'

const start = useTestRegistry()

/** A registry whose readers authenticate with `x-test-reader: <did>` (the pluggable read-auth hook). */
function withTestReaders(options: TestRegistryOptions = {}): TestRegistryOptions {
  return {
    ...options,
    deps: {
      authenticateReader: async (request) => {
        const did = request.headers['x-test-reader']
        if (did === 'invalid') throw new RegistryError('not_authorized', 'bad credential')
        return typeof did === 'string' ? did : null
      },
      ...options.deps,
    },
  }
}

async function publishAs(r: TestRegistry, p: Producer, overrides: Record<string, unknown> = {}) {
  const res = await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)))
  expect(res.statusCode).toBe(201)
  return res.json() as { ctx_id: string; lineage_id: string }
}

const get = (r: TestRegistry, url: string, headers: Record<string, string> = {}) =>
  r.app.inject({ method: 'GET', url, headers })
const enc = encodeURIComponent

describe('GET /contexts/{ctx_id}', () => {
  it('serves {body, registry_state} with the body byte for byte, an ETag and a short public cache', async () => {
    const r = await start()
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p)
    const full = await get(r, `/contexts/${enc(ctx_id)}`)
    const body = await get(r, `/contexts/${enc(ctx_id)}/body`)
    expect(full.statusCode).toBe(200)
    expect(full.headers['content-type']).toBe('application/acdp+json')
    expect(full.body).toBe(`{"body":${body.body},"registry_state":{"status":"active"}}`)
    const parsed = full.json() as { body: { content_hash: string; origin_registry: string; ctx_id: string } }
    expect(parsed.body.origin_registry).toBe(AUTHORITY)
    expect(parsed.body.ctx_id).toBe(ctx_id)
    expect(full.headers.etag).toBe(`"${parsed.body.content_hash}"`)
    expect(full.headers['cache-control']).toBe('public, max-age=60')
    expect(body.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(body.headers.etag).toBe(full.headers.etag)
  })

  it.each([
    ['percent-encoded', (id: string) => `/contexts/${enc(id)}`],
    [
      'lowercase percent-encoding',
      (id: string) => `/contexts/${enc(id).replaceAll('%3A', '%3a').replaceAll('%2F', '%2f')}`,
    ],
    ['client-decoded', (id: string) => `/contexts/${id}`],
    ['path-style authority/uuid', (id: string) => `/contexts/${id.slice('acdp://'.length)}`],
    ['with a query string', (id: string) => `/contexts/${enc(id)}?x=1`],
  ])('accepts the %s form', async (_name, url) => {
    const r = await start()
    const { ctx_id } = await publishAs(r, didKeyProducer())
    const res = await get(r, url(ctx_id))
    expect(res.statusCode).toBe(200)
    expect((res.json() as { body: { ctx_id: string } }).body.ctx_id).toBe(ctx_id)
    expect((await get(r, `${url(ctx_id).split('?')[0]}/body`)).statusCode).toBe(200)
  })

  it.each([
    ['not a ctx_id', '/contexts/hello'],
    ['an uppercase UUID', `/contexts/${enc(`acdp://${AUTHORITY}/00000000-0000-4000-8000-00000000000A`)}`],
    ['a non-v4 UUID', `/contexts/${enc(`acdp://${AUTHORITY}/00000000-0000-1000-8000-000000000000`)}`],
    ['broken percent-encoding', '/contexts/acdp%3A%2F%2Fregistry.example.com%2F%E0%A4%A'],
  ])('refuses %s with 400 schema_violation', async (_name, url) => {
    const r = await start()
    const res = await get(r, url)
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.headers['x-request-id']).toBeDefined()
    expect(res.json()).toEqual({ error: { code: 'schema_violation', message: expect.any(String) } })
  })

  it('answers 404 not_found for an unknown ctx_id (ret-001)', async () => {
    const r = await start()
    const res = await get(r, `/contexts/${enc(`acdp://${AUTHORITY}/00000000-0000-4000-8000-000000000000`)}`)
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } })
  })

  it('derives expired strictly after expires_at, and superseded over expired', async () => {
    const r = await start()
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p, { expires_at: '2026-05-01T12:00:01.000Z' })
    const status = async (id: string) =>
      ((await get(r, `/contexts/${enc(id)}`)).json() as { registry_state: { status: string } }).registry_state.status
    r.clock.nowMs = Date.parse('2026-05-01T12:00:01.000Z')
    expect(await status(ctx_id)).toBe('active')
    r.clock.nowMs += 1
    expect(await status(ctx_id)).toBe('expired')
    await publishAs(r, p, { version: 2, supersedes: ctx_id })
    expect(await status(ctx_id)).toBe('superseded')
  })

  it('answers 304 on /body when If-None-Match carries the ETag', async () => {
    const r = await start()
    const { ctx_id } = await publishAs(r, didKeyProducer())
    const first = await get(r, `/contexts/${enc(ctx_id)}/body`)
    const again = await get(r, `/contexts/${enc(ctx_id)}/body`, { 'if-none-match': first.headers.etag as string })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
  })

  it('emits context_retrieved with the requester', async () => {
    const r = await start(withTestReaders())
    const seen: unknown[] = []
    r.deps.events.on('context_retrieved', (e) => seen.push(e))
    const { ctx_id } = await publishAs(r, didKeyProducer())
    await get(r, `/contexts/${enc(ctx_id)}`)
    await get(r, `/contexts/${enc(ctx_id)}/body`, { 'x-test-reader': 'did:web:reader.example' })
    expect(seen).toEqual([
      { type: 'context_retrieved', ctx_id, requester_did: null, tenant_id: 'default', at: '2026-05-01T12:00:00.000Z' },
      {
        type: 'context_retrieved',
        ctx_id,
        requester_did: 'did:web:reader.example',
        tenant_id: 'default',
        at: '2026-05-01T12:00:00.000Z',
      },
    ])
  })
})

describe('visibility', () => {
  const outsider = 'did:web:outsider.example'
  const member = 'did:web:member.example'

  it.each([
    ['restricted', 'anonymous', undefined, 404],
    ['restricted', 'an outsider', outsider, 404],
    ['restricted', 'an audience member', member, 200],
    ['restricted', 'the producer', 'producer', 200],
    ['private', 'an outsider', outsider, 404],
    ['private', 'an audience member', member, 200],
    ['private', 'the producer', 'producer', 200],
    ['private', 'a contributor', 'did:web:contributor.example', 404],
  ])('%s context, read by %s → %i', async (visibility, _who, reader, status) => {
    const r = await start(withTestReaders())
    const p = didKeyProducer()
    const { ctx_id } = await publishAs(r, p, {
      visibility,
      audience: [member],
      contributors: ['did:web:contributor.example'],
    })
    const headers: Record<string, string> =
      reader === undefined ? {} : { 'x-test-reader': reader === 'producer' ? p.did : reader }
    for (const url of [`/contexts/${enc(ctx_id)}`, `/contexts/${enc(ctx_id)}/body`]) {
      const res = await get(r, url, headers)
      expect(res.statusCode).toBe(status)
      if (status === 404)
        expect(res.body).toBe(
          (await get(r, `/contexts/${enc(`acdp://${AUTHORITY}/00000000-0000-4000-8000-000000000000`)}`)).body,
        )
      else expect(res.headers['cache-control']).toBe('private, no-store')
    }
  })

  it('refuses every anonymous read with 403 when anonymous public reads are off, before any lookup', async () => {
    const r = await start(withTestReaders({ config: { auth: { anonymous_public_reads: false } } }))
    const { ctx_id, lineage_id } = await publishAs(r, didKeyProducer())
    for (const url of [
      `/contexts/${enc(ctx_id)}`,
      `/contexts/${enc(`acdp://${AUTHORITY}/00000000-0000-4000-8000-000000000000`)}`,
      `/lineages/${lineage_id}`,
      `/lineages/${lineage_id}/current`,
    ]) {
      const res = await get(r, url)
      expect(res.statusCode).toBe(403)
      expect(res.json()).toEqual({ error: { code: 'not_authorized', message: expect.any(String) } })
    }
    const authenticated = await get(r, `/contexts/${enc(ctx_id)}`, { 'x-test-reader': 'did:web:reader.example' })
    expect(authenticated.statusCode).toBe(200)
    expect(authenticated.headers.vary).toBe('Authorization')
  })

  it('answers 403 for an invalid credential', async () => {
    const r = await start(withTestReaders())
    const { ctx_id } = await publishAs(r, didKeyProducer())
    expect((await get(r, `/contexts/${enc(ctx_id)}`, { 'x-test-reader': 'invalid' })).statusCode).toBe(403)
  })
})

describe('foreign ctx_ids', () => {
  const foreign = 'acdp://other.example.org/00000000-0000-4000-8000-000000000001'

  it('answers 404 when cross-registry resolution is off', async () => {
    let called = 0
    const r = await start({
      config: { registry: { authority: AUTHORITY, cross_registry_resolution: false } },
      deps: {
        crossRegistry: {
          resolve: async () => {
            called++
            throw new Error('unused')
          },
        },
      },
    })
    expect((await get(r, `/contexts/${enc(foreign)}`)).statusCode).toBe(404)
    expect(called).toBe(0)
  })

  it('answers 404 when resolution is on but no resolver is wired', async () => {
    const r = await start()
    expect((await get(r, `/contexts/${enc(foreign)}`)).statusCode).toBe(404)
  })

  it('serves the origin body byte for byte with the origin registry_state when a resolver is wired', async () => {
    const bodyText = '{ "ctx_id" : "acdp://other.example.org/00000000-0000-4000-8000-000000000001", "n": 1.50 }'
    const r = await start({
      deps: {
        crossRegistry: {
          resolve: async (ctxId) => {
            expect(ctxId).toBe(foreign)
            return {
              bodyText,
              registryState: { status: 'superseded' },
              contentHash: `sha256:${'c'.repeat(64)}`,
              evidenceJson: '',
            }
          },
        },
      },
    })
    const full = await get(r, `/contexts/${enc(foreign)}`)
    expect(full.body).toBe(`{"body":${bodyText},"registry_state":{"status":"superseded"}}`)
    expect((await get(r, `/contexts/${enc(foreign)}/body`)).body).toBe(bodyText)
  })

  it('passes a resolver failure through as its wire code', async () => {
    const r = await start({
      deps: {
        crossRegistry: {
          resolve: async () => {
            throw new RegistryError('cross_registry_resolution_failed', 'origin unreachable')
          },
        },
      },
    })
    const res = await get(r, `/contexts/${enc(foreign)}`)
    expect(res.statusCode).toBe(502)
    expect((res.json() as { error: { code: string } }).error.code).toBe('cross_registry_resolution_failed')
  })
})

describe('lineages', () => {
  it('lists visible versions in version order and serves the head as /current', async () => {
    const r = await start(withTestReaders())
    const p = didKeyProducer()
    const v1 = await publishAs(r, p)
    const v2 = await publishAs(r, p, { version: 2, supersedes: v1.ctx_id, visibility: 'private' })
    const anonymous = await get(r, `/lineages/${v1.lineage_id}`)
    expect(anonymous.statusCode).toBe(200)
    expect(
      (anonymous.json() as Array<{ body: { ctx_id: string }; registry_state: { status: string } }>).map((v) => [
        v.body.ctx_id,
        v.registry_state.status,
      ]),
    ).toEqual([[v1.ctx_id, 'superseded']])
    const producer = await get(r, `/lineages/${encodeURIComponent(v1.lineage_id)}`, { 'x-test-reader': p.did })
    expect((producer.json() as Array<{ body: { version: number } }>).map((v) => v.body.version)).toEqual([1, 2])
    expect(producer.headers['cache-control']).toBe('private, no-store')
    const head = await get(r, `/lineages/${v1.lineage_id}/current`, { 'x-test-reader': p.did })
    expect((head.json() as { body: { ctx_id: string } }).body.ctx_id).toBe(v2.ctx_id)
    // The head is invisible to an anonymous reader and there is no fallback to a superseded version.
    expect((await get(r, `/lineages/${v1.lineage_id}/current`)).statusCode).toBe(404)
  })

  it('serves an expired head as expired (ret-002)', async () => {
    const r = await start()
    const p = didKeyProducer()
    const v1 = await publishAs(r, p)
    await publishAs(r, p, { version: 2, supersedes: v1.ctx_id, expires_at: '2020-01-01T00:00:00.000Z' })
    const head = await get(r, `/lineages/${v1.lineage_id}/current`)
    expect(head.statusCode).toBe(200)
    expect((head.json() as { registry_state: { status: string } }).registry_state).toEqual({ status: 'expired' })
  })

  it('answers [] for an unknown lineage and 404 for its current head', async () => {
    const r = await start()
    const id = `lin:sha256:${'1'.repeat(64)}`
    expect((await get(r, `/lineages/${id}`)).body).toBe('[]')
    expect((await get(r, `/lineages/${id}/current`)).statusCode).toBe(404)
  })

  it('refuses a malformed lineage id with schema_violation', async () => {
    const r = await start()
    expect((await get(r, '/lineages/lin:md5:abc')).statusCode).toBe(400)
    expect((await get(r, '/lineages/lin:md5:abc/current')).statusCode).toBe(400)
  })
})

describe('capabilities', () => {
  const validate = Compile(CapabilitiesDocument)

  it.each([
    [['acdp-registry-core'], true, ['acdp-registry-core', 'acdp-registry-federated']],
    [
      ['acdp-registry-core', 'acdp-registry-discovery'],
      true,
      ['acdp-registry-core', 'acdp-registry-discovery', 'acdp-registry-federated'],
    ],
    [['acdp-registry-core', 'acdp-registry-federated'], true, ['acdp-registry-core', 'acdp-registry-federated']],
    [['acdp-registry-core', 'acdp-registry-discovery'], false, ['acdp-registry-core', 'acdp-registry-discovery']],
  ])(
    'advertises acdp-registry-federated exactly when cross_registry_resolution is on (profiles %j, resolution %s)',
    async (profiles, crossRegistry, advertised) => {
      const r = await start({ config: { registry: { profiles, cross_registry_resolution: crossRegistry } } })
      const doc = (await get(r, '/.well-known/acdp.json')).json() as CapabilitiesDocument
      expect(doc.profiles).toEqual(advertised)
      expect(checkCapabilitiesConsistency(doc)).toEqual([])
    },
  )

  it('serves a schema-valid, self-consistent document with exactly the configured profiles', async () => {
    const r = await start({ config: { limits: { max_payload_bytes: 2048 } } })
    const res = await get(r, '/.well-known/acdp.json')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.headers['cache-control']).toBe('public, max-age=3600')
    const doc = res.json() as CapabilitiesDocument
    expect(validate.Check(doc)).toBe(true)
    expect(checkCapabilitiesConsistency(doc)).toEqual([])
    expect(doc).toEqual({
      acdp_version: '0.5.0',
      registry_did: `did:web:${AUTHORITY}`,
      supported_signature_algorithms: ['ed25519', 'ecdsa-p256'],
      supported_did_methods: ['did:web', 'did:key'],
      // registry.cross_registry_resolution is on by default, so the federated profile is advertised.
      profiles: ['acdp-registry-core', 'acdp-registry-discovery', 'acdp-registry-federated'],
      supports_idempotency_key: true,
      anonymous_public_reads: true,
      limits: {
        max_payload_bytes: 2048,
        max_embedded_bytes: 65536,
        idempotency_key_ttl_seconds: 86400,
        // The per-agent publish bucket runs by default (limits.publish_rate_per_minute = 60).
        max_publish_per_minute: 60,
      },
    })
    expect(doc).not.toHaveProperty('read_authentication_methods')
  })
})

describe('HTTP surface', () => {
  it('echoes a sane x-request-id and replaces an unsafe one with a UUIDv4', async () => {
    const r = await start()
    expect((await get(r, '/healthz', { 'x-request-id': 'req-123' })).headers['x-request-id']).toBe('req-123')
    const replaced = await get(r, '/healthz', { 'x-request-id': 'bad id with spaces' })
    expect(replaced.headers['x-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    expect((await get(r, '/no/such/route')).headers['x-request-id']).toBeDefined()
  })

  it('answers unknown routes with the not_found envelope', async () => {
    const r = await start()
    const res = await r.app.inject({ method: 'DELETE', url: '/contexts' })
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } })
  })

  it('answers search with 501 not_implemented when discovery is not advertised', async () => {
    const r = await start({ config: { registry: { authority: AUTHORITY, profiles: ['acdp-registry-core'] } } })
    const res = await get(r, '/contexts/search?q=x')
    expect(res.statusCode).toBe(501)
    expect((res.json() as { error: { code: string } }).error.code).toBe('not_implemented')
  })

  it('reports healthy storage, and 503 when storage fails', async () => {
    const r = await start()
    const ok = await get(r, '/healthz')
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ status: 'ok', storage: true, version: expect.any(String) })
    r.store.checkHealth = async () => false
    const down = await get(r, '/healthz')
    expect(down.statusCode).toBe(503)
    expect(down.json()).toMatchObject({ status: 'degraded', storage: false })
  })

  it('serves an OpenAPI document generated from the route schemas', async () => {
    const r = await start()
    const doc = (await get(r, '/openapi.json')).json() as { openapi: string; paths: Record<string, unknown> }
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/contexts', '/lineages/{lineage_id}', '/.well-known/acdp.json']),
    )
  })
})
