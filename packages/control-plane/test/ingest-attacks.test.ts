/**
 * Black-box attacks on POST /ingest/acdp that must stay closed (issue 19 §1 and §2), on every dialect:
 * - a registry announcing lifecycle (or any ctx_id-carrying) events for contexts of another registry;
 * - one captured delivery replayed into other tenants or runs, under fresh unsigned ids, or long after capture.
 * Each attack is followed by a check of what is stored, so a refusal that still wrote something fails.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { enroll, eventCount } from './support/enrollment.js'
import {
  boundHeaders,
  publishedEvent,
  retrievedEvent,
  signedDelivery,
  timestampedHeaders,
} from './support/signed-delivery.js'
import { openTestApp, T0, type TestApp } from './support/test-app.js'

const SECRET_A = 'registry-a-own-secret-0123456789'
const SECRET_B = 'registry-b-own-secret-0123456789'
const NOW_S = Math.floor(T0 / 1000)
/** The production defaults, nothing opted out (test-app's BASE_ENV supplies the keys production requires). */
const PRODUCTION = { NODE_ENV: 'production' }

async function isRetracted(t: TestApp, tenantId: string, runId: string): Promise<boolean | undefined> {
  return (await t.store.listRunPublications(tenantId, runId))[0]?.retracted
}

function lifecycleEvent(type: string, ctxId: unknown, authority: string): Record<string, unknown> {
  return {
    event_id: `lifecycle-${type}-${authority}-${String(ctxId).slice(-12)}`,
    schema_version: '1.0',
    type,
    registry_authority: authority,
    ctx_id: ctxId,
    lineage_id: `lin:sha256:${'a'.repeat(64)}`,
    actor: 'did:web:attacker.example',
    lifecycle_event_id: 'lc-1',
    at: '2026-01-15T11:59:30.000Z',
  }
}

