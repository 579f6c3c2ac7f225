/**
 * POST /contexts behaviour through a real registry: every error code of the publish pipeline with its status and
 * envelope, the success shape, idempotency, supersession, media types, "nothing persisted on failure", and the
 * concurrency guarantees on every database target.
 */
import { computeKeyFingerprint, DidResolver, verifyContext } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import {
  AUTHORITY,
  countRows,
  didKeyProducer,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const start = useTestRegistry()

const WEB_DID = 'did:web:agents.example.com:alice'

function errorOf(res: { json(): unknown }): { code: string; message: string; details?: Record<string, unknown> } {
  return (res.json() as { error: { code: string; message: string; details?: Record<string, unknown> } }).error
}

async function expectRefusal(
  r: TestRegistry,
  body: unknown,
  status: number,
  code: string,
  headers: Record<string, string> = {},
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  const before = await countRows(r.database)
  const res = await publish(r.app, body, headers)
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toBe('application/acdp+json')
  const error = errorOf(res)
  expect(error.code).toBe(code)
  expect(typeof error.message).toBe('string')
  expect(Object.keys(res.json() as object)).toEqual(['error'])
  expect(await countRows(r.database)).toEqual(before)
  return error
}

describe('a successful publish', () => {
  it('answers 201 with Location and exactly the five publish-response fields', async () => {
    const r = await start()
    const p = didKeyProducer()
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
    expect(res.statusCode).toBe(201)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    const body = res.json() as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(['created_at', 'ctx_id', 'lineage_id', 'status', 'version'])
    expect(body.status).toBe('active')
    expect(body.version).toBe(1)
    expect(body.created_at).toBe('2026-05-01T12:00:00.000Z')
    expect(body.ctx_id).toMatch(
      new RegExp(
        `^acdp://${AUTHORITY.replaceAll('.', '\\.')}/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`,
      ),
    )
    expect(res.headers.location).toBe(`/contexts/${encodeURIComponent(body.ctx_id as string)}`)
    expect(res.headers.location).toMatch(/^\/contexts\/acdp%3A%2F%2F/)
  })

  it('floors created_at to the millisecond of the registry clock', async () => {
    const r = await start()
    r.clock.nowMs = Date.parse('2026-05-01T12:00:00.999Z')
    const p = didKeyProducer()
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
    expect((res.json() as { created_at: string }).created_at).toBe('2026-05-01T12:00:00.999Z')
  })

  it('stores the body byte for byte: the request text plus the four registry-assigned members', async () => {
    const r = await start()
    const p = didKeyProducer()
    const signed = signRequest(p, minimalUnsigned(p, { metadata: { ratio: 0.5, big: 1e21, note: 'caf\u00e9' } }))
    // A producer's own spelling: spaces, a number written 1.0, an escaped character.
    const text = JSON.stringify(signed, null, 1).replace('"version": 1', '"version": 1.0').replace('café', 'caf\\u00e9')
    const res = await publish(r.app, text)
    expect(res.statusCode).toBe(201)
    const { ctx_id, lineage_id } = res.json() as { ctx_id: string; lineage_id: string }
    const body = await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctx_id)}/body` })
    const expected = `${text.trim().slice(0, -1).trimEnd()},"ctx_id":"${ctx_id}","lineage_id":"${lineage_id}","origin_registry":"${AUTHORITY}","created_at":"2026-05-01T12:00:00.000Z"}`
    expect(body.body).toBe(expected)
  })

  it.each(['ed25519', 'ecdsa-p256'] as const)(
    'verifies %s did:web producers through their DID document',
    async (algorithm) => {
      const r = await start()
      const p = didWebProducer(WEB_DID, algorithm)
      r.dids.host([p])
      const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
      expect(res.statusCode).toBe(201)
    },
  )

  it('accepts non-did:web contributors without resolving them (pub-010)', async () => {
    const r = await start()
    const p = didWebProducer(WEB_DID)
    r.dids.host([p])
    const body = signRequest(
      p,
      minimalUnsigned(p, {
        contributors: ['did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH', 'did:web:agents.example.com:bob'],
      }),
    )
    const fetchesBefore = r.dids.fetches
    expect((await publish(r.app, body)).statusCode).toBe(201)
    expect(r.dids.fetches - fetchesBefore).toBe(1)
  })

  it('emits context_published with the run id once, after commit', async () => {
    const r = await start()
    const events: unknown[] = []
    r.deps.events.on('context_published', (e) => events.push(e))
    const p = didKeyProducer()
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, { derived_from: [] })), {
      'x-run-id': 'run-42',
      'idempotency-key': 'k1',
    })
    await publish(r.app, signRequest(p, minimalUnsigned(p, { derived_from: [] })), {
      'x-run-id': 'run-43',
      'idempotency-key': 'k1',
    })
    const { ctx_id } = res.json() as { ctx_id: string }
    expect(events).toEqual([
      expect.objectContaining({
        type: 'context_published',
        ctx_id,
        run_id: 'run-42',
        agent_id: p.did,
        visibility: 'public',
        version: 1,
      }),
    ])
  })
})

describe('media types and body limits', () => {
  it.each([
    ['application/acdp+json', 201],
    ['application/acdp+json; charset=utf-8', 201],
    ['application/json', 201],
    ['application/vnd.example+json', 201],
    ['text/plain', 415],
    ['application/x-www-form-urlencoded', 415],
    ['application/xml', 415],
  ])('Content-Type %s → %i', async (contentType, status) => {
    const r = await start()
    const p = didKeyProducer()
    const res = await r.app.inject({
      method: 'POST',
      url: '/contexts',
      headers: { 'content-type': contentType },
      payload: JSON.stringify(signRequest(p, minimalUnsigned(p))),
    })
    expect(res.statusCode).toBe(status)
    if (status === 415) expect(errorOf(res).code).toBe('unsupported_media_type')
  })

  it('accepts a body without Content-Type', async () => {
    const r = await start()
    const p = didKeyProducer()
    const res = await r.app.inject({
      method: 'POST',
      url: '/contexts',
      payload: Buffer.from(JSON.stringify(signRequest(p, minimalUnsigned(p)))),
    })
    expect(res.statusCode).toBe(201)
  })

  it.each([
    ['cap − 1', -1, 201],
    ['cap', 0, 201],
    ['cap + 1', 1, 413],
  ])('a body at %s bytes', async (_name, delta, status) => {
    const r = await start({ config: { limits: { max_payload_bytes: 4096 } } })
    const p = didKeyProducer()
    const unpadded = JSON.stringify(signRequest(p, minimalUnsigned(p)))
    const text = unpadded + ' '.repeat(4096 + delta - Buffer.byteLength(unpadded))
    const res = await publish(r.app, text)
    expect(res.statusCode).toBe(status)
    if (status === 413) expect(errorOf(res).code).toBe('payload_too_large')
  })

  it.each([
    ['malformed JSON', '{"version": 1,'],
    ['a duplicate member', '{"version":1,"version":1}'],
    ['an array', '[]'],
    ['an empty body', ''],
  ])('refuses %s as schema_violation', async (_name, text) => {
    const r = await start()
    await expectRefusal(r, text, 400, 'schema_violation')
  })

  it('refuses invalid UTF-8 as schema_violation', async () => {
    const r = await start()
    const res = await r.app.inject({
      method: 'POST',
      url: '/contexts',
      headers: { 'content-type': 'application/acdp+json' },
      payload: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res).code).toBe('schema_violation')
  })
})

describe('refusals (nothing is persisted for any of them)', () => {
  it('lists every failing schema path', async () => {
    const r = await start()
    const p = didKeyProducer()
    const body = { ...signRequest(p, minimalUnsigned(p)), title: '', extra_field: 1 }
    const error = await expectRefusal(r, body, 400, 'schema_violation')
    const paths = ((error.details?.errors ?? []) as Array<{ path: string }>).map((e) => e.path)
    expect(paths).toEqual(expect.arrayContaining(['/title', '/extra_field']))
  })

  it.each([
    ['metadata depth 9', { metadata: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }],
    ['metadata canonical size over 64 KiB', { metadata: { blob: 'x'.repeat(65_530) } }],
    [
      'data_period start after end',
      { data_period: { start: '2026-02-01T00:00:00.000Z', end: '2026-01-01T00:00:00.000Z' } },
    ],
    ['impossible date', { expires_at: '2026-02-30T00:00:00.000Z' }],
    [
      'anchors without acdp_version 0.5.0',
      { anchors: [{ scheme: 'git.commit', content_hash: `sha256:${'a'.repeat(64)}` }] },
    ],
    ['empty anchors', { acdp_version: '0.5.0', anchors: [] }],
    ['interim revocation type', { type: 'acdp:key-revocation' }],
    ['restricted without audience', { visibility: 'restricted' }],
    ['public with audience', { audience: ['did:web:b.example'] }],
    ['private with empty audience', { visibility: 'private', audience: [] }],
    ['lineage_id on a first version', { lineage_id: `lin:sha256:${'0'.repeat(64)}` }],
    ['registry-assigned origin_registry', { origin_registry: AUTHORITY }],
    ['a DataRef with neither location nor embedded', { data_refs: [{ type: 'raw_data' }] }],
    [
      'a DataRef location with credentials',
      { data_refs: [{ type: 'raw_data', location: 'postgres://u:p@db.example/x' }] },
    ],
    [
      'embedded base64 that is not base64',
      { data_refs: [{ type: 'raw_data', embedded: { encoding: 'base64', content: '!!!' } }] },
    ],
  ])('%s → schema_violation', async (_name, overrides) => {
    const r = await start()
    const p = didKeyProducer()
    await expectRefusal(r, signRequest(p, minimalUnsigned(p, overrides)), 400, 'schema_violation')
  })

  it.each([
    ['metadata depth 8', { metadata: { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } } }],
    [
      'anchors with acdp_version 0.5.0',
      {
        acdp_version: '0.5.0',
        anchors: [{ scheme: 'git.commit', content_hash: `sha256:${'a'.repeat(64)}`, note: 'kept' }],
      },
    ],
    ['private with an audience', { visibility: 'private', audience: ['did:web:b.example'] }],
    [
      'an embedded DataRef of exactly 65536 bytes',
      { data_refs: [{ type: 'raw_data', embedded: { encoding: 'utf8', content: 'x'.repeat(65_536) } }] },
    ],
  ])('%s is accepted', async (_name, overrides) => {
    const r = await start()
    const p = didKeyProducer()
    expect((await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)))).statusCode).toBe(201)
  })

  it.each([
    ['base64', { encoding: 'base64', content: Buffer.alloc(65_537).toString('base64') }],
    ['utf8 (multi-byte)', { encoding: 'utf8', content: 'é'.repeat(32_769) }],
    ['json (canonical bytes)', { encoding: 'json', content: { k: 'x'.repeat(65_530) } }],
  ])('embedded %s over 65536 decoded bytes → 413 embedded_too_large', async (_name, embedded) => {
    const r = await start({ config: { limits: { max_payload_bytes: 1_048_576 } } })
    const p = didKeyProducer()
    await expectRefusal(
      r,
      signRequest(p, minimalUnsigned(p, { data_refs: [{ type: 'raw_data', embedded }] })),
      413,
      'embedded_too_large',
    )
  })

  it('embedded content_hash mismatch → data_ref_hash_mismatch', async () => {
    const r = await start()
    const p = didKeyProducer()
    const data_refs = [
      {
        type: 'raw_data',
        embedded: { encoding: 'utf8', content: 'hello world', content_hash: `sha256:${'0'.repeat(64)}` },
      },
    ]
    await expectRefusal(r, signRequest(p, minimalUnsigned(p, { data_refs })), 400, 'data_ref_hash_mismatch')
  })

  it('content_hash that does not match the body → hash_mismatch', async () => {
    const r = await start()
    const p = didKeyProducer()
    const body = { ...signRequest(p, minimalUnsigned(p)), title: 'changed after signing' }
    await expectRefusal(r, body, 400, 'hash_mismatch')
  })

  it('unknown algorithm → unsupported_algorithm', async () => {
    const r = await start()
    const p = didKeyProducer()
    const signed = signRequest(p, minimalUnsigned(p))
    const body = { ...signed, signature: { ...(signed.signature as object), algorithm: 'ed448' } }
    await expectRefusal(r, body, 400, 'unsupported_algorithm')
  })

  it('key_id DID ≠ agent_id → 403 key_not_authorized, before any DID work', async () => {
    const r = await start()
    const alice = didWebProducer(WEB_DID)
    const bob = didWebProducer('did:web:agents.example.com:bob')
    r.dids.host([bob])
    const body = signRequest(bob, minimalUnsigned(alice))
    await expectRefusal(r, body, 403, 'key_not_authorized')
    expect(r.dids.fetches).toBe(0)
  })

  it('a key not listed in assertionMethod → 403 key_not_authorized', async () => {
    const r = await start()
    const p = didWebProducer(WEB_DID)
    r.dids.host([p], { assert: false })
    await expectRefusal(r, signRequest(p, minimalUnsigned(p)), 403, 'key_not_authorized')
  })

  it.each([
    ['no DID document (404)', 404],
    ['a fragment absent from the document', 'missing-fragment'],
  ] as const)('%s → key_resolution_failed', async (_name, kind) => {
    const r = await start()
    const p = didWebProducer(WEB_DID)
    if (kind === 'missing-fragment') r.dids.host([didWebProducer(WEB_DID, 'ed25519', 'other-key')])
    await expectRefusal(r, signRequest(p, minimalUnsigned(p)), 400, 'key_resolution_failed')
  })

  it('an unreachable DID host → 502 key_resolution_unreachable', async () => {
    const r = await start()
    const p = didWebProducer(WEB_DID)
    r.dids.answer(WEB_DID, 'unreachable')
    await expectRefusal(r, signRequest(p, minimalUnsigned(p)), 502, 'key_resolution_unreachable')
  })

  it('a did:key producer when did:key is not advertised → key_resolution_failed naming the method (dk-003)', async () => {
    const r = await start({ config: { auth: { did_methods: ['did:web'] } } })
    const p = didKeyProducer()
    const error = await expectRefusal(r, signRequest(p, minimalUnsigned(p)), 400, 'key_resolution_failed')
    expect(error.details).toEqual({ did_method: 'did:key' })
  })

  it.each([
    ['absent', undefined, 400],
    ['"0.1.0"', '0.1.0', 400],
    ['"0.1.9"', '0.1.9', 400],
    ['"0.2.0"', '0.2.0', 201],
    ['"1.0.0"', '1.0.0', 201],
  ] as const)(
    'a did:key body with acdp_version %s: the registry and the SDK verifier agree',
    async (_name, version, status) => {
      // RFC-ACDP-0001 §5.4, §6: an absent acdp_version reads as 0.1.0, whose agents MUST be did:web; did:key arrived
      // in 0.2.0. The registry refuses exactly the bodies a strict consumer (SDK verifyContext) refuses.
      const r = await start({ config: { auth: { did_methods: ['did:web', 'did:key'] } } })
      const p = didKeyProducer()
      const { acdp_version: _default, ...unsigned } = minimalUnsigned(p)
      const body = signRequest(p, version === undefined ? unsigned : { ...unsigned, acdp_version: version })
      const res = await publish(r.app, body)
      expect(res.statusCode).toBe(status)
      const verdict = await verifyContext(
        {
          body: {
            ...body,
            ctx_id: `acdp://${AUTHORITY}/12345678-1234-4321-8123-123456781234`,
            lineage_id: `lin:sha256:${'a'.repeat(64)}`,
            origin_registry: AUTHORITY,
            created_at: '2026-01-01T00:00:00.000Z',
          },
        },
        { resolver: new DidResolver({ fetchDidDocument: () => Promise.reject(new Error('no network')) }) },
      )
      expect(verdict.checks.find((check) => check.name === 'schema')?.ok).toBe(status === 201)
      if (status === 400) {
        expect(res.json()).toMatchObject({
          error: { code: 'schema_violation', details: { errors: [{ path: '/agent_id' }] } },
        })
        expect((await countRows(r.database)).context).toBe(0)
      }
    },
  )

  it('an agent_id of another DID method → schema_violation (pub-008)', async () => {
    const r = await start()
    const p = { ...didKeyProducer(), did: 'did:jwk:abc', keyId: 'did:jwk:abc#0' } as Producer
    await expectRefusal(r, signRequest(p, minimalUnsigned(p)), 400, 'schema_violation')
  })

  it.each([
    ['a signature by another key', 'other-key'],
    ['a signature of the wrong length', 'short'],
    ['an algorithm that does not fit the key', 'wrong-alg'],
  ])('%s → invalid_signature', async (_name, kind) => {
    const r = await start()
    const p = didKeyProducer()
    const signed = signRequest(p, minimalUnsigned(p))
    const signature = signed.signature as { algorithm: string; key_id: string; value: string }
    if (kind === 'other-key')
      signature.value = (signRequest(didKeyProducer(), minimalUnsigned(p)).signature as { value: string }).value
    if (kind === 'short') signature.value = signature.value.slice(4)
    if (kind === 'wrong-alg') signature.algorithm = 'ecdsa-p256'
    await expectRefusal(r, signed, 400, 'invalid_signature')
  })

  it('refetches a did:web document once after a failed signature (key rotation)', async () => {
    const r = await start()
    const old = didWebProducer(WEB_DID)
    r.dids.host([old])
    expect((await publish(r.app, signRequest(old, minimalUnsigned(old)))).statusCode).toBe(201)
    const rotated = didWebProducer(WEB_DID)
    r.dids.host([rotated])
    expect(
      (await publish(r.app, signRequest(rotated, minimalUnsigned(rotated, { title: 'after rotation' })))).statusCode,
    ).toBe(201)
  })
})

