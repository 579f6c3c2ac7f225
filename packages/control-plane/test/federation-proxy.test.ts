/**
 * The federation proxy against a loopback HTTPS registry (test CA), on every dialect: each row of the product
 * spec's response table, the ctx_id binding, the policy gate, and SSRF refusals made before any connection.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { OutboundClient } from '@acdp/protocol'
import { hasConformance, loadFixtures, reportMissingConformance } from '../../../test/support/conformance.js'
import { type HttpsUpstream, startHttpsUpstream, type UpstreamAnswer } from './support/https-upstream.js'
import { ADMIN_KEY, bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const UUID = '0b6b1b7e-1d5c-4c3e-9a57-3f1f7f3f2a10'
const CTX = `acdp://reg-a.test/${UUID}`
const ENVELOPE = `{"body":{"ctx_id":"${CTX}","context_type":"note"},"registry_state":{"status":"active"}}`

const user = bearer(USER_KEY)

reportMissingConformance('federation proxy verification')
/** The sig-003 golden did:key context as a registry serves it (conformance fixture, read at test time). */
function goldenEnvelope(): { ctxId: string; authority: string; envelope: Record<string, unknown> } | undefined {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixtures are untyped JSON
  const vector = loadFixtures('sig-003')[0]?.vectors?.[0] as any
  if (vector === undefined) return undefined
  const { note: _note, ...assigned } = vector.registry_assigned
  const body = { ...vector.expected.publish_request_body, ...assigned }
  return {
    ctxId: assigned.ctx_id,
    authority: assigned.origin_registry,
    envelope: { body, registry_state: { status: 'active' } },
  }
}
const admin = bearer(ADMIN_KEY)