describe.each(testDatabaseTargets())('ingest attacks on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  describe('§1 lifecycle binding: a registry changes the state of its own contexts only', () => {
    /** Registry A (reg.example) publishes into run r of tenant acme; registry B is enrolled in acme too. */
    async function withPublication(retractFirst: boolean) {
      t = await openTestApp(target)
      await enroll(t, 'reg.example', { tenantId: 'acme', secret: SECRET_A })
      await enroll(t, 'other.example', { tenantId: 'acme', secret: SECRET_B })
      const published = publishedEvent({ run_id: 'r' })
      expect((await t.app.inject(signedDelivery(published, { secret: SECRET_A }))).statusCode).toBe(204)
      if (retractFirst) {
        const own = lifecycleEvent('context_retracted', published.ctx_id, 'reg.example')
        expect((await t.app.inject(signedDelivery(own, { secret: SECRET_A }))).statusCode).toBe(204)
      }
      return published
    }

    it.each([
      ['context_retracted', false],
      ['context_republished', true],
    ])('%s for a context of A sent by enrolled registry B is 403 and changes nothing', async (type, retractFirst) => {
      const published = await withPublication(retractFirst)
      const before = await eventCount(t, 'acme')
      const attack = lifecycleEvent(type, published.ctx_id, 'other.example')
      const res = await t.app.inject(signedDelivery(attack, { secret: SECRET_B }))
      expect(res.statusCode).toBe(403)
      expect(res.json()).toEqual({ statusCode: 403, errorCode: 'AUTHORITY_MISMATCH', message: expect.any(String) })
      expect(await isRetracted(t, 'acme', 'r')).toBe(retractFirst)
      expect(await eventCount(t, 'acme')).toBe(before)
      expect(await t.counter('acdp_ingest_rejected_total', { reason: 'authority_mismatch' })).toBe(1)
    })

    it.each(['context_retracted', 'context_republished'])(
      '%s for a context of A sent by an unenrolled sender with the global secret is 403',
      async (type) => {
        t = await openTestApp(target)
        const published = publishedEvent({ run_id: 'r' })
        expect((await t.app.inject(signedDelivery(published))).statusCode).toBe(204)
        const attack = lifecycleEvent(type, published.ctx_id, 'attacker.example')
        const res = await t.app.inject(signedDelivery(attack))
        expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'AUTHORITY_MISMATCH' })
        expect(await isRetracted(t, 'default', 'r')).toBe(false)
        expect(await eventCount(t, 'default')).toBe(1)
        expect(await t.counter('acdp_ingest_rejected_total', { reason: 'authority_mismatch' })).toBe(1)
      },
    )

    it('a context_published of a ctx_id of A announced by B is 403 AUTHORITY_MISMATCH', async () => {
      await withPublication(false)
      const attack = publishedEvent({
        registry_authority: 'other.example',
        ctx_id: 'acdp://reg.example/x',
        run_id: 'r',
      })
      const res = await t.app.inject(signedDelivery(attack, { secret: SECRET_B }))
      expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'AUTHORITY_MISMATCH' })
      expect(await t.store.listRunPublications('acme', 'r')).toHaveLength(1)
    })

    it('a context_retrieved of A counted into a run by B is 403 as well (every ctx_id-carrying event is bound)', async () => {
      await withPublication(false)
      const attack = retrievedEvent({ registry_authority: 'other.example', run_id: 'r' })
      const res = await t.app.inject(signedDelivery(attack, { secret: SECRET_B }))
      expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'AUTHORITY_MISMATCH' })
      expect((await t.store.getRun('acme', 'r'))?.eventsCount).toBe(1)
    })

    it("the owner's own retraction still applies (the binding refuses only other authorities)", async () => {
      await withPublication(true)
      expect(await isRetracted(t, 'acme', 'r')).toBe(true)
    })

    it('an unsigned mismatching event is still 401 first: the binding is not an oracle for unsigned callers', async () => {
      const published = await withPublication(false)
      const attack = lifecycleEvent('context_retracted', published.ctx_id, 'other.example')
      expect((await t.app.inject(signedDelivery(attack, { unsigned: true }))).statusCode).toBe(401)
      expect(await t.counter('acdp_ingest_rejected_total', { reason: 'authority_mismatch' })).toBe(0)
    })
  })

  describe('§2 replay of one captured delivery (production defaults)', () => {
    const send = (raw: string, headers: Record<string, string>) =>
      t.app.inject(signedDelivery(raw, { unsigned: true, headers }))
    /** What a replayer can make of a captured V2 delivery without the secret: drop V2, keep the older forms. */
    const stripV2 = (headers: Record<string, string>) => {
      const { 'x-acdp-signature-v2': _v2, ...rest } = headers
      return rest
    }
    const withoutTenant = (headers: Record<string, string>) => {
      const { 'x-tenant-id': _tenant, ...rest } = headers
      return rest
    }
    const counts = async (...tenants: string[]) => Promise.all(tenants.map((tenant) => eventCount(t, tenant)))

    it('a V2 delivery for tenant a, replayed with X-Tenant-Id b and with none, is stored once, in a', async () => {
      t = await openTestApp(target, PRODUCTION)
      const raw = JSON.stringify(publishedEvent({ run_id: 'r' }))
      const captured = boundHeaders(raw, NOW_S, { tenantId: 'a', eventId: 'evt-1' })
      expect((await send(raw, captured)).statusCode).toBe(204)
      expect((await send(raw, { ...captured, 'x-tenant-id': 'b' })).statusCode).toBe(401)
      expect((await send(raw, withoutTenant(captured))).statusCode).toBe(401)
      expect((await send(raw, captured)).statusCode).toBe(204)
      expect(await counts('a', 'b', 'default')).toEqual([1, 0, 0])
    })

    it('the same replays stripped down to the timestamped signature are refused: the tenant must be signed', async () => {
      t = await openTestApp(target, PRODUCTION)
      const raw = JSON.stringify(retrievedEvent({ event_id: undefined }))
      const captured = boundHeaders(raw, NOW_S, { tenantId: 'a', runId: 'r', eventId: 'e' })
      expect((await send(raw, captured)).statusCode).toBe(204)
      for (const headers of [
        stripV2(captured),
        { ...stripV2(captured), 'x-tenant-id': 'b' },
        withoutTenant(stripV2(captured)),
      ]) {
        const res = await send(raw, headers)
        expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'TENANT_HEADER_UNTRUSTED' })
      }
      expect(await counts('a', 'b', 'default')).toEqual([1, 0, 0])
      expect(await t.counter('acdp_ingest_rejected_total', { reason: 'tenant' })).toBe(3)
    })

    it('an enrolled registry: fresh unsigned X-ACDP-Event-Id / X-Run-Id on a body without event_id store nothing new', async () => {
      t = await openTestApp(target, { ...PRODUCTION, ENROLLMENT_CACHE_MS: '0' })
      await enroll(t, 'reg.example', { tenantId: 'acme', secret: SECRET_A })
      const raw = JSON.stringify(retrievedEvent({ event_id: undefined }))
      const captured = boundHeaders(raw, NOW_S, { tenantId: 'acme', runId: 'r', eventId: 'e' }, SECRET_A)
      expect((await send(raw, captured)).statusCode).toBe(204)
      const variants: Record<string, string>[] = [
        { 'x-acdp-event-id': 'fresh-1' },
        { 'x-run-id': 'run-x' },
        { 'x-run-id': 'run-y', 'x-acdp-event-id': 'fresh-2', 'x-tenant-id': 'acme' },
      ]
      for (const extra of variants) {
        expect((await send(raw, { ...stripV2(withoutTenant(captured)), ...extra })).statusCode).toBe(204)
      }
      const res = await send(raw, { ...stripV2(captured), 'x-tenant-id': 'b' })
      expect(res.json()).toMatchObject({ statusCode: 403, errorCode: 'TENANT_MISMATCH' })
      expect(await counts('acme', 'b', 'default')).toEqual([1, 0, 0])
      expect((await t.store.getRun('acme', 'r'))?.eventsCount).toBe(1)
      expect(await t.store.getRun('acme', 'run-x')).toBeUndefined()
    })

    it('a V2-signed X-Run-Id is honoured; a second V2 id over the same bytes is still a duplicate', async () => {
      t = await openTestApp(target, PRODUCTION)
      const raw = JSON.stringify(retrievedEvent({ event_id: undefined }))
      for (const eventId of ['d-1', 'd-2']) {
        expect((await send(raw, boundHeaders(raw, NOW_S, { runId: 'signed-run', eventId }))).statusCode).toBe(204)
      }
      expect(await eventCount(t, 'default')).toBe(1)
      expect((await t.store.getRun('default', 'signed-run'))?.eventsCount).toBe(1)
    })

    it('a publication is stored once: the same ctx_id announced again under a fresh event_id is a duplicate', async () => {
      t = await openTestApp(target, PRODUCTION)
      const first = publishedEvent()
      for (const body of [first, { ...first, event_id: '00000000-0000-4000-8000-00000000ffff' }]) {
        const raw = JSON.stringify(body)
        const headers = boundHeaders(raw, NOW_S, {})
        expect((await t.app.inject(signedDelivery(raw, { unsigned: true, headers }))).statusCode).toBe(204)
      }
      expect(await eventCount(t, 'default')).toBe(1)
    })

    it('refuses a delivery signed outside the window, and one with no timestamp at all', async () => {
      t = await openTestApp(target, PRODUCTION)
      const raw = JSON.stringify(publishedEvent())
      expect((await send(raw, boundHeaders(raw, NOW_S - 301, {}))).statusCode).toBe(401)
      expect(
        (await t.app.inject(signedDelivery(raw, { headers: timestampedHeaders(raw, NOW_S - 301) }))).statusCode,
      ).toBe(401)
      const untimed = await t.app.inject(signedDelivery(raw))
      expect(untimed.json()).toMatchObject({ statusCode: 401, errorCode: 'INVALID_SIGNATURE' })
      expect(await eventCount(t, 'default')).toBe(0)
      expect(await t.counter('acdp_ingest_rejected_total', { reason: 'signature' })).toBe(3)
    })

    it('an enrolled registry files into its enrollment tenant whatever header a replay carries', async () => {
      t = await openTestApp(target, { ...PRODUCTION, ENROLLMENT_CACHE_MS: '0' })
      await enroll(t, 'reg.example', { tenantId: 'acme', secret: SECRET_A })
      const raw = JSON.stringify(publishedEvent())
      const headers = boundHeaders(raw, NOW_S, { tenantId: 'acme', eventId: 'e' }, SECRET_A)
      expect((await send(raw, headers)).statusCode).toBe(204)
      expect((await send(raw, { ...headers, 'x-tenant-id': 'b' })).statusCode).toBe(401)
      expect(await counts('acme', 'b')).toEqual([1, 0])
    })
  })

  describe('§2 run notifications', () => {
    it('a V2-signed completion of run r1 replayed onto /runs/r2/complete is refused: the path run is signed', async () => {
      t = await openTestApp(target, PRODUCTION)
      const raw = JSON.stringify({ status: 'completed' })
      const headers = boundHeaders(raw, NOW_S, { runId: 'r1' })
      const complete = (runId: string) =>
        t.app.inject(signedDelivery(raw, { unsigned: true, headers, url: `/runs/${runId}/complete` }))
      expect((await complete('r1')).statusCode).toBe(204)
      expect((await complete('r2')).statusCode).toBe(401)
      expect((await t.store.getRun('default', 'r1'))?.status).toBe('completed')
      expect(await t.store.getRun('default', 'r2')).toBeUndefined()
    })
  })

  describe('§2 the plain scheme where the operator opts in', () => {
    it('outside production an unsigned X-Tenant-Id is still honoured (product spec plain scheme)', async () => {
      t = await openTestApp(target)
      expect(
        (await t.app.inject(signedDelivery(publishedEvent(), { headers: { 'x-tenant-id': 'gamma' } }))).statusCode,
      ).toBe(204)
      expect(await eventCount(t, 'gamma')).toBe(1)
    })

    it('production with INGEST_REQUIRE_TIMESTAMPED_SIGNATURE=false accepts the plain signature of an enrolled registry', async () => {
      t = await openTestApp(target, { ...PRODUCTION, INGEST_REQUIRE_TIMESTAMPED_SIGNATURE: 'false' })
      await enroll(t, 'reg.example', { tenantId: 'acme', secret: SECRET_A })
      expect((await t.app.inject(signedDelivery(publishedEvent(), { secret: SECRET_A }))).statusCode).toBe(204)
      expect(await eventCount(t, 'acme')).toBe(1)
    })

    it('production with INGEST_STRICT_TENANT=true accepts unenrolled timestamped deliveries, into default only', async () => {
      t = await openTestApp(target, { ...PRODUCTION, INGEST_STRICT_TENANT: 'true' })
      const raw = JSON.stringify(publishedEvent())
      expect((await t.app.inject(signedDelivery(raw, { headers: timestampedHeaders(raw, NOW_S) }))).statusCode).toBe(
        204,
      )
      expect(await eventCount(t, 'default')).toBe(1)
    })
  })
})
