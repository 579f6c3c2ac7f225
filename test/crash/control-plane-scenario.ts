/**
 * Control plane crash scenario: each load connection starts a run (signed run notice), then ingests signed
 * context_published events for it back to back, each derived from the previous one (a lineage chain), with
 * deliveries whose signature is wrong interleaved (always refused, on a run of their own). A webhook
 * subscription points at a loopback sink, so every stored event also goes through the outbox. Invariants
 * after each restart:
 *   - every ingest answered 2xx is stored, and everything stored was sent and not refused;
 *   - each run's counters equal its stored events (eventsCount) and distinct contexts (contextsCount);
 *   - each stored event's lineage edges (derived_from) are all present;
 *   - (final) the outbox delivers every stored event to the sink, one delivery per event (retries of one
 *     delivery reuse its id), none for anything refused.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { signWebhookBody } from '@acdp/protocol'
import type { CrashBackend } from './backends.js'
import type { CrashScenario } from './crash-scenario.js'
import { BINS, type ServiceSpec } from './service-process.js'

/** The signing secret of the crash suite's registry deliveries (WEBHOOK_SECRET of its control plane). */
export const WEBHOOK_SECRET = 'crash-webhook-secret-0123456789abcdef'
const API_KEY = 'crash-api-key-0123456789abcdef'
const AUTHORITY = 'crash.registry.test'
const AGENT = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'
const FORGED_RUN = 'crash-forged'
/** How long the final check waits for the outbox to drain (a delivery claimed when the process died is
 * re-claimed when its lease expires: 3 × WEBHOOK_TIMEOUT_MS + 30 s). */
const OUTBOX_DRAIN_MS = 60_000

type Outcome = 'pending' | 'acked' | 'refused' | 'unknown'

interface SentEvent {
  eventId: string
  runId: string
  ctxId: string
  parentCtxId: string | undefined
  outcome: Outcome
}

export interface StoredEvent {
  eventType: string
  eventId: string | null
  ctxId: string | null
  derivedFrom: string[]
}

/** The signed registry delivery of `body` (a wrong signature when `forge`), as a registry sends it. */
export async function signedPost(url: string, body: unknown, headers: Record<string, string> = {}, forge = false) {
  const raw = JSON.stringify(body)
  const signature = signWebhookBody(forge ? `${WEBHOOK_SECRET}-forged` : WEBHOOK_SECRET, raw)
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-acdp-signature': signature, ...headers },
    body: raw,
  })
}

/** The read credential of the crash configuration. */
export const CRASH_AUTH = { authorization: `Bearer ${API_KEY}` } as const