describe.each(testDatabaseTargets())('federation proxy on $name', (target) => {
  let upstream: HttpsUpstream
  let client: OutboundClient
  let t: TestApp

  beforeAll(async () => {
    upstream = await startHttpsUpstream(['reg-a.test', 'reg-b.test', 'evil.test'])
    client = upstream.client()
  })
  afterAll(async () => {
    await upstream.close()
  })
  beforeEach(() => {
    upstream.seen.length = 0
    upstream.handle(() => ({ status: 200, headers: { 'content-type': 'application/acdp+json' }, body: ENVELOPE }))
  })
  afterEach(async () => {
    await t?.close()
  })

  async function open(env: Record<string, string> = {}, outbound: OutboundClient = client) {
    t = await openTestApp(target, env, { outbound })
    await enroll('reg-a.test', { baseUrl: upstream.origin('reg-a.test') })
  }
  async function enroll(authority: string, body: Record<string, unknown>) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/registries/enroll',
      headers: admin,
      payload: { authority, ...body },
    })
    expect(res.statusCode).toBe(200)
  }
  const get = (path: string, headers: Record<string, string> = user) =>
    t.app.inject({ method: 'GET', url: path, headers })

  it('relays a 2xx verbatim (status, content-type, body bytes), for a raw or percent-encoded ctxId', async () => {
    await open()
    for (const path of [`/contexts/${CTX}`, `/contexts/${encodeURIComponent(CTX)}`]) {
      const res = await get(path)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('application/acdp+json')
      expect(res.body).toBe(ENVELOPE)
    }
    expect(await t.counter('acdp_federation_requests_total', { outcome: 'relayed_2xx' })).toBe(2)
    expect(upstream.seen.map((s) => [s.host, s.path])).toEqual([
      ['reg-a.test', `/contexts/${encodeURIComponent(CTX)}`],
      ['reg-a.test', `/contexts/${encodeURIComponent(CTX)}`],
    ])
  })

  it.each([404, 403, 410, 400])('relays an upstream %i verbatim', async (status) => {
    await open()
    const body = `{"error":{"code":"not_found","message":"upstream says ${status}"}}`
    upstream.handle(() => ({ status, headers: { 'content-type': 'application/json' }, body }))
    const res = await get(`/contexts/${CTX}`)
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toBe(body)
  })

  it('turns an upstream 429 into 503 FEDERATION_UPSTREAM_RATE_LIMITED without relaying Retry-After', async () => {
    await open()
    upstream.handle(() => ({ status: 429, headers: { 'retry-after': '120' }, body: 'slow down' }))
    const res = await get(`/contexts/${CTX}`)
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({ statusCode: 503, errorCode: 'FEDERATION_UPSTREAM_RATE_LIMITED' })
    expect(res.headers['retry-after']).toBeUndefined()
  })

  it.each([500, 503])('answers 502 for an upstream %i', async (status) => {
    await open()
    upstream.handle(() => ({ status, body: 'internal details that must not leak' }))
    const res = await get(`/contexts/${CTX}`)
    expect(res.statusCode).toBe(502)
    expect(res.json()).toMatchObject({ errorCode: 'FEDERATION_UPSTREAM_ERROR' })
    expect(res.body).not.toContain('internal details')
  })

  it('answers 404 for an unknown authority, another tenant’s enrollment, a disabled one, or one without baseUrl', async () => {
    await open()
    await enroll('reg-b.test', { baseUrl: upstream.origin('reg-b.test'), tenantId: 'acme' })
    await enroll('evil.test', { baseUrl: upstream.origin('evil.test'), enabled: false })
    await enroll('nobase.test', {})
    for (const authority of ['unknown.test', 'reg-b.test', 'evil.test', 'nobase.test']) {
      const res = await get(`/contexts/acdp://${authority}/${UUID}`)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ statusCode: 404, errorCode: 'REGISTRY_NOT_FOUND' })
    }
    expect(await t.counter('acdp_federation_requests_total', { outcome: 'not_found' })).toBe(4)
    // The owning tenant reaches it.
    const acme = await get(`/contexts/acdp://reg-b.test/${UUID}`, { ...user, 'x-tenant-id': 'acme' })
    expect(acme.statusCode).toBe(502) // reg-b serves reg-a's ctx_id here: the binding check refuses it
    expect(acme.json()).toMatchObject({ errorCode: 'CONTEXT_ID_MISMATCH' })
    expect(upstream.seen.map((s) => s.host)).toEqual(['reg-b.test'])
  })

  it.each([
    'reg-a.test/' + UUID,
    `https://reg-a.test/${UUID}`,
    `acdp://reg-a.test/${UUID}/extra`,
    `acdp://reg-a.test/${UUID.toUpperCase()}`,
    `acdp://reg-a.test/not-a-uuid`,
    `acdp://127.0.0.1/${UUID}`,
    `acdp://[::1]/${UUID}`,
    `acdp://user@reg-a.test/${UUID}`,
    `acdp://reg-a.test/${UUID}%2F..%2Fadmin`,
    '%E0%A4%A',
  ])('answers 400 for the malformed ctxId %s', async (ctxId) => {
    await open()
    const res = await get(`/contexts/${ctxId}`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ errorCode: 'VALIDATION_ERROR' })
    expect(upstream.seen).toEqual([])
  })

  it('answers 502 when the upstream misses the deadline, or refuses the connection', async () => {
    await open({ FEDERATION_TIMEOUT_MS: '300' })
    upstream.handle(() => ({ status: 0 }))
    const late = await get(`/contexts/${CTX}`)
    expect(late.statusCode).toBe(502)
    expect(late.json()).toMatchObject({ errorCode: 'FEDERATION_UPSTREAM_ERROR' })
    await enroll('reg-b.test', { baseUrl: 'https://reg-b.test:1' })
    const refused = await get(`/contexts/acdp://reg-b.test/${UUID}`)
    expect(refused.statusCode).toBe(502)
    expect(refused.json()).toMatchObject({ errorCode: 'FEDERATION_UPSTREAM_ERROR' })
  })

  it('answers 502 for a body over 1 MiB', async () => {
    await open()
    upstream.handle(() => ({ status: 200, body: Buffer.alloc(1024 * 1024 + 1, 0x20) }))
    expect((await get(`/contexts/${CTX}`)).statusCode).toBe(502)
  })

  it('follows up to 3 same-authority redirects, and refuses a 4th or a cross-authority one with 502', async () => {
    await open()
    upstream.handle((path): UpstreamAnswer => {
      const hop = Number(/hop=(\d)/.exec(path)?.[1] ?? '0')
      if (hop < 3) return { status: 302, headers: { location: `/moved?hop=${hop + 1}` } }
      return { status: 200, headers: { 'content-type': 'application/acdp+json' }, body: ENVELOPE }
    })
    expect((await get(`/contexts/${CTX}`)).statusCode).toBe(200)
    upstream.handle((path) => {
      const hop = Number(/hop=(\d)/.exec(path)?.[1] ?? '0')
      return { status: 302, headers: { location: `/moved?hop=${hop + 1}` } }
    })
    const tooMany = await get(`/contexts/${CTX}`)
    expect(tooMany.statusCode).toBe(502)
    expect(tooMany.json()).toMatchObject({ errorCode: 'FEDERATION_UPSTREAM_ERROR' })
    upstream.seen.length = 0
    upstream.handle(() => ({ status: 302, headers: { location: `${upstream.origin('evil.test')}/steal` } }))
    expect((await get(`/contexts/${CTX}`)).statusCode).toBe(502)
    expect(upstream.seen.map((s) => s.host)).toEqual(['reg-a.test'])
  })

  it('refuses a 2xx for another ctx_id (CONTEXT_ID_MISMATCH) or without a readable one (CONTEXT_BINDING_UNVERIFIABLE)', async () => {
    await open()
    upstream.handle(() => ({ status: 200, body: ENVELOPE.replace(UUID, '1b6b1b7e-1d5c-4c3e-9a57-3f1f7f3f2a10') }))
    expect((await get(`/contexts/${CTX}`)).json()).toMatchObject({ statusCode: 502, errorCode: 'CONTEXT_ID_MISMATCH' })
    upstream.handle(() => ({ status: 200, body: 'not json' }))
    expect((await get(`/contexts/${CTX}`)).json()).toMatchObject({
      statusCode: 502,
      errorCode: 'CONTEXT_BINDING_UNVERIFIABLE',
    })
  })

  it.each([
    ['loopback', ['127.0.0.1']],
    ['private', ['10.1.2.3']],
    ['link-local metadata', ['169.254.169.254']],
    ['mixed public and private', ['93.184.216.34', '127.0.0.1']],
  ])('refuses a %s address before any connection (502)', async (_name, addresses) => {
    await open({}, upstream.client({ allowLoopback: false, answers: { 'reg-a.test': addresses } }))
    const res = await get(`/contexts/${CTX}`)
    expect(res.statusCode).toBe(502)
    expect(upstream.seen).toEqual([])
  })

  it('refuses a plain http base URL before any connection (502)', async () => {
    t = await openTestApp(target, {}, { outbound: upstream.client({ allowLoopback: false }) })
    await enroll('reg-a.test', { baseUrl: `http://reg-a.test:${upstream.port}` })
    expect((await get(`/contexts/${CTX}`)).statusCode).toBe(502)
    expect(upstream.seen).toEqual([])
  })

  it('applies the context.retrieve policy: 403 { message, code, reason } before forwarding', async () => {
    await open({
      POLICY_RULES: JSON.stringify([
        {
          action: 'context.retrieve',
          effect: 'deny',
          resources: ['acdp://reg-a.test/*'],
          code: 'registry_blocked',
          reason: 'reg-a is quarantined',
        },
      ]),
    })
    const res = await get(`/contexts/${CTX}`)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({
      statusCode: 403,
      errorCode: 'POLICY_DENIED',
      message: 'policy denied',
      code: 'registry_blocked',
      reason: 'reg-a is quarantined',
    })
    expect(upstream.seen).toEqual([])
  })

  it('needs a credential', async () => {
    await open()
    expect((await t.app.inject({ method: 'GET', url: `/contexts/${CTX}` })).statusCode).toBe(401)
  })

  describe.runIf(hasConformance)('with FEDERATION_VERIFY_CONTEXTS', () => {
    const golden = goldenEnvelope()
    const serve = (envelope: unknown) =>
      upstream.handle(() => ({
        status: 200,
        headers: { 'content-type': 'application/acdp+json' },
        body: JSON.stringify(envelope),
      }))
    async function openVerifying(verify: boolean) {
      t = await openTestApp(target, verify ? { FEDERATION_VERIFY_CONTEXTS: 'true' } : {}, { outbound: client })
      await enroll(golden?.authority ?? '', { baseUrl: upstream.origin('reg-a.test') })
    }

    it('relays a context whose producer signature verifies (sig-003 golden), byte for byte', async () => {
      await openVerifying(true)
      serve(golden?.envelope)
      const res = await get(`/contexts/${golden?.ctxId}`)
      expect(res.statusCode).toBe(200)
      expect(res.body).toBe(JSON.stringify(golden?.envelope))
    })

    it('refuses a tampered body with 502 CONTEXT_BINDING_UNVERIFIABLE (relayed when the setting is off)', async () => {
      const envelope = structuredClone(golden?.envelope) as { body: Record<string, unknown> }
      envelope.body['title'] = 'tampered'
      await openVerifying(true)
      serve(envelope)
      expect((await get(`/contexts/${golden?.ctxId}`)).json()).toMatchObject({
        statusCode: 502,
        errorCode: 'CONTEXT_BINDING_UNVERIFIABLE',
      })
      await t.close()
      await openVerifying(false)
      expect((await get(`/contexts/${golden?.ctxId}`)).statusCode).toBe(200)
    })

    it('refuses a receipt that fails RFC-ACDP-0010 §8 against the remote authority (fed-009), never stripping it', async () => {
      expect(loadFixtures('fed-009')).toHaveLength(1)
      await openVerifying(true)
      serve({ ...golden?.envelope, registry_receipt: { receipt_version: 'bogus' } })
      expect((await get(`/contexts/${golden?.ctxId}`)).json()).toMatchObject({
        statusCode: 502,
        errorCode: 'CONTEXT_BINDING_UNVERIFIABLE',
      })
    })
  })

  it('serves over a real socket', async () => {
    await open()
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const res = await fetch(`${address}/contexts/${encodeURIComponent(CTX)}`, { headers: user })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(ENVELOPE)
  })
})
