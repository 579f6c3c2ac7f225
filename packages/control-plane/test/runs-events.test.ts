/**
 * Runs and event history over HTTP, on every dialect: run notifications (HMAC), run reads, lineage, event
 * listings with keyset pagination, tenant scoping, and every documented status and error code.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { bearer, openTestApp, T0, type TestApp, USER_KEY } from './support/test-app.js'

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const auth = bearer(USER_KEY)

async function get(t: TestApp, url: string, headers: Record<string, string> = auth) {
  return t.app.inject({ method: 'GET', url, headers })
}

async function ingest(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await t.app.inject(signedDelivery(body, { headers }))
  expect(res.statusCode).toBe(204)
}

describe.each(testDatabaseTargets())('runs and events on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  describe('POST /runs/started', () => {
    const notice = {
      run_id: 'run-a',
      scenario_id: 'scenario-1',
      started_at: '2026-01-15T10:00:00Z',
      inputs: { q: [1, 2] },
    }

    it('records the run (204) with scenario, start time and inputs', async () => {
      t = await openTestApp(target)
      const res = await t.app.inject(signedDelivery(notice, { url: '/runs/started' }))
      expect(res.statusCode).toBe(204)
      const run = await get(t, '/runs/run-a')
      expect(run.statusCode).toBe(200)
      expect(run.json()).toEqual({
        runId: 'run-a',
        tenantId: 'default',
        scenarioId: 'scenario-1',
        status: 'running',
        startedAt: '2026-01-15T10:00:00.000Z',
        completedAt: null,
        inputs: { q: [1, 2] },
        result: null,
        eventsCount: 0,
        contextsCount: 0,
        registries: [],
        updatedAt: '2026-01-15T12:00:00.000Z',
        // No publication audited yet (the receipt audit is off under NODE_ENV=test unless enabled).
        trust: {
          audited: 0,
          verified: 0,
          verifiedHistorical: 0,
          structural: 0,
          noReceipt: 0,
          errors: 0,
          flagged: [],
        },
      })
    })

    it('attributes the scenario before the first ingest event, and events keep it', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(notice, { url: '/runs/started' }))
      await ingest(t, publishedEvent({ run_id: 'run-a', scenario_id: 'other' }))
      expect((await get(t, '/runs/run-a')).json()).toMatchObject({
        scenarioId: 'scenario-1',
        eventsCount: 1,
        contextsCount: 1,
      })
    })

    it('files the run under X-Tenant-Id', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(notice, { url: '/runs/started', headers: { 'x-tenant-id': 'acme' } }))
      expect((await get(t, '/runs/run-a')).statusCode).toBe(404)
      expect((await get(t, '/runs/run-a', { ...auth, 'x-tenant-id': 'acme' })).statusCode).toBe(200)
    })

    it.each([
      ['unsigned', { unsigned: true }, notice, 401, 'INVALID_SIGNATURE'],
      [
        'unsigned with an invalid body (signature is checked first)',
        { unsigned: true },
        { run_id: 'x' },
        401,
        'INVALID_SIGNATURE',
      ],
      ['signed without scenario_id', {}, { run_id: 'x' }, 400, 'VALIDATION_ERROR'],
      ['signed with an unknown member', {}, { ...notice, extra: 1 }, 400, 'VALIDATION_ERROR'],
      ['signed with a malformed started_at', {}, { ...notice, started_at: 'soon' }, 400, 'VALIDATION_ERROR'],
      ['asserting the reserved tenant', { headers: { 'x-tenant-id': 'default' } }, notice, 403, 'TENANT_RESERVED'],
    ])('%s → %i %s', async (_name, options, body, status, code) => {
      t = await openTestApp(target)
      const res = await t.app.inject(signedDelivery(body, { url: '/runs/started', ...options }))
      expect(res.statusCode).toBe(status)
      expect(res.json()).toEqual({ statusCode: status, errorCode: code, message: expect.any(String) })
    })

    it('answers an oversized body with 400', async () => {
      t = await openTestApp(target, { INGEST_MAX_BODY_BYTES: '1024' })
      const res = await t.app.inject(signedDelivery({ ...notice, inputs: 'x'.repeat(2000) }, { url: '/runs/started' }))
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ errorCode: 'PAYLOAD_TOO_LARGE' })
    })
  })

  describe('POST /runs/:runId/complete', () => {
    it.each(['completed', 'failed', 'cancelled'])('moves a run to %s with its result (204)', async (status) => {
      t = await openTestApp(target)
      await ingest(t, publishedEvent({ run_id: 'run-c' }))
      t.advance(5000)
      const res = await t.app.inject(signedDelivery({ status, result: { score: 1 } }, { url: '/runs/run-c/complete' }))
      expect(res.statusCode).toBe(204)
      expect((await get(t, '/runs/run-c')).json()).toMatchObject({
        status,
        result: { score: 1 },
        completedAt: '2026-01-15T12:00:05.000Z',
      })
    })

    it.each([
      ['running is not a terminal status', { status: 'running' }, {}, 400],
      ['a missing status', { result: 1 }, {}, 400],
      ['an unsigned body', { status: 'completed' }, { unsigned: true }, 401],
      ['the wrong secret', { status: 'completed' }, { secret: 'another-secret-0123456789' }, 401],
    ])('refuses %s', async (_name, body, options, status) => {
      t = await openTestApp(target)
      const res = await t.app.inject(signedDelivery(body, { url: '/runs/run-c/complete', ...options }))
      expect(res.statusCode).toBe(status)
    })

    it('does not accept a bearer key instead of the HMAC', async () => {
      t = await openTestApp(target)
      const res = await t.app.inject(
        signedDelivery({ status: 'completed' }, { url: '/runs/run-c/complete', unsigned: true, headers: auth }),
      )
      expect(res.statusCode).toBe(401)
    })
  })

  describe('GET /runs', () => {
    async function seedRuns(count: number, tenantHeader: Record<string, string> = {}) {
      for (let i = 0; i < count; i++) {
        const body = {
          run_id: `run-${String(i).padStart(3, '0')}`,
          scenario_id: i % 2 === 0 ? 'even' : 'odd',
          started_at: new Date(T0 + i * 1000).toISOString(),
        }
        expect(
          (await t.app.inject(signedDelivery(body, { url: '/runs/started', headers: tenantHeader }))).statusCode,
        ).toBe(204)
      }
    }

    it('lists newest first as { data, total, limit, offset } with default limit 50', async () => {
      t = await openTestApp(target)
      await seedRuns(3)
      const res = await get(t, '/runs')
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(body).toMatchObject({ total: 3, limit: 50, offset: 0 })
      expect(body.data.map((r: { runId: string }) => r.runId)).toEqual(['run-002', 'run-001', 'run-000'])
      for (const run of body.data) expect(run.startedAt).toMatch(RFC3339_MS)
    })

    it('filters by status and scenarioId and pages with limit and offset', async () => {
      t = await openTestApp(target)
      await seedRuns(5)
      await t.app.inject(signedDelivery({ status: 'failed' }, { url: '/runs/run-004/complete' }))
      expect((await get(t, '/runs?status=failed')).json().data.map((r: { runId: string }) => r.runId)).toEqual([
        'run-004',
      ])
      expect((await get(t, '/runs?scenarioId=odd')).json().total).toBe(2)
      const page = (await get(t, '/runs?limit=2&offset=1')).json()
      expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 })
      expect(page.data.map((r: { runId: string }) => r.runId)).toEqual(['run-003', 'run-002'])
    })

    it('filters by start time: startedAfter inclusive, startedBefore exclusive', async () => {
      t = await openTestApp(target)
      await seedRuns(5)
      const at = (i: number) => encodeURIComponent(new Date(T0 + i * 1000).toISOString())
      const ids = async (query: string) =>
        (await get(t, `/runs?${query}`)).json().data.map((r: { runId: string }) => r.runId)
      expect(await ids(`startedAfter=${at(3)}`)).toEqual(['run-004', 'run-003'])
      expect(await ids(`startedBefore=${at(1)}`)).toEqual(['run-000'])
      expect(await ids(`startedAfter=${at(1)}&startedBefore=${at(3)}&scenarioId=odd`)).toEqual(['run-001'])
    })

    it.each([
      ['startedAfter=yesterday', 400],
      ['startedBefore=2026-13-01T00:00:00Z', 400],
      ['limit=0', 400],
      ['limit=1', 200],
      ['limit=200', 200],
      ['limit=201', 400],
      ['limit=abc', 400],
      ['offset=-1', 400],
      ['offset=0', 200],
      ['status=paused', 400],
      ['unknown=1', 400],
    ])('%s → %i', async (query, status) => {
      t = await openTestApp(target)
      const res = await get(t, `/runs?${query}`)
      expect(res.statusCode).toBe(status)
      if (status === 400) expect(res.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
    })

    it('is tenant-scoped', async () => {
      t = await openTestApp(target)
      await seedRuns(2, { 'x-tenant-id': 'acme' })
      expect((await get(t, '/runs')).json().total).toBe(0)
      expect((await get(t, '/runs', { ...auth, 'x-tenant-id': 'acme' })).json().total).toBe(2)
    })

    it('needs a credential', async () => {
      t = await openTestApp(target)
      expect((await get(t, '/runs', {})).statusCode).toBe(401)
    })
  })

  describe('GET /runs/:runId and its lineage and events', () => {
    it('answers 404 RUN_NOT_FOUND for an unknown run on all three reads', async () => {
      t = await openTestApp(target)
      for (const url of ['/runs/nope', '/runs/nope/lineage', '/runs/nope/events']) {
        const res = await get(t, url)
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ statusCode: 404, errorCode: 'RUN_NOT_FOUND', message: expect.any(String) })
      }
    })

    it('builds the lineage graph: nodes in event-time order with step, retracted and status, edges from derived_from', async () => {
      t = await openTestApp(target)
      const parent = publishedEvent({ run_id: 'g', created_at: '2026-01-15T11:00:00.000Z' })
      const child = publishedEvent({
        run_id: 'g',
        created_at: '2026-01-15T11:00:01.000Z',
        derived_from: [parent.ctx_id],
        context_type: 'prediction',
        lineage_id: `lin:sha256:${'c'.repeat(64)}`,
      })
      await ingest(t, child)
      // A later version of the child's lineage, published in another run, supersedes the child.
      await ingest(
        t,
        publishedEvent({ run_id: 'h', lineage_id: child.lineage_id, version: 2, supersedes: child.ctx_id }),
      )
      await ingest(t, parent)
      await ingest(t, retrievedEvent({ run_id: 'g', ctx_id: parent.ctx_id }))
      await ingest(t, {
        event_id: 'retract-1',
        type: 'context_retracted',
        registry_authority: 'reg.example',
        ctx_id: parent.ctx_id,
        actor: parent.agent_id,
        at: '2026-01-15T11:30:00.000Z',
      })
      const res = await get(t, '/runs/g/lineage')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        runId: 'g',
        nodes: [
          {
            ctxId: parent.ctx_id,
            agentId: parent.agent_id,
            contextType: 'analysis',
            visibility: 'public',
            registryAuthority: 'reg.example',
            lineageId: parent.lineage_id,
            version: 1,
            step: 1,
            retracted: true,
            status: 'retracted',
          },
          {
            ctxId: child.ctx_id,
            agentId: child.agent_id,
            contextType: 'prediction',
            visibility: 'public',
            registryAuthority: 'reg.example',
            lineageId: child.lineage_id,
            version: 1,
            step: 2,
            retracted: false,
            status: 'superseded',
          },
        ],
        edges: [{ from: parent.ctx_id, to: child.ctx_id }],
      })
    })

    it('lists a run’s events oldest first, filtered by type, paged by cursor', async () => {
      t = await openTestApp(target)
      for (let i = 0; i < 5; i++) {
        await ingest(t, publishedEvent({ run_id: 'p', created_at: `2026-01-15T11:00:0${4 - i}.000Z` }))
      }
      await ingest(t, retrievedEvent({ run_id: 'p' }))
      const first = (await get(t, '/runs/p/events?eventType=context_published&limit=3')).json()
      expect(first.data.map((e: { eventTs: string }) => e.eventTs)).toEqual([
        '2026-01-15T11:00:00.000Z',
        '2026-01-15T11:00:01.000Z',
        '2026-01-15T11:00:02.000Z',
      ])
      expect(first.nextCursor).toEqual(expect.any(String))
      const second = (
        await get(t, `/runs/p/events?eventType=context_published&limit=3&cursor=${first.nextCursor}`)
      ).json()
      expect(second.data).toHaveLength(2)
      expect(second.nextCursor).toBeNull()
      expect((await get(t, '/runs/p/events')).json().data).toHaveLength(6)
    })

    it('refuses a malformed cursor with 400', async () => {
      t = await openTestApp(target)
      await ingest(t, publishedEvent({ run_id: 'p' }))
      const res = await get(t, '/runs/p/events?cursor=bm90LWEtY3Vyc29y')
      expect(res.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
    })
  })

  describe('GET /events', () => {
    it('lists newest first with every member of an event row', async () => {
      t = await openTestApp(target)
      const body = publishedEvent({ run_id: 'r', created_at: '2026-01-15T11:00:00.000Z' })
      await ingest(t, body)
      await ingest(t, retrievedEvent({ at: '2026-01-15T11:00:05.000Z' }))
      const res = await get(t, '/events')
      expect(res.statusCode).toBe(200)
      const page = res.json()
      expect(page).toMatchObject({ limit: 500, nextCursor: null })
      expect(page.data.map((e: { eventType: string }) => e.eventType)).toEqual([
        'context_retrieved',
        'context_published',
      ])
      expect(page.data[1]).toEqual({
        id: expect.stringMatching(/^\d+$/),
        tenantId: 'default',
        eventId: body.event_id,
        eventType: 'context_published',
        eventTs: '2026-01-15T11:00:00.000Z',
        runId: 'r',
        ctxId: body.ctx_id,
        lineageId: body.lineage_id,
        agentId: body.agent_id,
        contextType: 'analysis',
        visibility: 'public',
        version: 1,
        derivedFrom: [],
        registryAuthority: 'reg.example',
        scenarioId: null,
        keyFingerprint: null,
        receiptPresent: false,
        rawPayload: body,
        createdAt: '2026-01-15T12:00:00.000Z',
      })
    })

    it('leaves one event type out with excludeEventType (the console hides CLI reads this way)', async () => {
      t = await openTestApp(target)
      await ingest(t, publishedEvent({ run_id: 'r', created_at: '2026-01-15T11:00:00.000Z' }))
      await ingest(t, retrievedEvent({ at: '2026-01-15T11:00:05.000Z' }))
      const types = async (url: string) =>
        (await get(t, url)).json().data.map((e: { eventType: string }) => e.eventType)
      expect(await types('/events?excludeEventType=context_retrieved')).toEqual(['context_published'])
      expect(await types('/events?excludeEventType=search_executed')).toEqual([
        'context_retrieved',
        'context_published',
      ])
      // Both filters at once: what is asked for, less what is left out.
      expect(await types('/events?eventType=context_retrieved&excludeEventType=context_retrieved')).toEqual([])
      expect((await get(t, '/events?excludeEventType=')).statusCode).toBe(400)
    })

    it('answers JSON with the body as the registry sent it: its spelling kept, large integers exact', async () => {
      t = await openTestApp(target)
      const body = publishedEvent({ run_id: 'r', created_at: '2026-01-15T11:00:00.000Z' })
      // Signed text with whitespace, an escaped é and an integer beyond 2^53, as a registry could send it.
      const text = `${JSON.stringify(body).slice(0, -1)},\n  "amount": 12345678901234567890, "note": "caf\\u00e9" }`
      expect((await t.app.inject(signedDelivery(text))).statusCode).toBe(204)
      for (const url of ['/events', '/runs/r/events']) {
        const res = await get(t, url)
        expect(res.statusCode).toBe(200)
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(res.body).toContain(`"rawPayload":${text},"createdAt":"2026-01-15T12:00:00.000Z"}`)
        expect(res.json().data[0].rawPayload).toEqual(JSON.parse(text))
      }
      const runs = await get(t, '/runs')
      expect(runs.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(runs.json()).toMatchObject({ total: 1, limit: 50, offset: 0, data: [{ runId: 'r', eventsCount: 1 }] })
    })

    it('filters by runId, eventType, agentId, registryAuthority, afterTs (inclusive) and beforeTs (exclusive)', async () => {
      t = await openTestApp(target)
      await ingest(t, publishedEvent({ run_id: 'r1', created_at: '2026-01-15T10:00:00.000Z' }))
      await ingest(
        t,
        publishedEvent({ run_id: 'r2', agent_id: 'did:key:other', created_at: '2026-01-15T10:00:01.000Z' }),
      )
      await ingest(
        t,
        retrievedEvent({
          registry_authority: 'b.example',
          ctx_id: 'acdp://b.example/x',
          at: '2026-01-15T10:00:02.000Z',
        }),
      )
      const count = async (query: string) => (await get(t, `/events?${query}`)).json().data.length
      expect(await count('runId=r1')).toBe(1)
      expect(await count('eventType=context_retrieved')).toBe(1)
      expect(await count('agentId=did:key:other')).toBe(1)
      expect(await count('registryAuthority=b.example')).toBe(1)
      expect(await count('afterTs=2026-01-15T10:00:01.000Z')).toBe(2)
      expect(await count('beforeTs=2026-01-15T10:00:01.000Z')).toBe(1)
      expect(await count('afterTs=2026-01-15T10:00:00Z&beforeTs=2026-01-15T10:00:02Z')).toBe(2)
    })

    it('pages through events sharing one timestamp without losing or repeating any', async () => {
      t = await openTestApp(target)
      for (let i = 0; i < 12; i++) await ingest(t, retrievedEvent({ at: '2026-01-15T10:00:00.000Z' }))
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const url: string = `/events?limit=5${cursor ? `&cursor=${cursor}` : ''}`
        const page = (await get(t, url)).json()
        seen.push(...page.data.map((e: { id: string }) => e.id))
        cursor = page.nextCursor
      } while (cursor !== null)
      expect(seen).toHaveLength(12)
      expect(new Set(seen).size).toBe(12)
    })

    it.each([
      ['limit=1000', 200],
      ['limit=1001', 400],
      ['limit=0', 400],
      ['afterTs=yesterday', 400],
      ['beforeTs=2026-13-01T00:00:00Z', 400],
      ['cursor=%%%', 400],
      ['unknown=1', 400],
    ])('%s → %i', async (query, status) => {
      t = await openTestApp(target)
      const res = await get(t, `/events?${query}`)
      expect(res.statusCode).toBe(status)
      if (status === 400) expect(res.json()).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_ERROR' })
    })

    it('is tenant-scoped and needs a credential', async () => {
      t = await openTestApp(target)
      await ingest(t, publishedEvent(), { 'x-tenant-id': 'acme' })
      expect((await get(t, '/events')).json().data).toEqual([])
      expect((await get(t, '/events', { ...auth, 'x-tenant-id': 'acme' })).json().data).toHaveLength(1)
      expect((await get(t, '/events', {})).statusCode).toBe(401)
    })
  })
})