describe('key revocations (RFC-ACDP-0014)', () => {
  function revocation(p: Producer, revoked: Producer, overrides: Record<string, unknown> = {}) {
    return minimalUnsigned(p, {
      type: 'key-revocation',
      acdp_version: '0.3.0',
      metadata: { revoked_key_fingerprint: fingerprintOf(revoked), compromised_since: '2026-04-01T00:00:00.000Z' },
      ...overrides,
    })
  }

  it('accepts a producer-signed revocation of another key', async () => {
    const r = await start()
    const current = didWebProducer(WEB_DID, 'ed25519', 'key-2')
    const compromised = didWebProducer(WEB_DID, 'ed25519', 'key-1')
    r.dids.host([current, compromised])
    expect((await publish(r.app, signRequest(current, revocation(current, compromised)))).statusCode).toBe(201)
  })

  it('refuses a revocation signed by the revoked key (key_not_authorized)', async () => {
    const r = await start()
    const p = didWebProducer(WEB_DID)
    r.dids.host([p])
    await expectRefusal(r, signRequest(p, revocation(p, p)), 403, 'key_not_authorized')
  })

  it.each([
    ['not public', { visibility: 'private', audience: ['did:web:b.example'] }],
    ['no compromised_since', { metadata: { revoked_key_fingerprint: `sha256:${'1'.repeat(64)}` } }],
    [
      'a non-canonical compromised_since',
      { metadata: { revoked_key_fingerprint: `sha256:${'1'.repeat(64)}`, compromised_since: '2026-04-01T00:00:00Z' } },
    ],
    [
      'a controller other than the agent',
      {
        metadata: {
          revoked_key_fingerprint: `sha256:${'1'.repeat(64)}`,
          compromised_since: '2026-04-01T00:00:00.000Z',
          revoked_key_controller: 'did:web:x.example',
        },
      },
    ],
  ])('refuses a revocation that is %s (schema_violation)', async (_name, overrides) => {
    const r = await start()
    const p = didKeyProducer()
    await expectRefusal(r, signRequest(p, revocation(p, didKeyProducer(), overrides)), 400, 'schema_violation')
  })

  it('refuses superseding a revocation with another type (revocation_type_mismatch)', async () => {
    const r = await start()
    const p = didKeyProducer()
    const first = await publish(r.app, signRequest(p, revocation(p, didKeyProducer())))
    const { ctx_id, lineage_id } = first.json() as { ctx_id: string; lineage_id: string }
    const error = await expectRefusal(
      r,
      signRequest(p, minimalUnsigned(p, { version: 2, supersedes: ctx_id, lineage_id })),
      400,
      'superseded_target',
    )
    expect(error.details).toEqual({ reason: 'revocation_type_mismatch' })
  })
})

