/**
 * POST /ingest/acdp over HTTP (inject), on every dialect: signatures, idempotency, projections, limits, gating.
 */
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { enroll, eventCount } from './support/enrollment.js'
import { publishedEvent, retrievedEvent, signedDelivery, timestampedHeaders } from './support/signed-delivery.js'
import { bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const ENROLLED_SECRET = 'enrolled-registry-secret-0123456789'

describe.each(testDatabaseTargets())('ingest on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('stores a signed context_published event with its projections and answers 204', async () => {
    t = await openTestApp(target)
    const body = publishedEvent({ run_id: 'run-1', derived_from: ['acdp://reg.example/parent'] })
    const res = await t.app.inject(signedDelivery(body))
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    const [row] = await t.store.listEvents({ tenantId: 'default', order: 'asc', limit: 10 })
    expect(row).toMatchObject({
      type: 'context_published',
      eventId: body.event_id,
      ctxId: body.ctx_id,
      runId: 'run-1',
      registryAuthority: 'reg.example',
      eventTs: Date.parse('2026-01-15T11:59:00.000Z'),
      receivedAt: T0,
      rawPayload: JSON.stringify(body),
    })
    expect(await t.store.getRun('default', 'run-1')).toMatchObject({
      eventsCount: 1,
      contextsCount: 1,
      registries: ['reg.example'],
    })
    expect(await t.store.listRunEdges('default', 'run-1')).toEqual([
      { from: 'acdp://reg.example/parent', to: body.ctx_id },
    ])
    expect((await t.store.getAgent('default', body.agent_id as string))?.contextCount).toBe(1)
    expect(t.published).toHaveLength(1)
    expect(JSON.parse(t.published[0]?.data ?? '{}')).toMatchObject({
      type: 'context_published',
      runId: 'run-1',
      ts: '2026-01-15T11:59:00.000Z',
    })
    expect(await t.counter('acdp_events_ingested_total', { event_type: 'context_published' })).toBe(1)
  })

  it('accepts agent-less event types (context_retrieved, search_executed)', async () => {
    t = await openTestApp(target)
    expect((await t.app.inject(signedDelivery(retrievedEvent()))).statusCode).toBe(204)
    const search = {
      event_id: 'search-1',
      schema_version: '1.0',
      type: 'search_executed',
      registry_authority: 'reg.example',
      query: 'q',
      result_count: 0,
      requester_did: null,
      at: '2026-01-15T11:00:00.000Z',
    }
    expect((await t.app.inject(signedDelivery(search))).statusCode).toBe(204)
    expect(await eventCount(t)).toBe(2)
    expect((await t.store.listAgents({ tenantId: 'default', limit: 10, offset: 0 })).total).toBe(0)
  })

  describe('idempotency', () => {
    it('the same event twice is one row; the duplicate is 204 with no side effect', async () => {
      t = await openTestApp(target)
      const delivery = signedDelivery(publishedEvent({ run_id: 'r' }))
      expect((await t.app.inject(delivery)).statusCode).toBe(204)
      expect((await t.app.inject(delivery)).statusCode).toBe(204)
      expect(await eventCount(t)).toBe(1)
      expect((await t.store.getRun('default', 'r'))?.eventsCount).toBe(1)
      expect(t.published).toHaveLength(1)
      expect(await t.counter('acdp_events_ingested_total', { event_type: 'context_published' })).toBe(1)
    })

    it('a replay with a fresh X-ACDP-Event-Id is still a duplicate: the signed event_id decides', async () => {
      t = await openTestApp(target)
      const body = publishedEvent()
      await t.app.inject(signedDelivery(body, { headers: { 'x-acdp-event-id': 'delivery-1' } }))
      await t.app.inject(signedDelivery(body, { headers: { 'x-acdp-event-id': 'delivery-2' } }))
      expect(await eventCount(t)).toBe(1)
    })

    it('without a body event_id, an unsigned X-ACDP-Event-Id is no idempotency key: the body bytes are', async () => {
      t = await openTestApp(target)
      const first = publishedEvent({ event_id: undefined })
      const second = publishedEvent({ event_id: undefined })
      await t.app.inject(signedDelivery(first, { headers: { 'x-acdp-event-id': 'same' } }))
      await t.app.inject(signedDelivery(second, { headers: { 'x-acdp-event-id': 'same' } }))
      await t.app.inject(signedDelivery(first, { headers: { 'x-acdp-event-id': 'fresh' } }))
      expect(await eventCount(t)).toBe(2)
    })

    it('without any event id, identical bytes dedupe and distinct events do not', async () => {
      t = await openTestApp(target)
      const a = retrievedEvent({ event_id: undefined, at: '2026-01-15T11:00:00.000Z' })
      const b = retrievedEvent({ event_id: undefined, at: '2026-01-15T11:00:01.000Z' })
      await t.app.inject(signedDelivery(a))
      await t.app.inject(signedDelivery(a))
      await t.app.inject(signedDelivery(b))
      expect(await eventCount(t)).toBe(2)
    })
  })

  it('X-Run-Id takes precedence over the payload run_id', async () => {
    t = await openTestApp(target)
    await t.app.inject(
      signedDelivery(publishedEvent({ run_id: 'from-payload' }), { headers: { 'x-run-id': 'from-header' } }),
    )
    expect(await t.store.getRun('default', 'from-header')).toBeDefined()
    expect(await t.store.getRun('default', 'from-payload')).toBeUndefined()
  })

  it('50 concurrent first events of one run give one run with exact counters', async () => {
    t = await openTestApp(target)
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.app.inject(
          signedDelivery(
            i % 5 === 0
              ? retrievedEvent({ run_id: 'burst' })
              : publishedEvent({ run_id: 'burst', scenario_id: 'sc-burst' }),
          ),
        ),
      ),
    )
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(204))
    expect(await t.store.getRun('default', 'burst')).toMatchObject({
      eventsCount: 50,
      contextsCount: 40,
      scenarioId: 'sc-burst',
      registries: ['reg.example'],
    })
    expect((await t.store.listRegistries('default'))[0]?.eventCount).toBe(50)
    expect(t.published).toHaveLength(50)
  })

  describe('signatures', () => {
    it.each([
      ['no signature header', { unsigned: true }],
      ['the wrong secret', { secret: 'some-other-secret-0123456789' }],
      ['a malformed header', { headers: { 'x-acdp-signature': 'sha256=zz' } }],
    ])('refuses %s with 401 INVALID_SIGNATURE', async (_name, options) => {
      t = await openTestApp(target)
      const res = await t.app.inject(signedDelivery(publishedEvent(), options))
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ statusCode: 401, errorCode: 'INVALID_SIGNATURE', message: expect.any(String) })
      expect(await eventCount(t)).toBe(0)
      expect(await t.counter('acdp_ingest_rejected_total', { reason: 'signature' })).toBe(1)
    })

    it('refuses a body modified after signing', async () => {
      t = await openTestApp(target)
      const delivery = signedDelivery(publishedEvent())
      const res = await t.app.inject({
        ...delivery,
        payload: (delivery.payload as string).replace('"version":1', '"version":2'),
      })
      expect(res.statusCode).toBe(401)
    })

    it('accepts the timestamped form inside the window and refuses it outside', async () => {
      t = await openTestApp(target)
      const body = JSON.stringify(publishedEvent())
      const now = Math.floor(T0 / 1000)
      const fresh = await t.app.inject(
        signedDelivery(body, { unsigned: true, headers: timestampedHeaders(body, now - 300) }),
      )
      expect(fresh.statusCode).toBe(204)
      const other = JSON.stringify(publishedEvent())
      const stale = await t.app.inject(signedDelivery(other, { headers: timestampedHeaders(other, now - 301) }))
      expect(stale.statusCode).toBe(401)
    })

    it('requires the timestamped form when INGEST_REQUIRE_TIMESTAMPED_SIGNATURE=true', async () => {
      t = await openTestApp(target, { INGEST_REQUIRE_TIMESTAMPED_SIGNATURE: 'true' })
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(401)
    })

    it('skips verification only when WEBHOOK_SECRET is empty in development', async () => {
      t = await openTestApp(target, { NODE_ENV: 'development', WEBHOOK_SECRET: '' })
      expect((await t.app.inject(signedDelivery(publishedEvent(), { unsigned: true }))).statusCode).toBe(204)
    })
  })

  describe('enrollment and secrets', () => {
    it("an enrolled registry's own secret is required: the global secret is refused", async () => {
      t = await openTestApp(target)
      await enroll(t, 'reg.example', { secret: ENROLLED_SECRET })
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(401)
      const ok = await t.app.inject(signedDelivery(publishedEvent(), { secret: ENROLLED_SECRET }))
      expect(ok.statusCode).toBe(204)
      expect(await eventCount(t, 'acme')).toBe(1)
    })

    it('the authority is compared case-insensitively, so another spelling cannot dodge the enrolled secret', async () => {
      t = await openTestApp(target)
      await enroll(t, 'reg.example', { secret: ENROLLED_SECRET })
      const body = publishedEvent({ registry_authority: 'REG.Example' })
      expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(401)
    })

    it('an unenrolled authority must be signed with WEBHOOK_SECRET, not a secret of its choosing', async () => {
      t = await openTestApp(target)
      await enroll(t, 'reg.example', { secret: ENROLLED_SECRET })
      const body = publishedEvent({ registry_authority: 'other.example', ctx_id: 'acdp://other.example/x' })
      expect((await t.app.inject(signedDelivery(body, { secret: ENROLLED_SECRET }))).statusCode).toBe(401)
      expect((await t.app.inject(signedDelivery(body))).statusCode).toBe(204)
    })

    it('an enrollment without its own secret uses WEBHOOK_SECRET and files events under its tenant', async () => {
      t = await openTestApp(target)
      await enroll(t, 'reg.example', { tenantId: 'beta' })
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(204)
      expect(await eventCount(t, 'beta')).toBe(1)
      expect(await eventCount(t, 'default')).toBe(0)
    })

    it('a disabled enrollment is 403 REGISTRY_DISABLED for a valid signature, 401 for an invalid one', async () => {
      t = await openTestApp(target)
      await enroll(t, 'reg.example', { secret: ENROLLED_SECRET, enabled: false })
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(401)
      const res = await t.app.inject(signedDelivery(publishedEvent(), { secret: ENROLLED_SECRET }))
      expect(res.statusCode).toBe(403)
      expect(res.json()).toMatchObject({ errorCode: 'REGISTRY_DISABLED' })
    })

    it('INGEST_REQUIRE_ENROLLMENT=true refuses unenrolled senders with 403 (401 when unsigned)', async () => {
      // No cache: the enrollment below is written straight to the store, bypassing the invalidation.
      t = await openTestApp(target, { INGEST_REQUIRE_ENROLLMENT: 'true', ENROLLMENT_CACHE_MS: '0' })
      expect((await t.app.inject(signedDelivery(publishedEvent(), { unsigned: true }))).statusCode).toBe(401)
      const res = await t.app.inject(signedDelivery(publishedEvent()))
      expect(res.statusCode).toBe(403)
      expect(res.json()).toMatchObject({ errorCode: 'REGISTRY_NOT_ENROLLED' })
      await enroll(t, 'reg.example')
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(204)
    })
  })

  describe('tenant assertions', () => {
    it.each([
      [
        'an enrolled registry with another tenant',
        { enrolled: true, strict: false, header: 'other' },
        403,
        'TENANT_MISMATCH',
      ],
      ['the reserved tenant', { enrolled: false, strict: false, header: 'default' }, 403, 'TENANT_RESERVED'],
      [
        'any tenant under INGEST_STRICT_TENANT',
        { enrolled: false, strict: true, header: 'acme' },
        403,
        'TENANT_HEADER_UNTRUSTED',
      ],
      ['a malformed tenant id', { enrolled: false, strict: false, header: 'a b' }, 400, 'VALIDATION_ERROR'],
      ['its own tenant (enrolled)', { enrolled: true, strict: false, header: 'acme' }, 204, 'acme'],
      ['a tenant (unenrolled, lax)', { enrolled: false, strict: false, header: 'gamma' }, 204, 'gamma'],
    ])('X-Tenant-Id naming %s', async (_name, setup, status, expected) => {
      t = await openTestApp(target, setup.strict ? { INGEST_STRICT_TENANT: 'true' } : {})
      if (setup.enrolled) await enroll(t, 'reg.example', { tenantId: 'acme' })
      const res = await t.app.inject(signedDelivery(publishedEvent(), { headers: { 'x-tenant-id': setup.header } }))
      expect(res.statusCode).toBe(status)
      if (status === 204) expect(await eventCount(t, expected)).toBe(1)
      else expect(res.json()).toMatchObject({ errorCode: expected })
    })

    it('AUTH_REQUIRE_TENANT=true refuses a delivery that resolves only to default', async () => {
      t = await openTestApp(target, { AUTH_REQUIRE_TENANT: 'true' })
      const res = await t.app.inject(signedDelivery(publishedEvent()))
      expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'TENANT_REQUIRED' })
    })
  })

  describe('payload validation', () => {
    it.each([
      ['malformed JSON', '{"type":', 'INVALID_PAYLOAD'],
      ['a JSON array', '[]', 'INVALID_PAYLOAD'],
      ['a duplicate member name', '{"type":"a","type":"b","registry_authority":"reg.example"}', 'INVALID_PAYLOAD'],
      ['a missing type', JSON.stringify({ registry_authority: 'reg.example' }), 'INVALID_PAYLOAD'],
      ['a missing registry_authority without ctx_id', JSON.stringify({ type: 'context_retrieved' }), 'INVALID_PAYLOAD'],
      [
        'context_published without agent_id',
        JSON.stringify(publishedEvent({ agent_id: undefined })),
        'INVALID_PAYLOAD',
      ],
      ['an agent_id that is not a DID', JSON.stringify(publishedEvent({ agent_id: 'bob' })), 'VALIDATION_ERROR'],
      ['a non-string type', JSON.stringify({ type: 7, registry_authority: 'reg.example' }), 'VALIDATION_ERROR'],
      ['derived_from that is not an array', JSON.stringify(publishedEvent({ derived_from: 'x' })), 'VALIDATION_ERROR'],
      ['a fractional version', JSON.stringify(publishedEvent({ version: 1.5 })), 'VALIDATION_ERROR'],
    ])('refuses %s with 400', async (_name, raw, code) => {
      t = await openTestApp(target)
      const res = await t.app.inject(signedDelivery(raw))
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ statusCode: 400, errorCode: code, message: expect.any(String) })
      expect(await eventCount(t)).toBe(0)
    })

    it('takes the authority from ctx_id when registry_authority is absent', async () => {
      t = await openTestApp(target)
      expect((await t.app.inject(signedDelivery(retrievedEvent({ registry_authority: undefined })))).statusCode).toBe(
        204,
      )
      expect((await t.store.listRegistries('default'))[0]?.authority).toBe('reg.example')
    })

    it('falls back to the arrival time for an unparseable created_at', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(publishedEvent({ created_at: 'yesterday' })))
      expect((await t.store.listEvents({ tenantId: 'default', order: 'asc', limit: 1 }))[0]?.eventTs).toBe(T0)
    })

    it('refuses another media type with 415', async () => {
      t = await openTestApp(target)
      const res = await t.app.inject({ ...signedDelivery(publishedEvent()), headers: { 'content-type': 'text/plain' } })
      expect(res.statusCode).toBe(415)
      expect(res.json()).toMatchObject({ errorCode: 'UNSUPPORTED_MEDIA_TYPE' })
    })
  })

  describe('limits', () => {
    const LIMIT = 2048
    /** A signed body of exactly `size` bytes. */
    function bodyOfSize(size: number): string {
      const base = JSON.stringify(publishedEvent({ pad: '' }))
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`)
    }

    it.each([
      ['limit - 1', LIMIT - 1, 204],
      ['exactly the limit', LIMIT, 204],
      ['limit + 1', LIMIT + 1, 400],
    ])('a body of %s bytes answers %i', async (_name, size, status) => {
      t = await openTestApp(target, { INGEST_MAX_BODY_BYTES: String(LIMIT) })
      const raw = bodyOfSize(size)
      expect(Buffer.byteLength(raw)).toBe(size)
      const res = await t.app.inject(signedDelivery(raw))
      expect(res.statusCode).toBe(status)
      if (status === 400) {
        expect(res.json()).toMatchObject({ errorCode: 'PAYLOAD_TOO_LARGE' })
        expect(await t.counter('acdp_ingest_rejected_total', { reason: 'too_large' })).toBe(1)
      }
    })

    /** `{"type":"x","registry_authority":"reg.example","n":[[…]]}`: the object is depth 1, each array one more. */
    function nested(depth: number): string {
      return `{"type":"search_executed","registry_authority":"reg.example","n":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`
    }

    it.each([
      ['depth limit - 1', 7, 204],
      ['exactly the depth limit', 8, 204],
      ['depth limit + 1', 9, 400],
    ])('a body at %s answers %i', async (_name, depth, status) => {
      t = await openTestApp(target, { INGEST_MAX_JSON_DEPTH: '8' })
      const res = await t.app.inject(signedDelivery(nested(depth)))
      expect(res.statusCode).toBe(status)
      if (status === 400)
        expect(res.json()).toMatchObject({ errorCode: 'INVALID_PAYLOAD', message: expect.stringMatching(/nesting/) })
    })

    it('refuses a body nested far beyond the limit without building it', async () => {
      t = await openTestApp(target)
      const res = await t.app.inject(signedDelivery(`{"a":${'['.repeat(200_000)}`))
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ errorCode: 'INVALID_PAYLOAD' })
    })

    it('answers an oversized declared Content-Length before the body is sent', async () => {
      t = await openTestApp(target, { INGEST_MAX_BODY_BYTES: String(LIMIT) })
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = t.app.server.address() as AddressInfo
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/ingest/acdp',
            headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
          },
          (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
            req.destroy()
          },
        )
        req.on('error', reject)
        // Only the first bytes are ever sent; the answer must not wait for the other ~10 MiB.
        req.write('{"type":"x"')
      })
      expect(status).toBe(400)
    })
  })

  describe('domain-pack gate', () => {
    it.each([
      ['a base protocol type', 'analysis', 204],
      ['a type of an active pack', 'earnings_report', 204],
      ['a type no active pack declares', 'horoscope', 400],
    ])('with DOMAIN_PACKS=finance, %s answers %i', async (_name, contextType, status) => {
      t = await openTestApp(target, { DOMAIN_PACKS: 'finance' })
      const res = await t.app.inject(signedDelivery(publishedEvent({ context_type: contextType })))
      expect(res.statusCode).toBe(status)
      if (status === 400) {
        expect(res.json()).toMatchObject({ errorCode: 'CONTEXT_TYPE_NOT_ACCEPTED' })
        expect(await t.counter('acdp_ingest_rejected_total', { reason: 'pack_gate' })).toBe(1)
      }
    })

    it('accepts every context type when no pack is active', async () => {
      t = await openTestApp(target)
      expect((await t.app.inject(signedDelivery(publishedEvent({ context_type: 'horoscope' })))).statusCode).toBe(204)
    })
  })

  describe('webhook outbox hook', () => {
    it('runs inside the ingest transaction with the stored event', async () => {
      const seen: unknown[] = []
      t = await openTestApp(
        target,
        {},
        {
          webhookOutbox: {
            async enqueue(tx, event) {
              const rows = await tx.selectFrom('context_events').select('id').where('id', '=', event.id).execute()
              seen.push({ visibleInTx: rows.length, type: event.type, tenantId: event.tenantId })
            },
          },
        },
      )
      await t.app.inject(signedDelivery(publishedEvent()))
      expect(seen).toEqual([{ visibleInTx: 1, type: 'context_published', tenantId: 'default' }])
    })

    it('an outbox that says it would write nothing gets no hook: the event is stored and published without it', async () => {
      const asked: string[] = []
      let enqueued = 0
      t = await openTestApp(
        target,
        {},
        {
          webhookOutbox: {
            mayEnqueue(tenantId, eventType) {
              asked.push(`${tenantId} ${eventType}`)
              return false
            },
            async enqueue() {
              enqueued += 1
            },
          },
        },
      )
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(204)
      expect(asked).toEqual(['default context_published'])
      expect(enqueued).toBe(0)
      expect(await eventCount(t)).toBe(1)
      expect(t.published).toHaveLength(1)
    })

    it('a failing outbox aborts the ingest: 500, nothing stored, nothing published, and a retry succeeds', async () => {
      let fail = true
      t = await openTestApp(
        target,
        {},
        {
          webhookOutbox: {
            async enqueue() {
              if (fail) throw new Error('outbox down')
            },
          },
        },
      )
      const delivery = signedDelivery(publishedEvent({ run_id: 'r' }))
      const res = await t.app.inject(delivery)
      expect(res.statusCode).toBe(500)
      expect(res.json()).toEqual({ statusCode: 500, errorCode: 'INTERNAL_ERROR', message: 'internal error' })
      expect(await eventCount(t)).toBe(0)
      expect(await t.store.getRun('default', 'r')).toBeUndefined()
      expect(t.published).toHaveLength(0)
      fail = false
      expect((await t.app.inject(delivery)).statusCode).toBe(204)
      expect(await eventCount(t)).toBe(1)
    })
  })

  it('GET /ingest/health is public', async () => {
    t = await openTestApp(target)
    const res = await t.app.inject({ method: 'GET', url: '/ingest/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true })
  })

  it('ingest does not accept a bearer key instead of the HMAC', async () => {
    t = await openTestApp(target)
    const res = await t.app.inject(signedDelivery(publishedEvent(), { unsigned: true, headers: bearer(USER_KEY) }))
    expect(res.statusCode).toBe(401)
  })
})
