/**
 * Dashboard: GET /dashboard/overview KPIs for the chosen window, GET /dashboard/activity over time, runs by status
 * (GET /runs?status=…&limit=1 totals), events by registry, producer DID methods, receipt coverage once receipts
 * exist, the witness tile, recent runs, and a live ticker over GET /events/stream.
 */
import { useEffect, useState } from 'preact/hooks'
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
import { useApi } from '../use-api.js'

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
  useEffect(() => {
    if (loaded.data !== undefined) performance.mark('acdp-dashboard-painted')
  }, [loaded.data])
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
        <EventFeed path="/events/stream" label="Event stream" />
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
  const shortTime = (iso: string) => {
    const d = new Date(iso)
    return activity.bucketMs >= 86_400_000
      ? d.toLocaleDateString()
      : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  }
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
              label: shortTime(b.start),
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
