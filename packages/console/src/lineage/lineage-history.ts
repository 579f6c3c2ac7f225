/**
 * A lineage's versions read from the registry's envelopes (attacker-controlled: anything malformed is shown as
 * text, never trusted), and its history over time: each version's publication (a supersession from v2 on) and
 * every retraction and republish recorded in its lifecycle events (RFC-ACDP-0013), oldest first.
 */

export interface LineageVersion {
  ctxId: string
  version: number
  title: string
  status: string
  createdAt: string | null
  supersedes: string | null
  events: Array<{ type: string; at: string; reason: string | null }>
}

export interface HistoryEntry {
  at: string
  kind: 'published' | 'superseded' | 'retracted' | 'republished' | string
  version: number
  detail: string
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)

export function readVersions(envelopes: unknown[]): LineageVersion[] {
  return envelopes.map((raw) => {
    const envelope = raw as {
      body?: Record<string, unknown>
      registry_state?: { status?: unknown; lifecycle_events?: unknown }
    }
    const body = envelope.body ?? {}
    const events = Array.isArray(envelope.registry_state?.lifecycle_events)
      ? (envelope.registry_state.lifecycle_events as Array<Record<string, unknown>>)
      : []
    return {
      ctxId: text(body['ctx_id']) ?? '',
      version: typeof body['version'] === 'number' ? body['version'] : 0,
      title: text(body['title']) ?? '',
      status: text(envelope.registry_state?.status) ?? 'unknown',
      createdAt: text(body['created_at']),
      supersedes: text(body['supersedes']),
      events: events.map((e) => ({
        type: text(e['event_type']) ?? 'unknown',
        at: text(e['occurred_at']) ?? '',
        reason: text(e['reason']),
      })),
    }
  })
}

export function lineageHistory(versions: LineageVersion[]): HistoryEntry[] {
  const entries: HistoryEntry[] = []
  const byCtx = new Map(versions.map((v) => [v.ctxId, v]))
  for (const v of versions) {
    const previous = v.supersedes === null ? undefined : byCtx.get(v.supersedes)
    entries.push({
      at: v.createdAt ?? '',
      kind: v.supersedes === null ? 'published' : 'superseded',
      version: v.version,
      detail: v.supersedes === null ? 'first version' : `replaces v${previous?.version ?? '?'}`,
    })
    for (const e of v.events) {
      entries.push({ at: e.at, kind: e.type, version: v.version, detail: e.reason ?? '' })
    }
  }
  // ISO 8601 UTC strings order as their instants; a stable sort keeps a version before its own events.
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
}