/** The control plane bin on `backend` at `port`, with the crash suite's configuration. */
export function controlPlaneSpec(backend: CrashBackend, port: number): ServiceSpec {
  const database: Record<string, string> =
    backend.kind === 'sqlite' ? { SQLITE_PATH: backend.sqlitePath } : { DATABASE_URL: backend.postgresUrl }
  return {
    bin: BINS.controlPlane,
    args: [],
    port,
    env: {
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATA_DIR: backend.dir,
      ...database,
      WEBHOOK_SECRET,
      AUTH_API_KEYS: API_KEY,
      SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_INTERVAL_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_MS: '500',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
  }
}

/** A context_published delivery body (a chain link when `parentCtxId` is given). */
export function publishBody(entry: { eventId: string; ctxId: string; runId: string; parentCtxId?: string }) {
  return {
    event_id: entry.eventId,
    schema_version: '1.0',
    type: 'context_published',
    registry_authority: AUTHORITY,
    registry_base_url: `https://${AUTHORITY}`,
    ctx_id: entry.ctxId,
    lineage_id: `lin:sha256:${'b'.repeat(64)}`,
    agent_id: AGENT,
    context_type: 'analysis',
    visibility: 'public',
    version: 1,
    created_at: '2026-01-15T11:59:00.000Z',
    derived_from: entry.parentCtxId === undefined ? [] : [entry.parentCtxId],
    run_id: entry.runId,
  }
}

/** A fresh context id of the crash registry. */
export const crashCtxId = () => `acdp://${AUTHORITY}/${randomUUID()}`

export function controlPlaneCrashScenario(): CrashScenario {
  const events = new Map<string, SentEvent>()
  const runs = new Set<string>()
  /** Sink: delivery ids received per event id (X-ACDP-Event-Id is the delivery id, stable across retries). */
  const received = new Map<string, Set<string>>()
  let sink: Server | undefined
  let sinkPort = 0
  const auth = CRASH_AUTH

  return {
    spec: controlPlaneSpec,

    async prepare(baseUrl) {
      sink = createServer((request, response) => {
        const chunks: Buffer[] = []
        request.on('data', (chunk: Buffer) => chunks.push(chunk))
        request.on('end', () => {
          const delivery = String(request.headers['x-acdp-event-id'] ?? '')
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId?: string }
            const eventId = body.eventId ?? ''
            const ids = received.get(eventId) ?? new Set<string>()
            ids.add(delivery)
            received.set(eventId, ids)
          } catch {
            received.set(`unparsable:${delivery}`, new Set([delivery]))
          }
          response.writeHead(204).end()
        })
      })
      await new Promise<void>((resolve) => sink?.listen(0, '127.0.0.1', resolve))
      const address = sink.address()
      sinkPort = typeof address === 'object' && address !== null ? address.port : 0
      const created = await fetch(`${baseUrl}/webhooks`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${sinkPort}/sink`, events: ['context_published'] }),
      })
      if (created.status !== 201) throw new Error(`POST /webhooks answered ${created.status}: ${await created.text()}`)
    },

    async connection(baseUrl, round, index, isStopped) {
      const runId = `crash-r${round}-c${index}`
      try {
        const started = await signedPost(`${baseUrl}/runs/started`, { run_id: runId, scenario_id: 'crash' })
        await started.arrayBuffer()
        if (started.status !== 204) return
        runs.add(runId)
        let parent: string | undefined
        let n = 0
        while (!isStopped()) {
          n++
          const forged = n % 10 === 0
          const entry: SentEvent = {
            eventId: randomUUID(),
            runId: forged ? FORGED_RUN : runId,
            ctxId: crashCtxId(),
            parentCtxId: forged ? undefined : parent,
            outcome: 'pending',
          }
          events.set(entry.eventId, entry)
          const body = publishBody({
            eventId: entry.eventId,
            ctxId: entry.ctxId,
            runId: entry.runId,
            ...(entry.parentCtxId === undefined ? {} : { parentCtxId: entry.parentCtxId }),
          })
          try {
            const answer = await signedPost(`${baseUrl}/ingest/acdp`, body, { 'x-run-id': entry.runId }, forged)
            await answer.arrayBuffer()
            // 502–504 come from a balancer in front (the instance died or timed out): the event may be stored.
            entry.outcome =
              answer.status >= 200 && answer.status < 300
                ? 'acked'
                : answer.status >= 502 && answer.status <= 504
                  ? 'unknown'
                  : 'refused'
          } catch (error) {
            entry.outcome = 'unknown'
            throw error
          }
          if (!forged) parent = entry.ctxId
        }
      } catch {
        // the process died under us: the round is over
      }
    },

    invariants: [
      {
        name: 'every acknowledged ingest is stored; everything stored was sent and not refused',
        async check(baseUrl) {
          const problems: string[] = []
          const forged = await listRunEvents(baseUrl, FORGED_RUN, auth)
          if (forged.length > 0) problems.push(`${forged.length} refused (forged) events are stored`)
          for (const runId of runs) {
            const stored = await listRunEvents(baseUrl, runId, auth)
            const storedIds = new Set(stored.map((e) => e.eventId))
            for (const event of stored.filter((e) => e.eventType === 'context_published')) {
              const entry = events.get(event.eventId ?? '')
              if (entry === undefined) problems.push(`${runId}: stored event ${event.eventId} was never sent`)
              else if (entry.outcome === 'refused') problems.push(`${runId}: refused event ${entry.eventId} is stored`)
            }
            for (const entry of events.values()) {
              if (entry.runId === runId && entry.outcome === 'acked' && !storedIds.has(entry.eventId)) {
                problems.push(`${runId}: acknowledged event ${entry.eventId} is missing`)
              }
            }
          }
          return problems
        },
      },
      {
        name: 'run counters equal stored events',
        async check(baseUrl) {
          const problems: string[] = []
          for (const runId of runs) {
            const stored = await listRunEvents(baseUrl, runId, auth)
            const answer = await fetch(`${baseUrl}/runs/${encodeURIComponent(runId)}`, { headers: auth })
            const run = (await answer.json()) as { eventsCount?: number; contextsCount?: number }
            const contexts = new Set(stored.map((e) => e.ctxId).filter((c) => c !== null)).size
            if (run.eventsCount !== stored.length || run.contextsCount !== contexts) {
              problems.push(
                `${runId}: eventsCount ${run.eventsCount} / contextsCount ${run.contextsCount}, stored ${stored.length} events / ${contexts} contexts`,
              )
            }
          }
          return problems
        },
      },
      {
        name: 'lineage edges complete',
        async check(baseUrl) {
          const problems: string[] = []
          for (const runId of runs) {
            const stored = await listRunEvents(baseUrl, runId, auth)
            const answer = await fetch(`${baseUrl}/runs/${encodeURIComponent(runId)}/lineage`, { headers: auth })
            const lineage = (await answer.json()) as { edges: Array<{ from: string; to: string }> }
            const edges = new Set(lineage.edges.map((e) => `${e.from} -> ${e.to}`))
            for (const event of stored) {
              for (const parent of event.derivedFrom) {
                if (!edges.has(`${parent} -> ${event.ctxId}`))
                  problems.push(`${runId}: edge ${parent} -> ${event.ctxId} missing`)
              }
            }
          }
          return problems
        },
      },
      {
        name: 'outbox delivers every stored event exactly once (one delivery id), nothing refused',
        async check(baseUrl, { final }) {
          if (!final) return []
          const expected = new Set<string>()
          for (const runId of runs) {
            for (const event of await listRunEvents(baseUrl, runId, auth)) {
              if (event.eventType === 'context_published') expected.add(event.eventId ?? '')
            }
          }
          const deadline = Date.now() + OUTBOX_DRAIN_MS
          while (Date.now() < deadline && [...expected].some((id) => !received.has(id))) {
            await new Promise((resolve) => setTimeout(resolve, 250))
          }
          const problems: string[] = []
          const missing = [...expected].filter((id) => !received.has(id))
          if (missing.length > 0) problems.push(`${missing.length} stored events never delivered (e.g. ${missing[0]})`)
          for (const [eventId, deliveries] of received) {
            if (!expected.has(eventId)) problems.push(`delivered ${eventId}, which is not a stored event`)
            if (deliveries.size !== 1) problems.push(`${eventId} delivered under ${deliveries.size} delivery ids`)
          }
          return problems
        },
      },
    ],

    tally() {
      const counts: Record<string, number> = { sent: events.size, acked: 0, refused: 0, unknown: 0, pending: 0 }
      for (const entry of events.values()) counts[entry.outcome] = (counts[entry.outcome] ?? 0) + 1
      counts.runs = runs.size
      counts.delivered = received.size
      return counts
    },

    async dispose() {
      await new Promise<void>((resolve) => (sink ? sink.close(() => resolve()) : resolve()))
    },
  }
}

/** Every stored event of a run, through the cursor pages of GET /runs/:runId/events. */
export async function listRunEvents(
  baseUrl: string,
  runId: string,
  headers: Record<string, string>,
): Promise<StoredEvent[]> {
  const out: StoredEvent[] = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ limit: '1000' })
    if (cursor !== null) query.set('cursor', cursor)
    const answer = await fetch(`${baseUrl}/runs/${encodeURIComponent(runId)}/events?${query}`, { headers })
    if (answer.status === 404) return out
    if (answer.status !== 200) throw new Error(`GET events of ${runId} answered ${answer.status}`)
    const page = (await answer.json()) as { data: StoredEvent[]; nextCursor: string | null }
    out.push(...page.data)
    cursor = page.nextCursor
  } while (cursor !== null)
  return out
}