/** RFC-ACDP-0010 §6 fingerprint, through the protocol library. */
function fingerprintOf(p: Producer): string {
  return computeKeyFingerprint({ algorithm: p.algorithm, publicKey: p.publicKey })
}

describe('supersession', () => {
  async function publishV1(r: TestRegistry, p: Producer, overrides: Record<string, unknown> = {}) {
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)))
    expect(res.statusCode).toBe(201)
    return res.json() as { ctx_id: string; lineage_id: string }
  }

  it('publishes version 2 on the anchored lineage and marks version 1 superseded', async () => {
    const r = await start()
    const p = didKeyProducer()
    const v1 = await publishV1(r, p)
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, { version: 2, supersedes: v1.ctx_id })))
    expect(res.statusCode).toBe(201)
    expect((res.json() as { lineage_id: string }).lineage_id).toBe(v1.lineage_id)
    const old = await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(v1.ctx_id)}` })
    expect((old.json() as { registry_state: { status: string } }).registry_state).toEqual({ status: 'superseded' })
  })

  it.each([
    ['a missing target', 'missing', 400, 'superseded_target', 'not_found'],
    ["another registry's target", 'foreign', 400, 'superseded_target', 'cross_registry_supersession_unsupported'],
    ['a lineage_id that does not match', 'lineage', 400, 'superseded_target', 'lineage_mismatch'],
    ['a skipped version', 'version', 409, 'superseded_target', 'version_mismatch'],
    ['an already superseded target', 'again', 409, 'superseded_target', 'already_superseded'],
    ["another agent's context", 'agent', 403, 'not_authorized', undefined],
    ["another agent's private context (hidden as not_found)", 'private', 400, 'superseded_target', 'not_found'],
  ] as const)('%s → %i %s', async (_name, kind, status, code, reason) => {
    const r = await start()
    const p = didKeyProducer()
    const v1 = await publishV1(r, p)
    let publisher = p
    let overrides: Record<string, unknown> = { version: 2, supersedes: v1.ctx_id }
    if (kind === 'missing') overrides.supersedes = `acdp://${AUTHORITY}/00000000-0000-4000-8000-000000000000`
    if (kind === 'foreign') overrides.supersedes = 'acdp://other.example.org/00000000-0000-4000-8000-000000000000'
    if (kind === 'lineage') overrides.lineage_id = `lin:sha256:${'9'.repeat(64)}`
    if (kind === 'version') overrides.version = 3
    if (kind === 'again') await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)))
    if (kind === 'agent') publisher = didKeyProducer()
    if (kind === 'private') {
      const hidden = await publishV1(r, p, { visibility: 'private' })
      publisher = didKeyProducer()
      overrides = { version: 2, supersedes: hidden.ctx_id }
    }
    const error = await expectRefusal(r, signRequest(publisher, minimalUnsigned(publisher, overrides)), status, code)
    if (reason) expect(error.details).toMatchObject({ reason })
  })
})

