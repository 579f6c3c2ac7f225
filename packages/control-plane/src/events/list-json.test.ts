import { describe, expect, it } from 'vitest'
import type { EventRecord, RunRecord } from '../store/store.js'
import { toEventView } from './events.js'
import { eventJson, eventPageJson, runJson, runPageJson } from './list-json.js'
import { toRunView } from '../runs/runs.js'

const T = Date.UTC(2026, 10, 24, 15, 30, 0, 7)
/** Strings a JSON writer must escape: quotes, backslash, control characters, non-ASCII, a lone surrogate. */
const AWKWARD = 'q"b\\s\n\t\u0000\u001f é 😀 \u2028 \ud800 end'

function run(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    tenantId: 'tenant-a',
    runId: 'run-1',
    scenarioId: 'scenario',
    status: 'running',
    startedAt: T,
    completedAt: null,
    inputsJson: null,
    resultJson: null,
    eventsCount: 3,
    contextsCount: 2,
    registries: [],
    createdAt: T,
    updatedAt: T + 1,
    ...overrides,
  }
}

function event(overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    id: 42,
    tenantId: 'tenant-a',
    eventId: 'e-1',
    type: 'context_published',
    eventTs: T,
    receivedAt: T + 5,
    runId: 'run-1',
    ctxId: 'acdp://reg.example/c-1',
    lineageId: 'lin:sha256:abc',
    agentId: 'did:key:z6Mk',
    contextType: 'analysis',
    visibility: 'public',
    version: 1,
    derivedFrom: [],
    registryAuthority: 'reg.example',
    scenarioId: null,
    keyFingerprint: null,
    receiptPresent: false,
    rawPayload: '{"type":"context_published","n":1}',
    ...overrides,
  }
}

describe('list pages as JSON text', () => {
  it.each([
    ['a bare running run', run()],
    [
      'every field set, with text that needs escaping',
      run({
        runId: AWKWARD,
        tenantId: AWKWARD,
        scenarioId: AWKWARD,
        status: 'failed',
        completedAt: T + 99_000,
        inputsJson: JSON.stringify({ q: [1, 2.5, -0.125, null, true], s: AWKWARD, nested: { deep: [{}] } }),
        resultJson: JSON.stringify('plain string'),
        registries: ['a.example', 'b.example:8443', AWKWARD],
      }),
    ],
    ['JSON null stored as inputs', run({ inputsJson: 'null', resultJson: '0' })],
  ])('writes a run exactly as JSON.stringify(toRunView(run)): %s', (_name, record) => {
    expect(runJson(record)).toBe(JSON.stringify(toRunView(record)))
  })

  it('writes a runs page with its total, limit and offset, and an empty page', () => {
    const runs = [run(), run({ runId: 'run-2', registries: ['x.example'] })]
    const text = runPageJson({ runs, total: 7, limit: 2, offset: 4 })
    expect(text).toBe(JSON.stringify({ data: runs.map(toRunView), total: 7, limit: 2, offset: 4 }))
    expect(runPageJson({ runs: [], total: 0, limit: 50, offset: 0 })).toBe(
      '{"data":[],"total":0,"limit":50,"offset":0}',
    )
  })

  it.each([
    ['a typical event', event()],
    [
      'nulls everywhere they are allowed, escaping, lineage parents, a receipt',
      event({
        eventId: null,
        type: AWKWARD,
        runId: null,
        ctxId: null,
        lineageId: null,
        agentId: null,
        contextType: null,
        visibility: null,
        version: null,
        derivedFrom: ['acdp://reg.example/p-1', AWKWARD],
        registryAuthority: 'reg.example:8443',
        scenarioId: AWKWARD,
        keyFingerprint: 'sha256:ff',
        receiptPresent: true,
        rawPayload: JSON.stringify({ s: AWKWARD, list: [1, { a: null }] }),
      }),
    ],
  ])('writes an event exactly as JSON.stringify(toEventView(event)) for a compact body: %s', (_name, record) => {
    expect(eventJson(record)).toBe(JSON.stringify(toEventView(record)))
  })

  it('embeds the body as received: the same JSON value, its own spelling, integers beyond 2^53 intact', () => {
    const rawPayload = '{ "b": 1.50, "a": "\\u00e9",\n  "big": 12345678901234567890 }\n'
    const text = eventJson(event({ rawPayload }))
    expect(text).toContain(`"rawPayload":${rawPayload},`)
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(toEventView(event({ rawPayload })))))
  })

  it('writes an event page with its cursor, and the last page with a null cursor', () => {
    const events = [event(), event({ id: 43 })]
    expect(JSON.parse(eventPageJson({ events, limit: 2, nextCursor: 'MTIzLjQ1' }))).toEqual({
      data: events.map(toEventView),
      limit: 2,
      nextCursor: 'MTIzLjQ1',
    })
    expect(eventPageJson({ events: [], limit: 10, nextCursor: null })).toBe('{"data":[],"limit":10,"nextCursor":null}')
  })
})
