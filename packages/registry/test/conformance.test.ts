/**
 * Behavioural conformance: every fixture of the pub-, idem-, ret-, body-, data-ref-, caps-, schema-, err- and
 * rate- families is read at test time and driven through a real registry (app.inject, real store, real DID
 * resolution and signature verification). Fixtures with fixed, self-consistent bytes are replayed as given;
 * fixtures that only describe a body (or whose signatures are placeholders) are re-signed with keys generated
 * here. A fixture with no handler fails the suite, so new fixtures are never skipped silently.
 *
 * Deliberate readings (documented in docs/registry/api.md):
 * - pub-008's literal body is a did:key agent without acdp_version: a 0.1.0 body, whose agents MUST be did:web
 *   (RFC-ACDP-0001 §5.4, §6), so it is `schema_violation` whether or not did:key is advertised. The same body
 *   declaring 0.2.0 is a did:key publish: `key_resolution_failed` where did:key is not advertised (dk-003) and
 *   at its `#key-1` fragment where it is (dk-004). Other DID methods are checked with a did:jwk agent.
 * - idem-005 describes a registry without idempotency; at acdp_version 0.5.0 support is REQUIRED (idem-007), so
 *   the test checks the capability that makes the scenario impossible.
 * - schema-001/005/006/007 pin the search response (discovery profile): a real search must use `matches` and
 *   omit absent members rather than write null.
 * - rate-001: run live, following the fixture's self-test recipe (a known per-agent rate, one publish over it, the
 *   advertised Retry-After honoured).
 */