describe('idempotency (RFC-ACDP-0003 §6)', () => {
  it('replays a byte-identical retry with 200, the same body and Location, and no DID work', async () => {
    const r = await start()
    const p = didWebProducer(WEB_DID)
    r.dids.host([p])
    const body = signRequest(p, minimalUnsigned(p))
    const first = await publish(r.app, body, { 'idempotency-key': 'idem-key-AAAA' })
    const fetches = r.dids.fetches
    const again = await publish(r.app, JSON.stringify(body, null, 2), { 'idempotency-key': 'idem-key-AAAA' })
    expect(first.statusCode).toBe(201)
    expect(again.statusCode).toBe(200)
    expect(again.body).toBe(first.body)
    expect(again.headers.location).toBe(first.headers.location)
    expect(r.dids.fetches).toBe(fetches)
    expect((await countRows(r.database)).context).toBe(1)
  })

  it('replays a re-signed retry of the same content after verifying it', async () => {
    const r = await start()
    const p = didKeyProducer('ecdsa-p256')
    const unsigned = minimalUnsigned(p)
    const first = await publish(r.app, signRequest(p, unsigned), { 'idempotency-key': 'k' })
    const again = await publish(r.app, signRequest(p, unsigned), { 'idempotency-key': 'k' })
    expect([first.statusCode, again.statusCode]).toEqual([201, 200])
    expect(again.body).toBe(first.body)
  })

  it('answers 409 duplicate_publish for the same key with different content', async () => {
    const r = await start()
    const p = didKeyProducer()
    const first = await publish(r.app, signRequest(p, minimalUnsigned(p)), { 'idempotency-key': 'k' })
    const error = await expectRefusal(
      r,
      signRequest(p, minimalUnsigned(p, { title: 'other' })),
      409,
      'duplicate_publish',
      { 'idempotency-key': 'k' },
    )
    expect(error.details).toEqual({
      idempotency_key: 'k',
      original_ctx_id: (first.json() as { ctx_id: string }).ctx_id,
    })
  })

  it('does not let another agent probe or occupy a key: a forged same-key request is verified first', async () => {
    const r = await start()
    const victim = didKeyProducer()
    await publish(r.app, signRequest(victim, minimalUnsigned(victim)), { 'idempotency-key': 'k' })
    const attacker = didKeyProducer()
    const forged = signRequest(attacker, minimalUnsigned(victim, { title: 'forged' }))
    ;(forged.signature as { key_id: string }).key_id = `${victim.did}#${victim.did.slice('did:key:'.length)}`
    await expectRefusal(r, forged, 400, 'invalid_signature', { 'idempotency-key': 'k' })
  })

  it('scopes keys per agent and mints a new ctx_id for the same content under a new key (idem-004)', async () => {
    const r = await start()
    const a = didKeyProducer()
    const b = didKeyProducer()
    const ra = await publish(r.app, signRequest(a, minimalUnsigned(a)), { 'idempotency-key': 'shared' })
    const rb = await publish(r.app, signRequest(b, minimalUnsigned(b)), { 'idempotency-key': 'shared' })
    const ra2 = await publish(r.app, signRequest(a, minimalUnsigned(a)), { 'idempotency-key': 'fresh' })
    expect([ra.statusCode, rb.statusCode, ra2.statusCode]).toEqual([201, 201, 201])
    expect(new Set([ra, rb, ra2].map((x) => (x.json() as { ctx_id: string }).ctx_id)).size).toBe(3)
  })

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(257)],
    ['non-ASCII', 'clé'],
  ])('treats a malformed key (%s) as absent', async (_name, key) => {
    const r = await start()
    const p = didKeyProducer()
    const body = signRequest(p, minimalUnsigned(p))
    const first = await publish(r.app, body, { 'idempotency-key': key })
    const second = await publish(r.app, body, { 'idempotency-key': key })
    expect([first.statusCode, second.statusCode]).toEqual([201, 201])
  })

  it('forgets a key after the TTL and records nothing for a failed publish (pub-011)', async () => {
    const r = await start()
    const p = didKeyProducer()
    const good = signRequest(p, minimalUnsigned(p))
    const bad = structuredClone(good)
    ;(bad.signature as { value: string }).value = (
      signRequest(didKeyProducer(), minimalUnsigned(p)).signature as { value: string }
    ).value
    await expectRefusal(r, bad, 400, 'invalid_signature', { 'idempotency-key': 'k' })
    const first = await publish(r.app, good, { 'idempotency-key': 'k' })
    expect(first.statusCode).toBe(201)
    r.clock.advance(86_400_000)
    const later = await publish(r.app, good, { 'idempotency-key': 'k' })
    expect(later.statusCode).toBe(201)
    expect((later.json() as { ctx_id: string }).ctx_id).not.toBe((first.json() as { ctx_id: string }).ctx_id)
  })
})

