/**
 * No tenant-binding oracle with auth off (product spec "Authentication" 6): an unauthenticated caller must not
 * learn the `[[auth.tenant_agents]]` bindings from how the registry answers a request that only CLAIMS an agent
 * (a publish's agent_id, a lifecycle event's actor) without proving it. Every refusal that rests on the claimed
 * agent's binding (or on its absence, under `require_tenant`) is decided once its signature verifies, so a mis-signed request answers the same whether or not
 * the agent is bound to the tenant it names; a validly signed request still meets every tenancy rule (an unbound
 * X-Tenant-Id is 403 not_authorized), and refused requests store and charge nothing. SQLite always, PostgreSQL
 * with ACDP_TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto'
import { type LifecycleEvent, signLifecycleEvent } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import type { RegistryConfigInput } from '../src/core/config.js'
import {
  AUTHORITY,
  countRows,
  didKeyProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

const enc = encodeURIComponent
type Answer = { statusCode: number; json(): unknown }
const shape = (res: Answer) => [res.statusCode, (res.json() as { error?: { code: string } }).error?.code]

describe.each(testDatabaseTargets())('tenant-binding oracle with auth off on $name', (target) => {
  const start = useTestRegistry()
  const alice = didKeyProducer() // bound to acme
  const bob = didKeyProducer() // bound to globex
  const carol = didKeyProducer() // unbound

  const startOpen = (extra: RegistryConfigInput = {}) =>
    start({
      openDatabase: target.open,
      config: {
        lifecycle: { enabled: true },
        ...extra,
        auth: {
          // Bindings need require_tenant (config.ts): without a binding or a trusted header there is no tenant.
          require_tenant: true,
          tenant_agents: [
            { agent_did: alice.did, tenant_id: 'acme' },
            { agent_did: bob.did, tenant_id: 'globex' },
          ],
          ...extra.auth,
        },
        limits: { publish_rate_per_minute: 3, ...extra.limits },
      },
    })

  /** A body naming `p` whose signature value was made by another key: only verification can tell. */
  function misSigned(p: Producer): Record<string, unknown> {
    const good = signRequest(p, minimalUnsigned(p, { title: randomUUID() }))
    const other = didKeyProducer()
    const wrongValue = (signRequest(other, minimalUnsigned(other)).signature as { value: string }).value
    return { ...good, signature: { ...(good.signature as object), value: wrongValue } }
  }
  const signed = (p: Producer) => signRequest(p, minimalUnsigned(p, { title: randomUUID() }))

  function event(r: TestRegistry, p: Producer, ctxId: string, type: 'retracted' | 'republished'): LifecycleEvent {
    return signLifecycleEvent(
      {
        event_id: randomUUID(),
        ctx_id: ctxId,
        event_type: type,
        occurred_at: new Date(r.clock.nowMs).toISOString(),
        actor: p.did,
      },
      { algorithm: p.algorithm, keyId: p.keyId, privateKey: p.privateKey },
    )
  }
  /** An event claiming `p` as actor whose signature no longer matches it. */
  const tampered = (r: TestRegistry, p: Producer, ctxId: string) => ({
    ...event(r, p, ctxId, 'retracted'),
    reason: 'tampered after signing',
  })
  const post = (r: TestRegistry, ctxId: string, action: string, body: unknown, headers: Record<string, string> = {}) =>
    r.app.inject({
      method: 'POST',
      url: `/contexts/${enc(ctxId)}/${action}`,
      headers: { 'content-type': 'application/acdp+json', ...headers },
      payload: JSON.stringify(body),
    })

  describe('POST /contexts', () => {
    it('answers a mis-signed publish naming a bound or an unbound agent alike, with or without X-Tenant-Id', async () => {
      const r = await startOpen()
      const before = await countRows(r.database)
      const headerSets: Array<Record<string, string>> = [{ 'x-tenant-id': 'acme' }, { 'x-tenant-id': 'globex' }, {}]
      for (const headers of headerSets) {
        const answers = await Promise.all([alice, bob, carol].map((p) => publish(r.app, misSigned(p), headers)))
        expect(answers.map(shape), JSON.stringify(headers)).toEqual([
          [400, 'invalid_signature'],
          [400, 'invalid_signature'],
          [400, 'invalid_signature'],
        ])
      }
      expect(await countRows(r.database)).toEqual(before)
    })

    it('applies require_tenant once the signer is proven: no tenant for the unbound agent, its own for the bound', async () => {
      const r = await startOpen()
      expect(shape(await publish(r.app, signed(carol)))).toEqual([403, 'not_authorized'])
      const landed = await publish(r.app, signed(alice))
      expect(landed.statusCode).toBe(201)
      expect((await r.store.findContext(landed.json().ctx_id, 'acme'))?.tenantId).toBe('acme')
    })

    it('still refuses a validly signed unbound X-Tenant-Id with 403, storing and charging nothing', async () => {
      const r = await startOpen()
      const before = await countRows(r.database)
      expect(shape(await publish(r.app, signed(carol), { 'x-tenant-id': 'acme' }))).toEqual([403, 'not_authorized'])
      expect(shape(await publish(r.app, signed(alice), { 'x-tenant-id': 'globex' }))).toEqual([403, 'not_authorized'])
      // An Idempotency-Key changes nothing: no record is looked up, stored or answered for a refused request.
      const keyed = await publish(r.app, signed(carol), { 'x-tenant-id': 'acme', 'idempotency-key': 'k-1' })
      expect(shape(keyed)).toEqual([403, 'not_authorized'])
      expect(await countRows(r.database)).toEqual(before)
      // Nothing was charged: alice still has her whole budget of 3.
      for (let i = 0; i < 3; i++) expect((await publish(r.app, signed(alice))).statusCode).toBe(201)
      expect(shape(await publish(r.app, signed(alice)))).toEqual([429, 'rate_limited'])
      // The binding's own tenant, repeated in the header, is accepted.
      r.clock.advance(60_000)
      expect((await publish(r.app, signed(alice), { 'x-tenant-id': 'acme' })).statusCode).toBe(201)
    })
  })

  describe('POST /contexts/{ctx_id}/retract|republish', () => {
    it('answers a mis-signed event alike whoever it claims as actor, with or without X-Tenant-Id', async () => {
      const r = await startOpen()
      const published = await publish(r.app, signed(alice))
      const aliceCtx = published.json().ctx_id as string
      expect((await r.store.findContext(aliceCtx, 'acme'))?.tenantId).toBe('acme')
      const unknown = `acdp://${AUTHORITY}/${randomUUID()}`
      const headerSets: Array<Record<string, string>> = [{}, { 'x-tenant-id': 'acme' }, { 'x-tenant-id': 'globex' }]
      for (const headers of headerSets) {
        for (const ctxId of [aliceCtx, unknown]) {
          const answers = await Promise.all(
            [alice, bob, carol].map((p) => post(r, ctxId, 'retract', { event: tampered(r, p, ctxId) }, headers)),
          )
          expect(answers.map(shape), `${JSON.stringify(headers)} ${ctxId}`).toEqual([
            [404, 'not_found'],
            [404, 'not_found'],
            [404, 'not_found'],
          ])
        }
      }
      expect((await r.store.findContext(aliceCtx, 'acme'))?.lifecycleEventsJson).toBeNull()
    })

    it('serves the proven producer in its bound tenant, refuses a foreign header, and charges only proven events', async () => {
      const r = await startOpen()
      const aliceCtx = (await publish(r.app, signed(alice))).json().ctx_id as string
      r.clock.advance(60_000)
      const send = (p: Producer, action: 'retract' | 'republish', headers: Record<string, string> = {}) =>
        post(r, aliceCtx, action, { event: event(r, p, aliceCtx, `${action}ed` as 'retracted') }, headers)
      // Refused after the proof, charging nothing: a header the binding contradicts; an unbound agent with the
      // tenant's header, and without one (require_tenant).
      expect(shape(await send(alice, 'retract', { 'x-tenant-id': 'globex' }))).toEqual([403, 'not_authorized'])
      expect(shape(await send(carol, 'retract', { 'x-tenant-id': 'acme' }))).toEqual([403, 'not_authorized'])
      expect(shape(await send(carol, 'retract'))).toEqual([403, 'not_authorized'])
      // Another bound agent's valid event: alice's context is not in bob's tenant.
      expect(shape(await send(bob, 'retract'))).toEqual([404, 'not_found'])
      // Alice's budget of 3 is whole: retract (no header), republish (her own tenant repeated), retract...
      const ok = [await send(alice, 'retract'), await send(alice, 'republish', { 'x-tenant-id': 'acme' })]
      ok.push(await send(alice, 'retract'))
      expect(ok.map((a) => a.statusCode)).toEqual([200, 200, 200])
      // ...and spent now.
      expect(shape(await send(alice, 'republish'))).toEqual([429, 'rate_limited'])
    })
  })

  describe('reads with X-Tenant-Id', () => {
    it('refuse an untrusted header alike whether or not the tenant has bound agents (no agent is claimed)', async () => {
      const r = await startOpen()
      const aliceCtx = (await publish(r.app, signed(alice))).json().ctx_id as string
      for (const url of [`/contexts/${enc(aliceCtx)}`, '/contexts/search', `/lineages/${randomUUID()}`]) {
        const answers = await Promise.all(
          ['acme', 'globex', 'nobody-bound'].map((tenant) =>
            r.app.inject({ method: 'GET', url, headers: { 'x-tenant-id': tenant } }),
          ),
        )
        expect(answers.map(shape), url).toEqual([
          [403, 'not_authorized'],
          [403, 'not_authorized'],
          [403, 'not_authorized'],
        ])
      }
    })
  })
})
