/**
 * One run: summary (GET /runs/:runId), the lineage DAG (GET /runs/:runId/lineage, re-read whenever the run's
 * stream reports a new context, so it grows live), the run's live event feed over GET /runs/:runId/events/stream
 * (resumes with Last-Event-ID after a drop), recent history (GET /runs/:runId/events) and the context inspector.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { EventPage, Run, RunDetail, RunLineage } from '../api/types.js'
import { ContextInspector } from '../components/context-inspector.js'
import { ContextLink } from '../components/context-link.js'
import { EventFeed } from '../components/event-feed.js'
import { LineageGraph } from '../components/lineage-graph.js'
import { ErrorPanel, Loading, Section, StatusBadge, Time, Truncated } from '../components/ui.js'
import { href } from '../router.js'
import { useApi, useConsole } from '../use-api.js'
import { useEventStream } from '../use-event-stream.js'
import { mapLimit } from '../verify/map-limit.js'
import { type NodeResult, verdictCount } from '../verify/node-verdict.js'
import { verifyNode } from '../verify/verify-node.js'

/** Contexts verified at once by "Verify this run". */
const VERIFY_CONCURRENCY = 4

export function RunDetailPage({ runId }: { runId: string }) {
  const run = useApi((client) => client.get<RunDetail>(`/runs/${encodeURIComponent(runId)}`), [runId])
  const [selected, setSelected] = useState<string | undefined>(undefined)
  return (
    <>
      <p>
        <a href={href('runs')}>← All runs</a>
      </p>
      <h1>
        Run <span class="mono">{runId}</span>
      </h1>
      {run.error && <ErrorPanel error={run.error} what="the run" />}
      {run.data === undefined ? !run.error && <Loading what="the run" /> : <RunSummary run={run.data} />}
      {run.data !== undefined && (
        <>
          <LiveLineage runId={runId} selected={selected} onSelect={setSelected} onChange={run.reload} />
          {selected !== undefined && (
            // Keyed by context: selecting another node starts a fresh inspection, never a mix of two.
            <ContextInspector key={selected} ctxId={selected} onClose={() => setSelected(undefined)} />
          )}
          <Section title="Live run events">
            <EventFeed path={`/runs/${encodeURIComponent(runId)}/events/stream`} label="Run event stream" />
          </Section>
          <RunHistory runId={runId} />
        </>
      )}
    </>
  )
}

function RunSummary({ run }: { run: Run }) {
  return (
    <Section title="Summary">
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={run.status} />
        </dd>
        <dt>Scenario</dt>
        <dd>{run.scenarioId}</dd>
        <dt>Started</dt>
        <dd>
          <Time value={run.startedAt} />
        </dd>
        <dt>Completed</dt>
        <dd>
          <Time value={run.completedAt} />
        </dd>
        <dt>Contexts</dt>
        <dd data-testid="run-contexts">{run.contextsCount}</dd>
        <dt>Events</dt>
        <dd>{run.eventsCount}</dd>
        <dt>Registries</dt>
        <dd>{run.registries.join(', ') || '—'}</dd>
      </dl>
    </Section>
  )
}

/** The DAG, re-read (coalesced) whenever the run's stream carries a publication or lifecycle event. */
function LiveLineage({
  runId,
  selected,
  onSelect,
  onChange,
}: {
  runId: string
  selected: string | undefined
  onSelect(ctxId: string): void
  onChange(): void
}) {
  const { client } = useConsole()
  const [lineage, setLineage] = useState<RunLineage | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const refresh = useCallback(() => {
    client.get<RunLineage>(`/runs/${encodeURIComponent(runId)}/lineage`).then(
      (value) => {
        setLineage(value)
        setError(undefined)
      },
      (e: Error) => setError(e.message),
    )
  }, [client, runId])
  useEffect(() => {
    refresh()
    return () => clearTimeout(pending.current)
  }, [refresh])
  useEventStream(`/runs/${encodeURIComponent(runId)}/events/stream`, (frame) => {
    if (!frame.event.startsWith('context_')) return
    clearTimeout(pending.current)
    pending.current = setTimeout(() => {
      refresh()
      onChange()
    }, 150)
  })
  const [results, setResults] = useState<ReadonlyMap<string, NodeResult>>(new Map())
  const [verifying, setVerifying] = useState(false)
  const verifyRun = async () => {
    if (lineage === undefined) return
    setVerifying(true)
    setResults(new Map())
    try {
      await mapLimit(lineage.nodes, VERIFY_CONCURRENCY, async (node) => {
        const result = await verifyNode(client, node.ctxId)
        setResults((previous) => new Map(previous).set(node.ctxId, result))
      })
    } finally {
      setVerifying(false)
    }
  }
  const count = verdictCount([...results.values()].map((r) => r.verdict))
  return (
    <Section title="Lineage">
      {error && (
        <p class="error" role="alert">
          Could not load the lineage: {error}
        </p>
      )}
      {lineage === undefined ? (
        !error && <Loading what="the lineage" />
      ) : (
        <>
          <div class="page-head">
            <p class="muted">Select a context to retrieve it and verify it in this browser.</p>
            <button type="button" onClick={() => void verifyRun()} disabled={verifying || lineage.nodes.length === 0}>
              {verifying ? 'Verifying…' : 'Verify this run'}
            </button>
          </div>
          <p
            role="status"
            class="verify-count"
            data-verified={count.verified}
            data-failed={count.failed}
            data-unavailable={count.unavailable}
            data-done={results.size > 0 && !verifying ? 'true' : 'false'}
          >
            {results.size === 0
              ? ''
              : `${verifying ? 'Verifying: ' : ''}${count.verified} of ${lineage.nodes.length} verified · ${count.failed} failed · ${count.unavailable} unavailable`}
          </p>
          <LineageGraph lineage={lineage} selected={selected} onSelect={onSelect} results={results} />
        </>
      )}
    </Section>
  )
}

function RunHistory({ runId }: { runId: string }) {
  const events = useApi(
    (client) => client.get<EventPage>(`/runs/${encodeURIComponent(runId)}/events`, { limit: 100 }),
    [runId],
  )
  return (
    <Section title="Run history">
      {events.error && <ErrorPanel error={events.error} what="the run's events" />}
      {events.data === undefined ? (
        !events.error && <Loading what="the run's events" />
      ) : events.data.data.length === 0 ? (
        <p class="muted">No events recorded.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Events of run {runId}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Type</th>
                <th scope="col">Context</th>
                <th scope="col">Agent</th>
              </tr>
            </thead>
            <tbody>
              {events.data.data.map((event) => (
                <tr key={event.id}>
                  <td>
                    <Time value={event.eventTs} />
                  </td>
                  <td>{event.eventType}</td>
                  <td>
                    <ContextLink ctxId={event.ctxId} />
                  </td>
                  <td>
                    <Truncated value={event.agentId} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  )
}