describe.each(testDatabaseTargets())('concurrency on $name', (target) => {
  it('lets exactly one of 20 concurrent supersessions of one target win; the rest get 409 already_superseded', async () => {
    const r = await start({ openDatabase: target.open })
    const p = didKeyProducer()
    const v1 = (await publish(r.app, signRequest(p, minimalUnsigned(p)))).json() as { ctx_id: string }
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        publish(r.app, signRequest(p, minimalUnsigned(p, { version: 2, supersedes: v1.ctx_id, title: `v2 #${i}` }))),
      ),
    )
    const statuses = attempts.map((a) => a.statusCode)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    for (const loser of attempts.filter((a) => a.statusCode !== 201)) {
      expect(loser.statusCode).toBe(409)
      expect(errorOf(loser)).toMatchObject({ code: 'superseded_target', details: { reason: 'already_superseded' } })
    }
    expect((await countRows(r.database)).context).toBe(2)
  })

  it('gives 20 concurrent same-key, same-content publishes one ctx_id', async () => {
    const r = await start({ openDatabase: target.open })
    const p = didKeyProducer()
    const body = signRequest(p, minimalUnsigned(p))
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () => publish(r.app, body, { 'idempotency-key': 'race' })),
    )
    expect(attempts.every((a) => a.statusCode === 201 || a.statusCode === 200)).toBe(true)
    expect(attempts.filter((a) => a.statusCode === 201)).toHaveLength(1)
    expect(new Set(attempts.map((a) => (a.json() as { ctx_id: string }).ctx_id)).size).toBe(1)
    expect((await countRows(r.database)).context).toBe(1)
  })
})

describe('internal failures', () => {
  it('answers 500 internal_error with the fixed message and no details when the store fails (err-001)', async () => {
    const r = await start()
    r.store.insertContext = async () => {
      throw new Error('disk full at /var/lib/secret-path')
    }
    const p = didKeyProducer()
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
    expect(res.statusCode).toBe(500)
    expect(res.headers['content-type']).toBe('application/acdp+json')
    expect(res.json()).toEqual({ error: { code: 'internal_error', message: 'An unexpected error occurred.' } })
  })
})
