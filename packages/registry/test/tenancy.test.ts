/**
 * Tenancy end to end (product spec "Authentication" 6, "Endpoints" /admin/contexts; RFC-ACDP-0008 §6.4): one
 * tenant never reads, searches, lists, proves or learns the existence of another tenant's contexts; X-Tenant-Id is
 * refused from peers that may not assert it (X-Forwarded-For never makes a peer trusted), conflicting tenants and
 * `require_tenant` are refused, and nothing is stored on any refusal. SQLite always, PostgreSQL with
 * ACDP_TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto'
import { type RegistryWebhookEventFields, signLifecycleEvent } from '@acdp/protocol'
import { migrateToLatest, testDatabaseTargets } from '@acdp/storage'
import { REGISTRY_MIGRATION_TABLE, REGISTRY_MIGRATIONS } from '../src/store/migrations/index.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { decodeJwt, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import type { RegistryConfigInput } from '../src/core/config.js'
import type { WebhookDispatcher } from '../src/webhooks/webhooks.js'
import { bearer, login } from './support/bearer-login.js'
import {
  countRows,
  didKeyProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'
import { TRUST_CONFIG } from './support/trust.js'

const SECRET = Buffer.from('an HS256 test secret of at least thirty-two bytes').toString('base64')
const ADMIN = 'tenancy-admin-token'
const enc = encodeURIComponent

describe.each(testDatabaseTargets())('tenancy on $name', (target) => {
  const start = useTestRegistry()
  const alice = didKeyProducer()
  const bob = didKeyProducer()
  const carol = didKeyProducer()

  /**
   * Auth on, alice bound to acme and bob to globex, carol unbound; trust layer and lifecycle on. (A playground
   * build refuses receipts without pinned keys, so the admin listing runs in its own build: `playgroundBuild`.)
   */
  const startBound = (extra: RegistryConfigInput = {}) =>
    start({
      openDatabase: target.open,
      config: {
        ...TRUST_CONFIG,
        lifecycle: { enabled: true },
        ...extra,
        auth: {
          enabled: true,
          jwt_secret: SECRET,
          admin_tokens: [ADMIN],
          require_tenant: true,
          tenant_agents: [
            { agent_did: alice.did, tenant_id: 'acme' },
            { agent_did: bob.did, tenant_id: 'globex' },
          ],
          ...extra.auth,
        },
      },
    })

  /** A playground build (GET /admin/contexts) without the receipt key a playground refuses unless pinned_only. */
  const playgroundBuild: RegistryConfigInput = {
    playground: { enabled: true },
    receipt: { signing_key_seed_b64: '', head_receipts: false },
    log: { enabled: false },
  }

  const publishAs = async (r: TestRegistry, p: Producer, token: string, overrides = {}, headers = {}) => {
    const res = await publish(r.app, signRequest(p, minimalUnsigned(p, overrides)), { ...bearer(token), ...headers })
    return res
  }
  const get = (r: TestRegistry, url: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
    r.app.inject({ method: 'GET', url, headers, ...(remoteAddress ? { remoteAddress } : {}) })

  describe('signed tenant claims and bindings', () => {
    it('puts the bound tenant in the token as a signed claim, and none for an unbound agent', async () => {
      const r = await startBound()
      expect(decodeJwt(await login(r.app, alice)).tenant).toBe('acme')
      expect(decodeJwt(await login(r.app, carol)).tenant).toBeUndefined()
    })

    it('honours a signed tenant claim over the binding, and refuses a token claiming the reserved tenant', async () => {
      const r = await startBound()
      const mint = (tenant: string) =>
        new SignJWT({ tenant })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setIssuer('did:web:registry.example.com')
          .setAudience('registry.example.com')
          .setSubject(carol.did)
          .setJti(randomUUID())
          .setIssuedAt(Math.floor(r.clock.nowMs / 1000))
          .setExpirationTime(Math.floor(r.clock.nowMs / 1000) + 600)
          .sign(Buffer.from(SECRET, 'base64'))
      const claimed = await publishAs(r, carol, await mint('initech'))
      expect(claimed.statusCode).toBe(201)
      expect((await r.store.findContext(claimed.json().ctx_id, 'initech'))?.agentId).toBe(carol.did)
      const before = await countRows(r.database)
      const reserved = await publishAs(r, carol, await mint('default'))
      expect(reserved.statusCode).toBe(403)
      expect(reserved.json().error.code).toBe('not_authorized')
      expect(await countRows(r.database)).toEqual(before)
    })

    it('keeps every read of one tenant away from the other tenant’s contexts', async () => {
      const r = await startBound()
      const [aliceToken, bobToken] = [await login(r.app, alice), await login(r.app, bob)]
      const a1 = await publishAs(r, alice, aliceToken, { title: 'acme plan', tags: ['shared'] })
      expect(a1.statusCode).toBe(201)
      const { ctx_id: aId, lineage_id: aLineage } = a1.json()
      const b1 = await publishAs(r, bob, bobToken, { title: 'globex plan', tags: ['shared'] })
      expect(b1.statusCode).toBe(201)
      const { ctx_id: bId } = b1.json()
      expect((await r.store.findContext(aId, 'acme'))?.tenantId).toBe('acme')
      expect(await r.store.findContext(aId, 'globex')).toBeUndefined()

      // The owner reads its context; the other tenant gets the answer of a context that does not exist.
      expect((await get(r, `/contexts/${enc(aId)}`, bearer(aliceToken))).statusCode).toBe(200)
      const missing = await get(r, `/contexts/${enc(`acdp://registry.example.com/${randomUUID()}`)}`, bearer(bobToken))
      for (const url of [`/contexts/${enc(aId)}`, `/contexts/${enc(aId)}/body`, `/lineages/${enc(aLineage)}/current`]) {
        const res = await get(r, url, bearer(bobToken))
        expect(res.statusCode, url).toBe(404)
        expect(res.json().error.code).toBe(missing.json().error.code)
      }
      expect((await get(r, `/lineages/${enc(aLineage)}`, bearer(bobToken))).json()).toEqual([])
      expect((await get(r, `/lineages/${enc(aLineage)}`, bearer(aliceToken))).json()).toHaveLength(1)

      // Search: only the caller's tenant is matched and counted.
      const bobSearch = (await get(r, '/contexts/search?tags=shared', bearer(bobToken))).json()
      expect(bobSearch.matches.map((m: { ctx_id: string }) => m.ctx_id)).toEqual([bId])
      expect(bobSearch.total_estimate).toBe(1)

      // Log: no proof by ctx_id across tenants, and the leaf contents of another tenant are never echoed.
      const proof = await get(r, `/log/proof?ctx_id=${enc(aId)}`, bearer(bobToken))
      expect(proof.statusCode).toBe(404)
      expect((await get(r, `/log/proof?ctx_id=${enc(aId)}`, bearer(aliceToken))).json().leaf).toBeDefined()
      const aLeaf = (await r.store.findContext(aId, 'acme'))?.leafIndex as number
      expect((await get(r, `/log/proof?leaf_index=${aLeaf}`, bearer(bobToken))).json().leaf).toBeUndefined()
      expect((await get(r, `/log/proof?leaf_index=${aLeaf}`, bearer(aliceToken))).json().leaf).toBeDefined()
      const entries = (await get(r, '/log/entries?start=0&end=2', bearer(bobToken))).json().entries
      expect(entries).toHaveLength(2)
      expect(
        entries
          .filter((e: { leaf?: { ctx_id: string } }) => e.leaf !== undefined)
          .map((e: { leaf: { ctx_id: string } }) => e.leaf.ctx_id),
      ).toEqual([bId])
    })

    it('refuses to supersede or retract another tenant’s context as if it did not exist, storing nothing', async () => {
      const r = await startBound()
      const [aliceToken, bobToken] = [await login(r.app, alice), await login(r.app, bob)]
      const { ctx_id: aId } = (await publishAs(r, alice, aliceToken)).json()
      const before = await countRows(r.database)
      const takeover = await publishAs(r, bob, bobToken, { version: 2, supersedes: aId })
      expect(takeover.statusCode).toBe(400)
      expect(takeover.json().error).toMatchObject({ code: 'superseded_target', details: { reason: 'not_found' } })
      const event = signLifecycleEvent(
        {
          event_id: randomUUID(),
          ctx_id: aId,
          event_type: 'retracted',
          occurred_at: r.clock.now().toISOString(),
          actor: bob.did,
        },
        { algorithm: bob.algorithm, keyId: bob.keyId, privateKey: bob.privateKey },
      )
      const retract = await r.app.inject({
        method: 'POST',
        url: `/contexts/${enc(aId)}/retract`,
        headers: { 'content-type': 'application/json', ...bearer(bobToken) },
        payload: { event },
      })
      expect(retract.statusCode).toBe(404)
      // An admin acting in another tenant does not find it either.
      const adminRetract = await r.app.inject({
        method: 'POST',
        url: `/admin/contexts/${enc(aId)}/retract`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}`, 'x-tenant-id': 'globex' },
        payload: {},
      })
      expect(adminRetract.statusCode).toBe(404)
      expect(await countRows(r.database)).toEqual(before)
      expect((await r.store.findContext(aId, 'acme'))?.lifecycleEventsJson).toBeNull()
    })

    it('refuses an X-Tenant-Id that contradicts the claim or binding, even from a trusted peer', async () => {
      const r = await startBound({ auth: { tenant_header_trust: 'any_peer' } })
      const aliceToken = await login(r.app, alice)
      const before = await countRows(r.database)
      const res = await publishAs(r, alice, aliceToken, {}, { 'x-tenant-id': 'globex' })
      expect(res.statusCode).toBe(403)
      expect(res.json().error.code).toBe('not_authorized')
      expect(await countRows(r.database)).toEqual(before)
      expect((await get(r, '/contexts/search', { ...bearer(aliceToken), 'x-tenant-id': 'globex' })).statusCode).toBe(
        403,
      )
      // Repeating the authenticated tenant is fine.
      expect((await publishAs(r, alice, aliceToken, {}, { 'x-tenant-id': 'acme' })).statusCode).toBe(201)
    })

    it('with require_tenant, refuses requests that resolve to no tenant and stores nothing', async () => {
      const r = await startBound()
      const carolToken = await login(r.app, carol)
      const before = await countRows(r.database)
      const res = await publishAs(r, carol, carolToken)
      expect(res.statusCode).toBe(403)
      expect(res.json().error.code).toBe('not_authorized')
      expect(await countRows(r.database)).toEqual(before)
      expect((await get(r, '/contexts/search')).statusCode).toBe(403)
      expect((await get(r, `/contexts/${enc(`acdp://registry.example.com/${randomUUID()}`)}`)).statusCode).toBe(403)
    })
  })

  describe('X-Tenant-Id trust', () => {
    const startOpen = (auth: RegistryConfigInput['auth'] = {}, rateLimit: RegistryConfigInput['rate_limit'] = {}) =>
      start({ openDatabase: target.open, config: { auth, rate_limit: rateLimit } })

    it('refuses X-Tenant-Id with 403 under the default trust (none), even with auth off, and stores nothing', async () => {
      const r = await startOpen()
      const before = await countRows(r.database)
      const res = await publish(r.app, signRequest(carol, minimalUnsigned(carol)), { 'x-tenant-id': 'acme' })
      expect(res.statusCode).toBe(403)
      expect(res.json().error.code).toBe('not_authorized')
      expect(await countRows(r.database)).toEqual(before)
      for (const url of ['/contexts/search', `/contexts/${enc(`acdp://registry.example.com/${randomUUID()}`)}`]) {
        expect((await get(r, url, { 'x-tenant-id': 'acme' })).statusCode, url).toBe(403)
      }
      // Without the header the registry is the single-tenant registry it always was.
      expect((await publish(r.app, signRequest(carol, minimalUnsigned(carol)))).statusCode).toBe(201)
    })

    it('trusts X-Tenant-Id only from a listed proxy peer; X-Forwarded-For never makes a peer trusted', async () => {
      const r = await startOpen({ tenant_header_trust: 'trusted_proxies' }, { trusted_proxies: ['10.1.2.3'] })
      const send = (remoteAddress: string, headers: Record<string, string>) =>
        r.app.inject({
          method: 'POST',
          url: '/contexts',
          remoteAddress,
          headers: { 'content-type': 'application/acdp+json', ...headers },
          payload: JSON.stringify(signRequest(carol, minimalUnsigned(carol, { title: randomUUID() }))),
        })
      const before = await countRows(r.database)
      const spoofed = await send('192.0.2.9', { 'x-tenant-id': 'acme', 'x-forwarded-for': '10.1.2.3' })
      expect(spoofed.statusCode).toBe(403)
      expect(await countRows(r.database)).toEqual(before)

      const proxied = await send('10.1.2.3', { 'x-tenant-id': 'acme', 'x-forwarded-for': '192.0.2.9' })
      expect(proxied.statusCode).toBe(201)
      const { ctx_id } = proxied.json()
      expect((await r.store.findContext(ctx_id, 'acme'))?.tenantId).toBe('acme')
      // Read back through the proxy in the same tenant; the default tenant does not see it.
      expect((await get(r, `/contexts/${enc(ctx_id)}`, { 'x-tenant-id': 'acme' }, '10.1.2.3')).statusCode).toBe(200)
      expect((await get(r, `/contexts/${enc(ctx_id)}`, {}, '10.1.2.3')).statusCode).toBe(404)
      expect((await get(r, `/contexts/${enc(ctx_id)}`, { 'x-tenant-id': 'globex' }, '10.1.2.3')).statusCode).toBe(404)

      // A trusted header must still be one well-formed, non-reserved tenant id.
      for (const bad of ['default', 'a/b', '']) {
        const res = await send('10.1.2.3', { 'x-tenant-id': bad })
        expect(res.statusCode, bad).toBe(400)
        expect(res.json().error.code).toBe('schema_violation')
      }
    })

    it('refuses a spoofed X-Forwarded-For over a real socket', async () => {
      const r = await startOpen({ tenant_header_trust: 'trusted_proxies' }, { trusted_proxies: ['10.1.2.3'] })
      await r.app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = r.app.server.address() as { port: number }
      const before = await countRows(r.database)
      const res = await fetch(`http://127.0.0.1:${port}/contexts`, {
        method: 'POST',
        headers: {
          'content-type': 'application/acdp+json',
          'x-tenant-id': 'acme',
          'x-forwarded-for': '10.1.2.3',
        },
        body: JSON.stringify(signRequest(carol, minimalUnsigned(carol))),
      })
      expect(res.status).toBe(403)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_authorized')
      expect(await countRows(r.database)).toEqual(before)
    })

    it('scopes Idempotency-Key records by tenant: the same agent and key in two tenants are two publishes', async () => {
      const r = await startOpen({ tenant_header_trust: 'any_peer' })
      const body = signRequest(carol, minimalUnsigned(carol))
      const inAcme = await publish(r.app, body, { 'idempotency-key': 'k-1', 'x-tenant-id': 'acme' })
      const inGlobex = await publish(r.app, body, { 'idempotency-key': 'k-1', 'x-tenant-id': 'globex' })
      expect([inAcme.statusCode, inGlobex.statusCode]).toEqual([201, 201])
      expect(inGlobex.json().ctx_id).not.toBe(inAcme.json().ctx_id)
      const replay = await publish(r.app, body, { 'idempotency-key': 'k-1', 'x-tenant-id': 'acme' })
      expect(replay.statusCode).toBe(200)
      expect(replay.json().ctx_id).toBe(inAcme.json().ctx_id)
      expect(await r.store.findIdempotencyRecord(carol.did, 'k-1', r.clock.nowMs, 'default')).toBeUndefined()
    })

    it('binds search cursors to the tenant', async () => {
      const r = await startOpen({ tenant_header_trust: 'any_peer' })
      for (const title of ['one', 'two']) {
        await publish(r.app, signRequest(carol, minimalUnsigned(carol, { title })), { 'x-tenant-id': 'acme' })
      }
      const first = (await get(r, '/contexts/search?limit=1', { 'x-tenant-id': 'acme' })).json()
      expect(first.next_cursor).toEqual(expect.any(String))
      const cross = await get(r, `/contexts/search?limit=1&cursor=${enc(first.next_cursor)}`, {
        'x-tenant-id': 'globex',
      })
      expect(cross.statusCode).toBe(400)
      expect(cross.json().error.code).toBe('invalid_cursor')
      const next = await get(r, `/contexts/search?limit=1&cursor=${enc(first.next_cursor)}`, { 'x-tenant-id': 'acme' })
      expect(next.json().matches).toHaveLength(1)
    })

    it('sends X-Tenant-Id with the webhook events of a tenant’s contexts, and none for the default tenant', async () => {
      const sent: Array<{ event: RegistryWebhookEventFields; tenantId: string | undefined }> = []
      const webhooks: WebhookDispatcher = {
        emit(event, options) {
          sent.push({ event, tenantId: options?.tenantId })
          return 'event-id'
        },
        stats: () => ({ enabled: true, queue_in_flight: 0, queue_capacity: 1 }),
        close: async () => {},
      }
      const r = await start({
        openDatabase: target.open,
        config: { auth: { tenant_header_trust: 'any_peer' } },
        deps: { webhooks },
      })
      const { ctx_id } = (
        await publish(r.app, signRequest(carol, minimalUnsigned(carol)), { 'x-tenant-id': 'acme' })
      ).json()
      await get(r, `/contexts/${enc(ctx_id)}`, { 'x-tenant-id': 'acme' })
      await publish(r.app, signRequest(carol, minimalUnsigned(carol, { title: 'plain' })))
      expect(sent.map((s) => [s.event.type, s.tenantId])).toEqual([
        ['context_published', 'acme'],
        ['context_retrieved', 'acme'],
        ['context_published', undefined],
      ])
    })
  })

  describe('GET /admin/contexts', () => {
    it('lists only the public contexts of the admin’s X-Tenant-Id, in keyset pages bound to the tenant', async () => {
      const r = await startBound(playgroundBuild)
      const [aliceToken, bobToken] = [await login(r.app, alice), await login(r.app, bob)]
      const published: string[] = []
      for (const title of ['a', 'b', 'c']) {
        const res = await publishAs(r, alice, aliceToken, { title })
        published.push(res.json().ctx_id)
        r.clock.advance(1000)
      }
      await publishAs(r, alice, aliceToken, { visibility: 'restricted', audience: [bob.did], title: 'restricted' })
      await publishAs(r, alice, aliceToken, { visibility: 'private', title: 'private' })
      await publishAs(r, bob, bobToken, { title: 'globex public' })

      const admin = (query: string, tenant?: string) =>
        get(r, `/admin/contexts${query}`, {
          authorization: `Bearer ${ADMIN}`,
          ...(tenant === undefined ? {} : { 'x-tenant-id': tenant }),
        })
      // Header trust is `none`, yet the admin's X-Tenant-Id is honoured.
      const page1 = await admin('?limit=2', 'acme')
      expect(page1.statusCode).toBe(200)
      expect(page1.headers['cache-control']).toBe('no-store')
      const body1 = page1.json()
      expect(body1.tenant_id).toBe('acme')
      expect(body1.contexts.map((c: { ctx_id: string }) => c.ctx_id)).toEqual([published[2], published[1]])
      expect(body1.contexts[0]).toMatchObject({ visibility: 'public', status: 'active', agent_id: alice.did })
      const page2 = (await admin(`?limit=2&cursor=${enc(body1.next_cursor)}`, 'acme')).json()
      expect(page2.contexts.map((c: { ctx_id: string }) => c.ctx_id)).toEqual([published[0]])
      expect(page2.next_cursor).toBeUndefined()

      const globex = (await admin('', 'globex')).json()
      expect(globex.contexts.map((c: { title: string }) => c.title)).toEqual(['globex public'])
      const cross = await admin(`?limit=2&cursor=${enc(body1.next_cursor)}`, 'globex')
      expect(cross.statusCode).toBe(400)
      expect(cross.json().error.code).toBe('invalid_cursor')
      // require_tenant holds for admins too, and a non-admin bearer is refused.
      expect((await admin('')).statusCode).toBe(403)
      const asAgent = await get(r, '/admin/contexts', { ...bearer(aliceToken), 'x-tenant-id': 'acme' })
      expect(asAgent.statusCode).toBe(403)
      expect((await admin('?limit=0', 'acme')).json().error.code).toBe('schema_violation')
    })

    it('is not mounted outside playground builds', async () => {
      const r = await startBound({ playground: { enabled: false } })
      const res = await get(r, '/admin/contexts', { authorization: `Bearer ${ADMIN}`, 'x-tenant-id': 'acme' })
      expect(res.statusCode).toBe(404)
    })
  })

  it('migration 0005 keeps every stored context and idempotency record, in the default tenant', async () => {
    const database = await target.open()
    try {
      const before0005 = REGISTRY_MIGRATIONS.filter((m) => m.name < '0005')
      await migrateToLatest(database, [...before0005], { table: REGISTRY_MIGRATION_TABLE })
      const ctxId = `acdp://registry.example.com/${randomUUID()}`
      await database.db
        .insertInto('context')
        .values({
          ctx_id: ctxId,
          lineage_id: `lin:sha256:${'a'.repeat(64)}`,
          version: 1,
          agent_id: carol.did,
          context_type: 'data_snapshot',
          visibility: 'public',
          audience_json: '[]',
          title: 'before tenancy',
          search_text: 'before tenancy',
          content_hash: `sha256:${'b'.repeat(64)}`,
          created_at: '2026-01-01T00:00:00.000Z',
          created_at_ms: 1_767_225_600_000,
          body_text: '{"title":"before tenancy"}',
        })
        .execute()
      await database.db
        .insertInto('idempotency_record')
        .values({
          agent_id: carol.did,
          idempotency_key: 'k-old',
          content_hash: `sha256:${'b'.repeat(64)}`,
          signature_algorithm: 'ed25519',
          signature_key_id: carol.keyId,
          signature_value: 'sig',
          ctx_id: ctxId,
          response_json: '{}',
          created_at_ms: 1000,
          expires_at_ms: 10_000,
        })
        .execute()
      expect((await migrateRegistryDatabase(database)).applied).toEqual(
        REGISTRY_MIGRATIONS.filter((m) => m.name >= '0005').map((m) => m.name),
      )
      const store = createKyselyStore(database)
      expect(await store.findContext(ctxId, 'default')).toMatchObject({
        ctxId,
        tenantId: 'default',
        agentId: carol.did,
      })
      expect((await store.findContext(ctxId, 'default'))?.bodyText).toBe('{"title":"before tenancy"}')
      expect(await store.findContext(ctxId, 'acme')).toBeUndefined()
      expect(await store.findIdempotencyRecord(carol.did, 'k-old', 5000, 'default')).toMatchObject({
        ctxId,
        tenantId: 'default',
      })
      expect(await store.findIdempotencyRecord(carol.did, 'k-old', 5000, 'acme')).toBeUndefined()
    } finally {
      await database.close()
    }
  })
})
