/**
 * Dashboard: GET /dashboard/overview KPIs for the chosen window, GET /dashboard/activity over time, runs by status
 * (GET /runs?status=…&limit=1 totals), events by registry, producer DID methods, receipt coverage once receipts
 * exist, the witness tile, recent runs, and a live ticker over GET /events/stream. The figures follow the ticker:
 * every event schedules a re-read, throttled to one a second, so the KPIs move with the feed without a request
 * per event. A stack with no run at all shows how to run the demo instead of empty charts.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { ApiClient } from '../api/client.js'
import {
  DASHBOARD_WINDOWS,
  type DashboardActivity,
  type DashboardOverview,
  type DashboardWindow,
  RUN_STATUSES,
  type RunPage,
} from '../api/types.js'
import { BarChart, ColumnChart } from '../components/charts.js'
import { EventFeed } from '../components/event-feed.js'
import { RunTable } from '../components/run-table.js'
import { ErrorPanel, Loading, Section } from '../components/ui.js'
import { axisLabel } from '../dashboard/axis-label.js'
import { throttle } from '../dashboard/throttle.js'
import { useApi } from '../use-api.js'

/** Shortest gap between two live re-reads of the dashboard's figures. */
const LIVE_REFRESH_MS = 1000

async function loadDashboard(client: ApiClient, window: DashboardWindow) {
  const [overview, activity, statuses] = await Promise.all([
    client.get<DashboardOverview>('/dashboard/overview', { window }),
    client.get<DashboardActivity>('/dashboard/activity', { window }),
    Promise.all(RUN_STATUSES.map((status) => client.get<RunPage>('/runs', { status, limit: 1 }))),
  ])
  return { overview, activity, runsByStatus: RUN_STATUSES.map((status, i) => ({ status, total: statuses[i]!.total })) }
}

export function DashboardPage() {
  const [window, setWindow] = useState<DashboardWindow>('24h')
  const loaded = useApi((client) => loadDashboard(client, window), [window])
  const [painted, setPainted] = useState(false)
  useEffect(() => {
    if (loaded.data === undefined || painted) return
    performance.mark('acdp-dashboard-painted')
    setPainted(true)
  }, [loaded.data])
  const liveReload = useMemo(() => throttle(loaded.reload, LIVE_REFRESH_MS), [loaded.reload])
  useEffect(() => liveReload.cancel, [liveReload])
  return (
    <>
      <div class="page-head">
        <h1>Dashboard</h1>
        <label class="inline">
          Window{' '}
          <select
            value={window}
            onChange={(event) => setWindow((event.target as HTMLSelectElement).value as DashboardWindow)}
          >
            {DASHBOARD_WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={loaded.reload}>
          Refresh
        </button>
      </div>
      {loaded.error && <ErrorPanel error={loaded.error} what="the dashboard" />}
      {loaded.data === undefined ? (
        !loaded.error && <Loading what="the dashboard" />
      ) : (
        <DashboardBody {...loaded.data} />
      )}
      <Section title="Live events">
        <EventFeed path="/events/stream" label="Event stream" onFrame={liveReload} />
      </Section>
    </>
  )
}

function DashboardBody({ overview, activity, runsByStatus }: Awaited<ReturnType<typeof loadDashboard>>) {
  const kpis = [
    { name: 'runs', label: 'Runs', value: overview.totalRuns },
    { name: 'contexts', label: 'Contexts published', value: overview.totalContexts },
    { name: 'live', label: 'Contexts live', value: overview.totalContextsLive },
    { name: 'retracted', label: 'Retracted', value: overview.totalRetracted },
    { name: 'agents', label: 'Active agents', value: overview.totalAgents },
  ]
  const hasReceipts = overview.receiptCoverage.some((r) => r.receipt_count > 0)
  if (runsByStatus.every((r) => r.total === 0) && overview.totalContexts === 0) return <FirstRun />
  return (
    <>
      <ul class="kpis" aria-label="Key figures">
        {kpis.map((kpi) => (
          <li key={kpi.name} class="kpi" data-kpi={kpi.name}>
            <span class="kpi-value">{kpi.value.toLocaleString('en-US')}</span>
            <span class="kpi-label">{kpi.label}</span>
          </li>
        ))}
      </ul>
      <div class="grid">
        <Section title="Events over time">
          <ColumnChart
            title="Events per interval"
            points={activity.buckets.map((b) => ({
              label: axisLabel(b.start, activity.bucketMs),
              value: b.eventCount,
              detail: `${new Date(b.start).toLocaleString()}: ${b.eventCount} events, ${b.publishCount} publications`,
            }))}
          />
        </Section>
        <Section title="Runs by status (all time)">
          <BarChart
            title="Runs by status"
            unit="runs"
            bars={runsByStatus.map((r) => ({ label: r.status, value: r.total }))}
          />
        </Section>
        <Section title="Events by registry">
          <BarChart
            title="Events by registry"
            unit="events"
            bars={overview.byRegistry.map((r) => ({ label: r.registry_authority, value: r.event_count }))}
          />
        </Section>
        <Section title="Producer DID methods">
          <BarChart
            title="Publications by producer DID method"
            unit="publications"
            bars={overview.didMethods.map((m) => ({ label: m.method, value: m.publish_count }))}
          />
        </Section>
        <Section title="Receipt coverage">
          {hasReceipts ? (
            <BarChart
              title="Receipts per publications, by registry"
              unit="publications"
              bars={overview.receiptCoverage.map((r) => ({
                label: r.registry_authority,
                value: r.publish_count,
                overlay: r.receipt_count,
              }))}
            />
          ) : (
            <p class="muted">No registry receipts in this window yet.</p>
          )}
        </Section>
        <Section title="Log witness">
          <dl class="facts">
            <dt>Witnessed logs</dt>
            <dd>{overview.logWitness.witnessedLogs}</dd>
            <dt>Active alerts</dt>
            <dd>{overview.logWitness.activeAlerts}</dd>
            <dt>Unacknowledged alerts</dt>
            <dd>{overview.logWitness.unacknowledgedAlerts}</dd>
            <dt>Heads meeting quorum</dt>
            <dd>{overview.logWitness.headsMeetingQuorum}</dd>
          </dl>
        </Section>
      </div>
      <Section title="Recent runs">
        <RunTable runs={overview.recentRuns} caption="Recent runs" />
      </Section>
    </>
  )
}

/** No run and no context yet: say how to get some, rather than draw empty charts. */
function FirstRun() {
  return (
    <section class="panel first-run" aria-labelledby="first-run-heading" data-empty-state="first-run">
      <h2 id="first-run-heading">Nothing has been published into this stack yet</h2>
      <p>
        To see the console with data, run the demo from a clone of the repository: <code>npm start</code>. It builds the
        stack, starts a registry and this control plane (<code>acdp dev --demo</code>), plays a demo run of agents
        publishing and deriving contexts, and prints a link to that run here.
      </p>
      <p>
        Or publish from your own agents to a registry enrolled on the <a href="#/registries">Registries</a> page; each
        publication reaches this dashboard by webhook within a second.
      </p>
    </section>
  )
}
