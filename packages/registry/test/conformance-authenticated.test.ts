/**
 * The visibility fixtures of the ret-, pub- and search families driven again with bearer authentication on
 * (issue 10): an authenticated reader outside a context's audience must get exactly the answer a missing ctx_id
 * gets (ret-001: visibility denial is never distinguishable), an authenticated producer still cannot publish a
 * restricted context without an audience (pub-005), and a search answered to an authenticated audience member
 * keeps the search response's wire shape (schema-001/005/006/007) while never listing what the reader may not see.
 * SQLite always, PostgreSQL with ACDP_TEST_DATABASE_URL.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import {
  type Fixture,
  describeConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import type { RegistryConfigInput } from '../src/core/config.js'
import { bearer, login } from './support/bearer-login.js'
import {
  countRows,
  didKeyProducer,
  minimalUnsigned,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

reportMissingConformance('registry conformance (authenticated readers)')

const SECRET = Buffer.from('an HS256 secret for the authenticated conformance run').toString('base64')
const AUTH: RegistryConfigInput = { auth: { enabled: true, jwt_secret: SECRET } }
const enc = encodeURIComponent

function fixture(id: string): Fixture {
  const [fx] = loadFixtures(id)
  if (!fx) throw new Error(`fixture ${id} not found`)
  return fx
}

/** A response as a client sees it, with the requested ctx_id and the per-request id taken out. */
function observable(res: { statusCode: number; headers: Record<string, unknown>; body: string }, ctxId: string) {
  return {
    status: res.statusCode,
    contentType: res.headers['content-type'],
    body: res.body.split(ctxId).join('<ctx_id>').split(enc(ctxId)).join('<ctx_id>'),
  }
}

describeConformance('registry conformance with bearer authentication', () => {
  describe.each(testDatabaseTargets())('on $name', (target) => {
    const start = useTestRegistry()
    const startAuth = () => start({ openDatabase: target.open, config: AUTH })

    async function publishAs(r: TestRegistry, overrides: Record<string, unknown>) {
      const producer = didKeyProducer()
      const res = await publish(
        r.app,
        signRequest(producer, minimalUnsigned(producer, overrides)),
        bearer(await login(r.app, producer)),
      )
      expect(res.statusCode).toBe(201)
      return res.json() as { ctx_id: string; lineage_id: string }
    }

    it('ret-001: a context outside the reader’s audience answers exactly like a missing ctx_id', async () => {
      const fx = fixture('ret-001')
      const r = await startAuth()
      const outsider = await login(r.app, didKeyProducer())
      const member = didKeyProducer()
      const restricted = await publishAs(r, { visibility: 'restricted', audience: [member.did] })
      const privateCtx = await publishAs(r, { visibility: 'private' })
      const read = (ctxId: string) =>
        r.app.inject({ method: 'GET', url: `/contexts/${enc(ctxId)}`, headers: bearer(outsider) })

      const missing = await read(fx.input.ctx_id)
      expect(missing.statusCode).toBe(fx.expected.http_status)
      expect(missing.json().error.code).toBe(fx.expected.error_code)
      for (const hidden of [restricted.ctx_id, privateCtx.ctx_id]) {
        expect(observable(await read(hidden), hidden)).toEqual(observable(missing, fx.input.ctx_id))
      }
      // The audience member is served the restricted context, so the denial above is visibility, not absence.
      const served = await r.app.inject({
        method: 'GET',
        url: `/contexts/${enc(restricted.ctx_id)}`,
        headers: bearer(await login(r.app, member)),
      })
      expect(served.statusCode).toBe(200)
    })

    it('pub-005: an authenticated producer still cannot publish restricted without an audience', async () => {
      const fx = fixture('pub-005')
      const r = await startAuth()
      const producer = didKeyProducer()
      const token = await login(r.app, producer)
      const before = await countRows(r.database)
      const body = signRequest(
        producer,
        minimalUnsigned(producer, { visibility: fx.request.body.visibility, title: fx.request.body.title }),
      )
      expect(body).not.toHaveProperty('audience')
      const res = await publish(r.app, body, bearer(token))
      expect(res.statusCode).toBe(fx.expected.status)
      expect(res.json().error.code).toBe(fx.expected.error_code)
      expect(await countRows(r.database)).toEqual(before)
    })

    it.each(['schema-001', 'schema-005', 'schema-006', 'schema-007'])(
      '%s: search answered to an authenticated audience keeps the wire shape and hides the rest',
      async (id) => {
        const fx = fixture(id)
        const conforms = (doc: Record<string, unknown>) =>
          Object.keys(doc).every((k) => ['matches', 'next_cursor', 'total_estimate'].includes(k)) &&
          Array.isArray(doc.matches) &&
          !JSON.stringify(doc).includes('null')
        expect(conforms(fx.input.response_body)).toBe(false)
        const r = await startAuth()
        const member = didKeyProducer()
        const visible = await publishAs(r, { visibility: 'restricted', audience: [member.did], title: 'test snapshot' })
        await publishAs(r, { visibility: 'private', title: 'test snapshot' })
        const url = String(fx.input.endpoint).replace(/^GET /, '')
        const search = async (token: string) => {
          const res = await r.app.inject({ method: 'GET', url, headers: bearer(token) })
          expect(res.statusCode).toBe(200)
          const doc = res.json() as Record<string, unknown>
          expect(conforms(doc)).toBe(true)
          return (doc.matches as Array<{ ctx_id: string }>).map((m) => m.ctx_id)
        }
        expect(await search(await login(r.app, member))).toEqual([visible.ctx_id])
        expect(await search(await login(r.app, didKeyProducer()))).toEqual([])
      },
    )
  })
})
