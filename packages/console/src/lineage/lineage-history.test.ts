import { describe, expect, it } from 'vitest'
import { lineageHistory, readVersions } from './lineage-history.js'

const envelope = (n: number, supersedes: string | null, createdAt: string, status: string, events: unknown[] = []) => ({
  body: { ctx_id: `acdp://r.test/${n}`, version: n, title: `v${n}`, created_at: createdAt, supersedes },
  registry_state: { status, lifecycle_events: events },
})

describe('lineage history', () => {
  it('orders publications, the supersession and a retraction with its republish by time', () => {
    const versions = readVersions([
      envelope(1, null, '2026-01-01T00:00:00Z', 'superseded'),
      envelope(2, 'acdp://r.test/1', '2026-01-02T00:00:00Z', 'active', [
        { event_type: 'retracted', occurred_at: '2026-01-03T00:00:00Z', reason: 'wrong source' },
        { event_type: 'republished', occurred_at: '2026-01-04T00:00:00Z' },
      ]),
    ])
    expect(lineageHistory(versions).map((e) => `${e.kind} v${e.version} ${e.detail}`)).toEqual([
      'published v1 first version',
      'superseded v2 replaces v1',
      'retracted v2 wrong source',
      'republished v2 ',
    ])
  })

  it('reads malformed envelopes as text, never throwing', () => {
    const [v] = readVersions([{ body: { version: 'x' }, registry_state: { lifecycle_events: 'no' } }])
    expect(v).toMatchObject({ ctxId: '', version: 0, status: 'unknown', events: [] })
  })
})
