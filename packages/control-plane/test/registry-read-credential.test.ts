/**
 * The enrollment's read credential on the wire to the registry, against loopback HTTPS registries (test CA), on
 * every dialect: the context search, the lineage relay and the federation proxy send `Authorization: Bearer
 * <credential>` to that enrollment's registry only, nothing to an enrollment without one, and never along a
 * redirect (same origin or not). A real registry answering to the credential is test/e2e/context-search-credentials.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { createRecordingLogger, type RecordingLogger } from '../../../test/support/recording-logger.js'
import { readCredentialContext } from '../src/registries/enrollment-directory.js'
import { createSecretKeyring, sealSecret } from '../src/core/secret-box.js'
import { type HttpsUpstream, startHttpsUpstream } from './support/https-upstream.js'
import { ADMIN_KEY, bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const CREDENTIAL = 'reader-token.eyJzdWIiOiJkaWQ6a2V5OnJlYWRlciJ9.c2ln'
const UUID = '0b6b1b7e-1d5c-4c3e-9a57-3f1f7f3f2a10'
const CTX = `acdp://reg-a.test/${UUID}`
const ENVELOPE = `{"body":{"ctx_id":"${CTX}","context_type":"note"},"registry_state":{"status":"active"}}`
const LINEAGE = `lin:sha256:${'a'.repeat(64)}`
const EMPTY_PAGE = JSON.stringify({ matches: [], next_cursor: null, total_estimate: 0 })

const user = bearer(USER_KEY)
const admin = bearer(ADMIN_KEY)

describe.each(testDatabaseTargets())('registry read credential on $name', (target) => {
  let upstream: HttpsUpstream
  let t: TestApp
  let recording: RecordingLogger

  beforeAll(async () => {
    upstream = await startHttpsUpstream(['reg-a.test', 'reg-b.test', 'evil.test'])
  })
  afterAll(async () => {
    await upstream.close()
  })
  beforeEach(async () => {
    upstream.seen.length = 0
    recording = createRecordingLogger()
    t = await openTestApp(target, {}, { outbound: upstream.client(), logger: recording.logger })
    await enroll({ authority: 'reg-a.test', baseUrl: upstream.origin('reg-a.test'), readCredential: CREDENTIAL })
    await enroll({ authority: 'reg-b.test', baseUrl: upstream.origin('reg-b.test') })
  })
  afterEach(async () => {
    // Whatever happened in the test, the credential was never written to the log.
    for (const line of recording.lines) expect(inspect(line, { depth: 8 })).not.toContain(CREDENTIAL)
    await t.close()
  })

  async function enroll(body: Record<string, unknown>) {
    const res = await t.app.inject({ method: 'POST', url: '/registries/enroll', headers: admin, payload: body })
    expect(res.statusCode).toBe(200)
    expect(res.body).not.toContain(CREDENTIAL)
    return res
  }
  const get = (path: string) => t.app.inject({ method: 'GET', url: path, headers: user })
  const authorizationOf = (host: string): Array<IncomingHttpHeaders['authorization']> =>
    upstream.seen.filter((s) => s.host === host).map((s) => s.headers.authorization)

  it("sends the credential on the search to its own registry only, and the other registry's request has none", async () => {
    upstream.handle(() => ({ status: 200, headers: { 'content-type': 'application/acdp+json' }, body: EMPTY_PAGE }))
    const res = await get('/contexts/search?q=finding')
    expect(res.statusCode).toBe(200)
    expect(res.json().registries.map((r: { authority: string; outcome: string }) => [r.authority, r.outcome])).toEqual([
      ['reg-a.test', 'ok'],
      ['reg-b.test', 'ok'],
    ])
    expect(res.body).not.toContain(CREDENTIAL)
    expect(authorizationOf('reg-a.test')).toEqual([`Bearer ${CREDENTIAL}`])
    expect(authorizationOf('reg-b.test')).toEqual([undefined])
  })

  it('stops sending it once cleared, and sends a replacement at once (the enrollment cache is invalidated)', async () => {
    upstream.handle(() => ({ status: 200, body: EMPTY_PAGE }))
    await get('/contexts/search?q=x&registry=reg-a.test')
    await enroll({ authority: 'reg-a.test', readCredential: `${CREDENTIAL}2` })
    await get('/contexts/search?q=x&registry=reg-a.test')
    await enroll({ authority: 'reg-a.test', readCredential: null })
    await get('/contexts/search?q=x&registry=reg-a.test')
    expect(authorizationOf('reg-a.test')).toEqual([`Bearer ${CREDENTIAL}`, `Bearer ${CREDENTIAL}2`, undefined])
  })

  it('sends it on the lineage relay (versions and head) and the federation proxy of the inspector', async () => {
    upstream.handle((path) => {
      if (path.startsWith('/lineages/')) return { status: path.endsWith('/current') ? 404 : 200, body: '[]' }
      return { status: 200, headers: { 'content-type': 'application/acdp+json' }, body: ENVELOPE }
    })
    const lineage = await get(`/registries/reg-a.test/lineages/${encodeURIComponent(LINEAGE)}`)
    expect(lineage.statusCode).toBe(200)
    expect(lineage.json()).toEqual({ authority: 'reg-a.test', versions: [], current: null })
    const context = await get(`/contexts/${encodeURIComponent(CTX)}`)
    expect(context.statusCode).toBe(200)
    expect(context.body).toBe(ENVELOPE)
    expect(upstream.seen.map((s) => [s.path.split('/')[1], s.headers.authorization]).sort()).toEqual([
      ['contexts', `Bearer ${CREDENTIAL}`],
      ['lineages', `Bearer ${CREDENTIAL}`],
      ['lineages', `Bearer ${CREDENTIAL}`],
    ])
  })

  it('never carries it along a redirect: dropped on a same-origin hop, and no request at all to another origin', async () => {
    upstream.handle((path, _headers, host) => {
      if (host === 'reg-a.test' && path.startsWith('/contexts/search')) {
        return { status: 302, headers: { location: '/moved/search' } }
      }
      if (host === 'reg-a.test' && path.startsWith('/moved/')) {
        return { status: 302, headers: { location: `${upstream.origin('evil.test')}/steal` } }
      }
      return { status: 200, body: EMPTY_PAGE }
    })
    const res = await get('/contexts/search?q=x&registry=reg-a.test')
    expect(res.statusCode).toBe(200)
    expect(res.json().registries[0]).toMatchObject({
      authority: 'reg-a.test',
      outcome: 'error',
      error: { code: 'FEDERATION_UPSTREAM_ERROR', status: null },
    })
    expect(res.json().registries[0].error.message).toContain('redirect_cross_origin')
    expect(upstream.seen.map((s) => [s.host, s.path.split('?')[0], s.headers.authorization])).toEqual([
      ['reg-a.test', '/contexts/search', `Bearer ${CREDENTIAL}`],
      ['reg-a.test', '/moved/search', undefined],
    ])
    // The refusal is logged (so the log check after each test looks at real lines), without the credential.
    expect(recording.lines.map((line) => line.message)).toContain('registry search upstream failed')
  })

  it("relays the registry's refusal of the credential in its own entry; the other registry still answers", async () => {
    upstream.handle((_path, _headers, host) =>
      host === 'reg-a.test'
        ? {
            status: 403,
            headers: { 'content-type': 'application/acdp+json' },
            body: JSON.stringify({ error: { code: 'not_authorized', message: 'The bearer token is not valid.' } }),
          }
        : { status: 200, body: EMPTY_PAGE },
    )
    const res = await get('/contexts/search?q=x')
    expect(res.statusCode).toBe(200)
    expect(res.json().registries).toEqual([
      {
        authority: 'reg-a.test',
        outcome: 'error',
        matches: [],
        next_cursor: null,
        total_estimate: null,
        error: { code: 'not_authorized', message: 'The bearer token is not valid.', status: 403 },
      },
      { authority: 'reg-b.test', outcome: 'ok', matches: [], next_cursor: null, total_estimate: 0, error: null },
    ])
  })

  it('a credential sealed under a key this server no longer has fails its entry only, never the search', async () => {
    upstream.handle(() => ({ status: 200, body: EMPTY_PAGE }))
    const foreign = createSecretKeyring(new Uint8Array(32).fill(77))
    const sealed = sealSecret(foreign, CREDENTIAL, readCredentialContext('reg-a.test'), (n) => randomBytes(n))
    await t.store.upsertEnrollment({
      authority: 'reg-a.test',
      tenantId: 'default',
      readCredentialSealed: sealed,
      now: 0,
    })
    const res = await get('/contexts/search?q=x')
    expect(res.statusCode).toBe(200)
    expect(res.json().registries).toMatchObject([
      { authority: 'reg-a.test', outcome: 'error', error: { code: 'INTERNAL_ERROR', status: null } },
      { authority: 'reg-b.test', outcome: 'ok' },
    ])
    // Nothing was sent to the registry whose enrollment did not open.
    expect(upstream.seen.map((s) => s.host)).toEqual(['reg-b.test'])
  })

  it('does not send it once the enrollment moves to another tenant (the credential is dropped with the move)', async () => {
    upstream.handle(() => ({ status: 200, body: EMPTY_PAGE }))
    await enroll({ authority: 'reg-a.test', tenantId: 'beta' })
    const res = await t.app.inject({
      method: 'GET',
      url: '/contexts/search?q=x&registry=reg-a.test',
      headers: { ...user, 'x-tenant-id': 'beta' },
    })
    expect(res.statusCode).toBe(200)
    expect(authorizationOf('reg-a.test')).toEqual([undefined])
  })
})