import {
  CapabilitiesDocument,
  checkCapabilitiesConsistency,
  computeContentHash,
  deriveLineageId,
  HOSTNAME_PATTERN,
  PublishResponse,
  RegistryErrorEnvelope,
} from '@acdp/protocol'
import { Compile } from 'typebox/compile'
import { afterAll, afterEach, expect, it } from 'vitest'
import {
  type Fixture,
  describeConformance,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import type { NewContext } from '../src/store/store.js'
import {
  AUTHORITY,
  countRows,
  createTestRegistry,
  didKeyProducer,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  type TestRegistryOptions,
} from './support/registry-harness.js'

reportMissingConformance('registry conformance')

const FAMILIES = ['pub-', 'idem-', 'ret-', 'body-', 'data-ref-', 'caps-', 'schema-', 'err-', 'rate-']
const fixtures = FAMILIES.flatMap((family) => loadFixtures(family))
const ran = new Set<string>()

const capabilitiesValidator = Compile(CapabilitiesDocument)
const publishResponseValidator = Compile(PublishResponse)
const errorValidator = Compile(RegistryErrorEnvelope)
const hostname = new RegExp(HOSTNAME_PATTERN)

let registry: TestRegistry | undefined
afterEach(async () => {
  await registry?.close()
  registry = undefined
})

async function start(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  registry = await createTestRegistry(options)
  return registry
}

type Response = Awaited<ReturnType<typeof publish>>

function errorOf(res: Response): { code: string; message: string; details?: Record<string, unknown> } {
  return (res.json() as { error: { code: string; message: string; details?: Record<string, unknown> } }).error
}

function expectError(res: Response, status: number, code: string): void {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toBe('application/acdp+json')
  expect(errorValidator.Check(res.json())).toBe(true)
  expect(errorOf(res).code).toBe(code)
}

/** The expected status/code of a fixture, whichever of the two fixture layouts it uses. */
function expectedOf(fx: Fixture): { status: number; code: string } {
  return { status: fx.expected.http_status ?? fx.expected.status, code: fx.expected.error_code }
}

/** The literal request body of a publish fixture. */
function literalBody(fx: Fixture): Record<string, unknown> {
  return structuredClone(fx.input?.body ?? fx.request?.body)
}

/** Hosts a fresh did:web key for `did` and returns the producer. */
function hostedWebProducer(r: TestRegistry, did: string, fragment = 'key-1'): Producer {
  const p = didWebProducer(did, 'ed25519', fragment)
  r.dids.host([p])
  return p
}

/** Re-signs a fixture body with `p` (keeps every other member as the fixture gives it). */
function resign(p: Producer, body: Record<string, unknown>): Record<string, unknown> {
  const { content_hash: _h, signature: _s, ...rest } = body
  return signRequest(p, { ...rest, agent_id: p.did })
}

/** Publishes a literal fixture body and checks the expected refusal and that nothing was stored. */
async function replayRefusal(r: TestRegistry, fx: Fixture, body = literalBody(fx)): Promise<Response> {
  const { status, code } = expectedOf(fx)
  const before = await countRows(r.database)
  const res = await publish(r.app, body)
  expectError(res, status, code)
  expect(await countRows(r.database)).toEqual(before)
  return res
}

/** A minimal did:key publish carrying `dataRef`. */
function withDataRef(dataRef: unknown): { producer: Producer; body: Record<string, unknown> } {
  const producer = didKeyProducer()
  return { producer, body: signRequest(producer, minimalUnsigned(producer, { data_refs: [dataRef] })) }
}

/** Inserts a context row directly (preconditions and abnormal states no publish can create). */
async function seedContext(
  r: TestRegistry,
  fields: Partial<NewContext> & { ctxId: string; lineageId: string; version: number },
): Promise<void> {
  const bodyText = JSON.stringify({ ctx_id: fields.ctxId, lineage_id: fields.lineageId, version: fields.version })
  const result = await r.store.insertContext({
    tenantId: 'default',
    supersedes: null,
    agentId: 'did:web:agents.example.com:test-producer',
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: [],
    title: 'seeded',
    summary: null,
    description: null,
    domain: null,
    schemaUri: null,
    tags: [],
    derivedFrom: [],
    contentHash: computeContentHash({ seeded: fields.ctxId }),
    createdAt: '2026-01-01T00:00:00.000Z',
    createdAtMs: Date.parse('2026-01-01T00:00:00.000Z'),
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText,
    registryReceipt: null,
    logLeaf: null,
    ...fields,
  })
  expect(result).toEqual({ ok: true, leafIndex: null })
}

const TEST_PRODUCER = 'did:web:agents.example.com:test-producer'

const HANDLERS: Record<string, (fx: Fixture) => Promise<void>> = {
  // ── publish ────────────────────────────────────────────────────────────────────────────────────────────
  'pub-001': async (fx) => {
    const r = await start()
    hostedWebProducer(r, TEST_PRODUCER)
    // Self-consistent: the hash recomputes, only the signature is wrong. Replayed as given.
    expect(computeContentHash(literalBody(fx))).toBe(literalBody(fx).content_hash)
    await replayRefusal(r, fx)
  },
  'pub-002': async (fx) => {
    const r = await start()
    hostedWebProducer(r, TEST_PRODUCER)
    await replayRefusal(r, fx)
  },
  'pub-003': async (fx) => {
    const r = await start()
    const existing = fx.input.preconditions.existing_context
    expect(deriveLineageId(existing.ctx_id)).toBe(existing.lineage_id)
    await seedContext(r, { ctxId: existing.ctx_id, lineageId: existing.lineage_id, version: existing.version })
    // The fixture's hash and signature are placeholders: re-sign with the fixture's agent, keep its lineage_id.
    const p = hostedWebProducer(r, TEST_PRODUCER)
    const res = await replayRefusal(r, fx, resign(p, literalBody(fx)))
    expect(errorOf(res).details).toMatchObject(fx.expected.details)
  },
  'pub-004': async (fx) => replayRefusal(await start(), fx).then(() => undefined),
  'pub-005': async (fx) => replayRefusal(await start(), fx).then(() => undefined),
  'pub-006': async (fx) => {
    const r = await start()
    await replayRefusal(r, fx)
    expect(r.dids.fetches).toBe(0)
  },
  'pub-007': async (fx) => {
    const r = await start()
    const p = didKeyProducer()
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
    expect(res.statusCode).toBe(fx.expected.http_status)
    expect(res.headers['content-type']).toBe(fx.expected.headers['Content-Type'])
    const body = res.json() as Record<string, unknown>
    const shape = fx.expected.response_body_shape
    expect(Object.keys(body).sort()).toEqual([...shape.required_fields].sort())
    for (const forbidden of shape.forbidden_fields) expect(body).not.toHaveProperty(forbidden)
    expect(publishResponseValidator.Check(body)).toBe(true)
    expect(body.status).toBe('active')
    expect(body.version).toBe(1)
    expect(body.lineage_id).toBe(deriveLineageId(body.ctx_id as string))
    // Location round trip (scenario 1) and the encoding rules, checked on the fixture's own example too.
    const location = res.headers.location as string
    expect(location.startsWith('/contexts/acdp%3A%2F%2F')).toBe(true)
    expect(decodeURIComponent(location.slice('/contexts/'.length))).toBe(body.ctx_id)
    const scenario = fx.scenarios[0].input.publish_response
    expect(`/contexts/${encodeURIComponent(scenario.body.ctx_id)}`).toBe(scenario.headers.Location)
    for (const wrong of Object.entries(fx.scenarios[0].negative_examples)
      .filter(([k]) => k !== 'note')
      .map(([, v]) => v)) {
      expect(`/contexts/${encodeURIComponent(scenario.body.ctx_id)}`).not.toBe(wrong)
    }
  },
  'pub-008': async (fx) => {
    // The literal body: a did:key agent with no acdp_version, i.e. a 0.1.0 body, whose agents MUST be did:web
    // (RFC-ACDP-0001 §5.4, §6). The fixture's preferred schema_violation, before hashing, whether or not the
    // registry advertises did:key (dk-003's key_resolution_failed is for 0.2.0 did:key bodies).
    for (const didMethods of [['did:web'], ['did:web', 'did:key']]) {
      const r = await start({ config: { auth: { did_methods: didMethods } } })
      const res = await publish(r.app, literalBody(fx))
      expectError(res, fx.expected.status, fx.expected.error_code)
      expect(errorOf(res).details).toMatchObject({ errors: [{ path: '/agent_id' }] })
      const rehashed = literalBody(fx)
      rehashed.content_hash = computeContentHash(rehashed)
      expectError(await publish(r.app, rehashed), fx.expected.status, fx.expected.error_code)
      expect((await countRows(r.database)).context).toBe(0)
      await r.close()
      registry = undefined
    }
    // Declaring 0.2.0 makes it a did:key publish: refused where did:key is not advertised (dk-003) and, where it
    // is, at key resolution: its `#key-1` fragment is not the method-specific id (RFC-ACDP-0001 §5.11.1 step 1).
    const declared: Record<string, unknown> = { ...literalBody(fx), acdp_version: '0.2.0' }
    declared.content_hash = computeContentHash(declared)
    const gated = await start({ config: { auth: { did_methods: ['did:web'] } } })
    const gatedRes = await publish(gated.app, declared)
    expectError(gatedRes, 400, 'key_resolution_failed')
    expect(errorOf(gatedRes).details).toEqual({ did_method: 'did:key' })
    await gated.close()
    registry = undefined
    const open = await start({ config: { auth: { did_methods: ['did:web', 'did:key'] } } })
    expectError(await publish(open.app, declared), 400, 'key_resolution_failed')
    expect((await countRows(open.database)).context).toBe(0)
    await open.close()
    registry = undefined
    // The fixture's codes for a non-did:web agent, with a method no registry resolves.
    const r = await start()
    const body = {
      ...literalBody(fx),
      agent_id: 'did:jwk:eyJrdHkiOiJPS1AifQ',
      signature: { ...(literalBody(fx).signature as object), key_id: 'did:jwk:eyJrdHkiOiJPS1AifQ#0' },
    }
    const res = await publish(r.app, body)
    expect([fx.expected.error_code, fx.expected.alternative_error_code]).toContain(errorOf(res).code)
    expect([fx.expected.status, fx.expected.alternative_status]).toContain(res.statusCode)
  },
  'pub-009': async (fx) => {
    const r = await start()
    await replayRefusal(r, fx)
    expect(r.dids.fetches).toBe(0)
  },
  'pub-010': async (fx) => {
    const r = await start()
    const excerpt = fx.request.body_excerpt
    const p = hostedWebProducer(r, excerpt.agent_id)
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, { contributors: excerpt.contributors })))
    expect(res.statusCode).toBe(fx.expected.status)
    expect(r.dids.fetches).toBe(1)
  },
  'pub-011': async (fx) => {
    const r = await start()
    const p = hostedWebProducer(r, TEST_PRODUCER)
    const body = literalBody(fx)
    body.content_hash = computeContentHash(body)
    const before = await countRows(r.database)
    const res = await publish(r.app, body, { 'idempotency-key': 'pub-011' })
    expectError(res, fx.expected.http_status, fx.expected.error_code)
    expect(await countRows(r.database)).toEqual(before)
    // Invariant 3: a corrected retry with the same key is a fresh publish, not a replay.
    const corrected = await publish(r.app, resign(p, body), { 'idempotency-key': 'pub-011' })
    expect(corrected.statusCode).toBe(201)
  },
  'pub-012': async (fx) => replayRefusal(await start(), fx).then(() => undefined),
  'pub-013': async (fx) => replayRefusal(await start(), fx).then(() => undefined),
  'pub-014': async (fx) => replayRefusal(await start(), fx).then(() => undefined),

  // ── idempotency ────────────────────────────────────────────────────────────────────────────────────────
  'idem-001': async (fx) => {
    const r = await start()
    const p = hostedWebProducer(r, TEST_PRODUCER)
    const key = fx.input.headers['Idempotency-Key']
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p)), { 'idempotency-key': key })
    expect(res.statusCode).toBe(fx.expected.http_status)
    const { ctx_id } = res.json() as { ctx_id: string }
    expect(res.headers.location).toBe(`/contexts/${encodeURIComponent(ctx_id)}`)
    const record = await r.store.findIdempotencyRecord(p.did, key, r.clock.nowMs, 'default')
    expect(record).toMatchObject({ ctxId: ctx_id, responseJson: res.body })
  },
  'idem-002': async (fx) => {
    const r = await start()
    const p = hostedWebProducer(r, fx.preconditions.existing_record.agent_id)
    const key = fx.preconditions.existing_record.idempotency_key
    const body = signRequest(p, minimalUnsigned(p))
    const first = await publish(r.app, body, { 'idempotency-key': key })
    const fetches = r.dids.fetches
    // Different whitespace, same content_hash.
    const retry = await publish(r.app, JSON.stringify(body, null, 4), { 'idempotency-key': key })
    expect(retry.statusCode).toBe(fx.expected.http_status)
    expect(retry.body).toBe(first.body)
    expect(r.dids.fetches).toBe(fetches)
    expect((await countRows(r.database)).context).toBe(1)
  },
  'idem-003': async (fx) => {
    const r = await start()
    const p = hostedWebProducer(r, fx.preconditions.existing_record.agent_id)
    const key = fx.preconditions.existing_record.idempotency_key
    const first = await publish(r.app, signRequest(p, minimalUnsigned(p)), { 'idempotency-key': key })
    const before = await countRows(r.database)
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, { title: 'corrected title' })), {
      'idempotency-key': key,
    })
    expectError(res, fx.expected.http_status, fx.expected.error_code)
    expect(await countRows(r.database)).toEqual(before)
    expect((await r.store.findIdempotencyRecord(p.did, key, r.clock.nowMs, 'default'))?.responseJson).toBe(first.body)
  },
  'idem-004': async (fx) => {
    const r = await start()
    const p = hostedWebProducer(r, fx.preconditions.existing_record.agent_id)
    const body = signRequest(p, minimalUnsigned(p))
    const first = (
      await publish(r.app, body, { 'idempotency-key': fx.preconditions.existing_record.idempotency_key })
    ).json() as Record<string, unknown>
    const res = await publish(r.app, body, { 'idempotency-key': fx.input.headers['Idempotency-Key'] })
    expect(res.statusCode).toBe(fx.expected.http_status)
    const second = res.json() as Record<string, unknown>
    expect(second.ctx_id).not.toBe(first.ctx_id)
    expect(second.lineage_id).not.toBe(first.lineage_id)
    expect(second).toMatchObject({
      version: fx.expected.response_constraints.version,
      status: fx.expected.response_constraints.status,
    })
  },
  'idem-005': async (fx) => {
    // Not applicable at 0.5.0: the registry must (and does) advertise idempotency support.
    const r = await start()
    const caps = (await r.app.inject({ method: 'GET', url: '/.well-known/acdp.json' })).json() as Record<
      string,
      unknown
    >
    expect(caps.supports_idempotency_key).not.toBe(
      fx.preconditions.registry_capabilities_subset.supports_idempotency_key,
    )
    expect(caps.supports_idempotency_key).toBe(true)
  },
  'idem-006': async (fx) => {
    const r = await start()
    const p = hostedWebProducer(r, TEST_PRODUCER)
    const tolerated = fx.expected.tolerated_outcomes.map(
      (o: { request_a: { http_status: number }; request_b: { http_status: number } }) =>
        [o.request_a.http_status, o.request_b.http_status].sort().join(','),
    )
    // The fixture's stress recipe: many paired publishes, cardinality 1 per key.
    for (let pair = 0; pair < 25; pair++) {
      const body = signRequest(p, minimalUnsigned(p, { title: `race ${pair}` }))
      const key = `idem-key-RACE-${pair}`
      const [a, b] = await Promise.all([
        publish(r.app, body, { 'idempotency-key': key }),
        publish(r.app, body, { 'idempotency-key': key }),
      ])
      expect(tolerated).toContain([a.statusCode, b.statusCode].sort().join(','))
      expect((a.json() as { ctx_id: string }).ctx_id).toBe((b.json() as { ctx_id: string }).ctx_id)
    }
    expect((await countRows(r.database)).context).toBe(25)
  },
  'idem-007': async (fx) => {
    for (const input of fx.input) {
      expect(
        capabilitiesValidator.Check(input.response_body) &&
          checkCapabilitiesConsistency(input.response_body).length === 0,
      ).toBe(false)
    }
    const r = await start()
    const caps = (await r.app.inject({ method: 'GET', url: '/.well-known/acdp.json' })).json() as CapabilitiesDocument
    expect(checkCapabilitiesConsistency(caps)).toEqual([])
    expect(caps.supports_idempotency_key).toBe(true)
  },

  // ── retrieval ──────────────────────────────────────────────────────────────────────────────────────────
  'ret-001': async (fx) => {
    const r = await start()
    const res = await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(fx.input.ctx_id)}` })
    expectError(res, fx.expected.http_status, fx.expected.error_code)
  },
  'ret-002': async (fx) => {
    const r = await start()
    for (const lineage of fx.setup.lineages) {
      const versions = lineage.versions as Array<{
        ctx_id: string
        version: number
        status: string
        expires_at?: string
      }>
      for (const [i, v] of versions.entries()) {
        await seedContext(r, {
          ctxId: v.ctx_id,
          lineageId: lineage.lineage_id,
          version: v.version,
          supersedes: i === 0 ? null : (versions[i - 1]?.ctx_id ?? null),
          expiresAtMs: v.expires_at ? Date.parse(v.expires_at) : null,
        })
      }
      // The abnormal "every version superseded" state (admin correction / corruption) is written directly.
      const last = versions.at(-1)
      if (last?.status === 'superseded') {
        await r.database.db
          .updateTable('context')
          .set({ superseded_by: `acdp://${AUTHORITY}/00000000-0000-4000-8000-00000000ffff` })
          .where('ctx_id', '=', last.ctx_id)
          .execute()
      }
    }
    for (const scenario of fx.scenarios) {
      const res = await r.app.inject({ method: 'GET', url: scenario.request.path })
      expect(res.statusCode).toBe(scenario.expected.status)
      if (scenario.expected.error_code) expect(errorOf(res).code).toBe(scenario.expected.error_code)
      else {
        const envelope = res.json() as { body: { ctx_id: string }; registry_state: unknown }
        expect(envelope.body.ctx_id).toBe(scenario.expected.ctx_id)
        expect(envelope.registry_state).toEqual(scenario.expected.registry_state)
      }
    }
  },

  // ── body identity ──────────────────────────────────────────────────────────────────────────────────────
  'body-001': async () => {
    const r = await start()
    const p = didKeyProducer()
    const { ctx_id } = (await publish(r.app, signRequest(p, minimalUnsigned(p)))).json() as { ctx_id: string }
    const body = (
      (await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctx_id)}` })).json() as {
        body: { origin_registry: string }
      }
    ).body
    expect(hostname.test(body.origin_registry)).toBe(true)
    expect(`acdp://${body.origin_registry}/`).toBe(ctx_id.slice(0, ctx_id.lastIndexOf('/') + 1))
  },
  'body-002': async (fx) => {
    expect(hostname.test(fx.input.body_fields_under_test.origin_registry)).toBe(false)
    const r = await start()
    const p = didKeyProducer()
    const { ctx_id } = (await publish(r.app, signRequest(p, minimalUnsigned(p)))).json() as { ctx_id: string }
    const body = (
      await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctx_id)}/body` })
    ).json() as { origin_registry: string }
    expect(body.origin_registry).not.toBe(fx.input.body_fields_under_test.origin_registry)
    expect(body.origin_registry.startsWith('did:')).toBe(false)
  },

  // ── DataRefs ───────────────────────────────────────────────────────────────────────────────────────────
  'data-ref-001': async (fx) => dataRefRefusal(fx),
  'data-ref-002': async (fx) => dataRefRefusal(fx),
  'data-ref-003': async (fx) => dataRefRefusal(fx),
  'data-ref-004': async (fx) => dataRefRefusal(fx),
  'data-ref-005': async (fx) => {
    // The fixture omits the payload: any base64 decoding to 65537 bytes.
    const dataRef = {
      type: fx.input.data_ref_under_test.type,
      embedded: { encoding: 'base64', content: Buffer.alloc(65_537, 7).toString('base64') },
    }
    await dataRefRefusal(fx, dataRef)
  },
  'data-ref-006': async (fx) => dataRefRefusal(fx),
  'data-ref-007': async (fx) => {
    await dataRefRefusal(fx)
    registry = undefined
    const { _correct_hash_for_content: correct, ...dataRef } = fx.input.data_ref_under_test
    const r = await start()
    const { body } = withDataRef({ ...dataRef, embedded: { ...dataRef.embedded, content_hash: correct } })
    expect((await publish(r.app, body)).statusCode).toBe(201)
  },
  'data-ref-008': async (fx) => {
    // Consumer-side fixture. Registry counterpart: a location is never fetched, so a declared hash the
    // registry cannot check is accepted and stored as signed (RFC-ACDP-0002 §6.5).
    const r = await start()
    const { body } = withDataRef(fx.input.data_ref_under_test)
    const res = await publish(r.app, body)
    expect(res.statusCode).toBe(201)
    expect(r.dids.fetches).toBe(0)
  },

  // ── capabilities ───────────────────────────────────────────────────────────────────────────────────────
  'caps-001': async (fx) => capabilitiesFixture(fx),
  'caps-002': async (fx) => capabilitiesFixture(fx),
  'caps-003': async (fx) => capabilitiesFixture(fx),
  'caps-004': async (fx) => capabilitiesFixture(fx),
  'caps-005': async (fx) => capabilitiesFixture(fx),
  'caps-006': async (fx) => capabilitiesFixture(fx),
  'caps-007': async (fx) => capabilitiesFixture(fx),

  // ── schema openness / absent-vs-null ───────────────────────────────────────────────────────────────────
  'schema-001': async (fx) => searchResponseShape(fx),
  'schema-002': async (fx) => {
    expect(publishResponseValidator.Check(fx.input.response_body)).toBe(false)
    const r = await start()
    const p = didKeyProducer()
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p)))
    expect(publishResponseValidator.Check(res.json())).toBe(true)
    expect(res.json()).not.toHaveProperty('content_hash')
  },
  'schema-003': async (fx) => excerptRefusal(fx, fx.input.request_body_excerpt),
  'schema-004': async (fx) => capabilitiesFixture(fx),
  'schema-005': async (fx) => searchResponseShape(fx),
  'schema-006': async (fx) => searchResponseShape(fx),
  'schema-007': async (fx) => searchResponseShape(fx),
  'schema-008': async (fx) => {
    // The closed signature object is checked before any signature work.
    const r = await start()
    const p = didKeyProducer()
    const body = signRequest(p, minimalUnsigned(p))
    body.signature = { ...(body.signature as object), extra: fx.input.request_body_excerpt.signature.extra }
    const res = await publish(r.app, body)
    expectError(res, fx.expected.http_status, fx.expected.error_code)
  },
  'schema-009': async (fx) => excerptRefusal(fx, fx.input.request_body_excerpt),
  'schema-010': async (fx) => {
    const base = structuredClone(loadFixtures('caps-001')[0]?.input.response_body)
    base.limits = fx.input.response_body_excerpt.limits
    expect(capabilitiesValidator.Check(base)).toBe(false)
    await ownCapabilitiesAreValid()
  },
  'schema-011': async (fx) => dataRefRefusal(fx),
  'schema-012': async (fx) => dataRefRefusal(fx),
  'schema-013': async (fx) => {
    expect(errorValidator.Check(fx.input.response_body)).toBe(false)
    const r = await start()
    const res = await r.app.inject({
      method: 'GET',
      url: `/contexts/${encodeURIComponent(`acdp://${AUTHORITY}/00000000-0000-4000-8000-000000000000`)}`,
    })
    expect(errorValidator.Check(res.json())).toBe(true)
    expect((res.json() as { error: object }).error).not.toHaveProperty('details')
  },
  'schema-014': async (fx) => capabilitiesFixture(fx),

  // ── errors ─────────────────────────────────────────────────────────────────────────────────────────────
  'err-001': async (fx) => {
    const r = await start()
    r.store.findContext = async () => {
      throw new Error('persistence layer exploded: SELECT * FROM context WHERE …')
    }
    const res = await r.app.inject({
      method: 'GET',
      url: `/contexts/${encodeURIComponent(`acdp://${AUTHORITY}/00000000-0000-4000-8000-000000000000`)}`,
    })
    expect(res.statusCode).toBe(fx.expected.http_status)
    expect(res.headers['content-type']).toBe(fx.expected.content_type)
    expect(res.json()).toEqual(fx.expected.envelope)
  },

  // ── rate limiting (wire shape) ─────────────────────────────────────────────────────────────────────────
  'rate-001': async (fx) => {
    // The fixture's self-test recipe: a known per-agent rate, one publish more than it, then a publish after the
    // advertised wait succeeds.
    const perMinute = 10
    const r = await start({ config: { limits: { publish_rate_per_minute: perMinute } } })
    const producer = hostedWebProducer(r, fx.expected.response_body.error.details.agent_id)
    const caps = (await r.app.inject({ method: 'GET', url: '/.well-known/acdp.json' })).json()
    expect(caps.limits.max_publish_per_minute).toBe(perMinute)
    for (let i = 0; i < perMinute; i++) {
      const ok = await publish(r.app, signRequest(producer, minimalUnsigned(producer, { title: `n${i}` })))
      expect(ok.statusCode).toBe(201)
    }
    const before = await countRows(r.database)
    const res = await publish(r.app, signRequest(producer, minimalUnsigned(producer, { title: 'over' })))
    expect(res.statusCode).toBe(fx.expected.http_status)
    expect(res.statusCode).not.toBe(503)
    expect(res.headers['content-type']).toBe(fx.expected.headers['Content-Type'])
    expect(errorValidator.Check(res.json())).toBe(true)
    expect(errorOf(res).code).toBe(fx.expected.response_body_constraints.error_code_MUST_be)
    expect(errorOf(res).details?.agent_id).toBe(producer.did)
    const retryAfter = Number(res.headers['retry-after'])
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true)
    expect(await countRows(r.database)).toEqual(before)
    // One second short of the advertised wait the bucket is still empty; at the wait it has a token again.
    r.clock.advance((retryAfter - 1) * 1000)
    const early = await publish(r.app, signRequest(producer, minimalUnsigned(producer, { title: 'early' })))
    expect(early.statusCode).toBe(fx.expected.http_status)
    r.clock.advance(1000)
    const after = await publish(r.app, signRequest(producer, minimalUnsigned(producer, { title: 'after' })))
    expect(after.statusCode).toBe(201)
  },
}

async function dataRefRefusal(fx: Fixture, dataRef: unknown = fx.input.data_ref_under_test): Promise<void> {
  const r = await start()
  const { body } = withDataRef(dataRef)
  const before = await countRows(r.database)
  const res = await publish(r.app, body)
  expectError(res, fx.expected.http_status, fx.expected.error_code)
  expect(await countRows(r.database)).toEqual(before)
}

async function excerptRefusal(fx: Fixture, excerpt: Record<string, unknown>): Promise<void> {
  const r = await start()
  const p = didKeyProducer()
  const res = await publish(r.app, signRequest(p, minimalUnsigned(p, excerpt)))
  expectError(res, fx.expected.http_status ?? fx.expected.status, fx.expected.error_code)
}

async function capabilitiesFixture(fx: Fixture): Promise<void> {
  const accept = (doc: unknown) =>
    capabilitiesValidator.Check(doc) && checkCapabilitiesConsistency(doc as CapabilitiesDocument).length === 0
  const expectedAccept = (fx.expected.outcome ?? fx.expected.consumer_outcome) === 'accept'
  expect(accept(fx.input.response_body)).toBe(expectedAccept)
  for (const variant of fx.reject_variants ?? []) {
    const doc = structuredClone(fx.input.response_body)
    for (const [path, value] of Object.entries(variant.response_body_override as Record<string, unknown>)) {
      const [section, key] = path.split('.') as [string, string]
      doc[section][key] = value
    }
    expect(accept(doc)).toBe(false)
  }
  await ownCapabilitiesAreValid()
}

async function ownCapabilitiesAreValid(): Promise<void> {
  const r = await start()
  const res = await r.app.inject({ method: 'GET', url: '/.well-known/acdp.json' })
  const doc = res.json() as CapabilitiesDocument
  expect(capabilitiesValidator.Check(doc)).toBe(true)
  expect(checkCapabilitiesConsistency(doc)).toEqual([])
  expect(
    Object.keys(doc.limits).every((k) =>
      ['max_payload_bytes', 'max_embedded_bytes', 'idempotency_key_ttl_seconds', 'max_publish_per_minute'].includes(k),
    ),
  ).toBe(true)
  expect(JSON.stringify(doc)).not.toContain('null')
  await r.close()
  registry = undefined
}

/**
 * Search-response fixtures (schema-001/005/006/007): a real search over a context without summary or domain
 * must use `matches` (never `results`) and omit absent members instead of writing null; the fixture's own
 * non-conformant response fails the same checks.
 */
async function searchResponseShape(fx: Fixture): Promise<void> {
  const conforms = (doc: Record<string, unknown>) =>
    Object.keys(doc).every((k) => ['matches', 'next_cursor', 'total_estimate'].includes(k)) &&
    Array.isArray(doc.matches) &&
    !JSON.stringify(doc).includes('null')
  expect(conforms(fx.input.response_body)).toBe(false)
  const r = await start()
  const p = didKeyProducer()
  await publish(r.app, signRequest(p, minimalUnsigned(p, { title: 'test snapshot' })))
  const res = await r.app.inject({ method: 'GET', url: fx.input.endpoint.replace(/^GET /, '') })
  expect(res.statusCode).toBe(200)
  const doc = res.json() as Record<string, unknown>
  expect(conforms(doc)).toBe(true)
  expect((doc.matches as unknown[]).length).toBe(1)
}

describeConformance('registry conformance fixtures', () => {
  it.each(fixtures.map((fx) => [fx.id, fx] as [string, Fixture]))('%s', async (id, fx) => {
    const handler = HANDLERS[id]
    if (!handler) throw new Error(`no handler for fixture ${id} (${fx.file}); add one`)
    await handler(fx)
    ran.add(id)
  })
})

afterAll(() => {
  console.info(`[registry conformance] ran ${ran.size} of ${fixtures.length} fixtures (${FAMILIES.join(' ')})`)
})

// Runs after the fixture table (vitest keeps declaration order): the suite fails if it ran none.
it.runIf(hasConformance)('ran every loaded fixture', () => {
  expect(fixtures.length).toBeGreaterThan(0)
  expect([...ran].sort()).toEqual(fixtures.map((f) => f.id).sort())
})
