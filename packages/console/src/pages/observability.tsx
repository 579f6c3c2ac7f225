/**
 * Observability: the control plane's liveness and readiness (GET /healthz, GET /readyz, public), each enrolled
 * registry's reachability (its advertised profiles read through GET /registries/:authority/capabilities, the
 * same path the federation proxy and the witness take) and its own health and readiness probes (GET
 * /registries/:authority/health: the control plane asks the registry's /healthz and /readyz), key figures from this instance's GET /metrics, and where
 * the Prometheus endpoint and the OpenTelemetry export are.
 */
import type { RegistryHealth, RegistryProbe } from '../api/status-types.js'
import type { Enrollment, EnrollmentList, RegistryCapabilities } from '../api/types.js'
import { ErrorPanel, Loading, Section } from '../components/ui.js'
import { parsePrometheusText, type Sample, total } from '../observability/prometheus-text.js'
import { useApi } from '../use-api.js'

interface Probe {
  status: number
  body: string
}

/** A public probe, read as text whatever its status (a 503 is an answer here, not an error). */
async function probe(path: string): Promise<Probe> {
  try {
    const response = await fetch(path, { cache: 'no-store' })
    return { status: response.status, body: await response.text() }
  } catch (error) {
    return { status: 0, body: String(error) }
  }
}

const FIGURES: Array<{ label: string; name: string; where?: Record<string, string> }> = [
  { label: 'Events ingested', name: 'acdp_events_ingested_total' },
  { label: 'Ingest deliveries rejected', name: 'acdp_ingest_rejected_total' },
  { label: 'HTTP requests', name: 'http_requests_total' },
  { label: 'Open event streams', name: 'active_sse_connections' },
  { label: 'Webhook deliveries', name: 'acdp_webhook_deliveries_total' },
  { label: 'Webhook outbox pending', name: 'acdp_webhook_outbox_pending' },
  { label: 'Federation requests', name: 'acdp_federation_requests_total' },
  { label: 'OpenTelemetry spans exported', name: 'acdp_otel_spans_exported_total' },
  { label: 'OpenTelemetry spans dropped', name: 'acdp_otel_spans_dropped_total' },
]

export function ObservabilityPage() {
  const probes = useApi(async () => {
    const [healthz, readyz, metrics] = await Promise.all([probe('/healthz'), probe('/readyz'), probe('/metrics')])
    return { healthz, readyz, metrics, samples: metrics.status === 200 ? parsePrometheusText(metrics.body) : [] }
  }, [])
  return (
    <>
      <h1>Observability</h1>
      <Section title="Control plane">
        {probes.data === undefined ? (
          <Loading what="health" />
        ) : (
          <dl class="facts">
            <dt>Liveness (/healthz)</dt>
            <dd data-probe="healthz" data-ok={String(probes.data.healthz.status === 200)}>
              {describeProbe(probes.data.healthz)}
            </dd>
            <dt>Readiness (/readyz)</dt>
            <dd data-probe="readyz" data-ok={String(probes.data.readyz.status === 200)}>
              {describeProbe(probes.data.readyz)}
            </dd>
          </dl>
        )}
      </Section>
      <Registries />
      <Section title="Key metrics">
        {probes.data === undefined ? (
          <Loading what="metrics" />
        ) : probes.data.metrics.status !== 200 ? (
          <p class="error" role="alert">
            GET /metrics answered {probes.data.metrics.status}.
          </p>
        ) : (
          <Figures samples={probes.data.samples} />
        )}
        <p>
          All of this instance&apos;s metrics, in Prometheus text format: <a href="/metrics">/metrics</a> (public, for a
          scraper).
        </p>
      </Section>
      <Section title="OpenTelemetry">
        <p>
          With <code>OTEL_EXPORTER_OTLP_ENDPOINT</code> set, the control plane exports every run as a trace over OTLP
          (service name from <code>OTEL_SERVICE_NAME</code>, default <code>acdp-control-plane</code>). The span counters
          above say whether export is working on this instance: spans exported rise with every run, dropped spans mean
          the collector did not take them.
        </p>
      </Section>
    </>
  )
}

function describeProbe(p: Probe): string {
  if (p.status === 0) return `no answer (${p.body})`
  let detail: string
  try {
    const body = JSON.parse(p.body) as Record<string, unknown>
    detail = Object.entries(body)
      .filter(([, v]) => typeof v !== 'object')
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join(' · ')
  } catch {
    detail = ''
  }
  return `${p.status === 200 ? 'ok' : 'failing'} (HTTP ${p.status})${detail === '' ? '' : ` — ${detail}`}`
}

function Figures({ samples }: { samples: Sample[] }) {
  return (
    <dl class="facts" data-metrics>
      {FIGURES.map((f) => {
        const value = total(samples, f.name, f.where)
        return [
          <dt key={`${f.name}-t`}>{f.label}</dt>,
          <dd key={`${f.name}-d`} data-metric={f.name}>
            {value === undefined ? <span class="muted">not exposed</span> : value.toLocaleString('en-US')}
          </dd>,
        ]
      })}
    </dl>
  )
}

/** What a registry probe's status means, in words. */
const PROBE_TEXT: Record<RegistryProbe['status'], string> = {
  ok: 'ok',
  failing: 'failing',
  not_served: 'not served by this registry',
  unreachable: 'unreachable',
}

interface RegistryRow {
  enrollment: Enrollment
  reach: string
  profiles?: string[]
  /** The probes, or why they could not be asked. */
  health?: RegistryHealth | string
}

function Registries() {
  const loaded = useApi(async (client): Promise<RegistryRow[]> => {
    const enrollments = (await client.get<EnrollmentList>('/registries/enrollments')).data
    return Promise.all(
      enrollments.map(async (e): Promise<RegistryRow> => {
        if (!e.enabled || e.baseUrl === null) return { enrollment: e, reach: 'not asked (disabled or no base URL)' }
        const path = `/registries/${encodeURIComponent(e.authority)}`
        const [capabilities, health] = await Promise.allSettled([
          client.get<RegistryCapabilities>(`${path}/capabilities`),
          client.get<RegistryHealth>(`${path}/health`),
        ])
        const row: RegistryRow =
          capabilities.status === 'fulfilled'
            ? { enrollment: e, reach: 'reachable', profiles: capabilities.value.profiles }
            : { enrollment: e, reach: `unreachable (${(capabilities.reason as Error).message})` }
        row.health = health.status === 'fulfilled' ? health.value : (health.reason as Error).message
        return row
      }),
    )
  }, [])
  return (
    <Section title="Enrolled registries">
      {loaded.error && <ErrorPanel error={loaded.error} what="enrollments" />}
      {loaded.data === undefined ? (
        !loaded.error && <Loading what="registries" />
      ) : loaded.data.length === 0 ? (
        <p class="muted">No registry is enrolled.</p>
      ) : (
        <ul class="registry-status">
          {loaded.data.map((r) => (
            <li key={r.enrollment.authority} data-registry={r.enrollment.authority} data-reach={r.reach}>
              <strong>{r.enrollment.authority}</strong>: {r.reach}
              {r.profiles !== undefined && <span class="muted"> · {r.profiles.join(', ')}</span>}
              {r.health !== undefined && <RegistryProbes health={r.health} />}
            </li>
          ))}
        </ul>
      )}
      <p class="muted">
        Reachability is the registry&apos;s advertised profiles read through the control plane (the path the federation
        proxy and the witness use). Health and readiness are the registry&apos;s own /healthz and /readyz, asked by the
        control plane under its outbound policy when this page loads; an ACDP registry serves only /healthz, which is
        its readiness check (its storage answers).
      </p>
    </Section>
  )
}

function RegistryProbes({ health }: { health: RegistryHealth | string }) {
  if (typeof health === 'string') {
    return (
      <p class="error" data-registry-probes="error">
        Health not asked: {health}
      </p>
    )
  }
  const row = (label: string, name: 'health' | 'readiness', path: string) => {
    const p = health[name]
    return [
      <dt key={`${name}-t`}>
        {label} ({path})
      </dt>,
      <dd key={`${name}-d`} data-registry-probe={name} data-status={p.status} class={p.status === 'ok' ? 'ok' : ''}>
        {describeRegistryProbe(p)}
      </dd>,
    ]
  }
  return (
    <dl class="facts" data-registry-probes={health.authority}>
      {row('Health', 'health', '/healthz')}
      {row('Readiness', 'readiness', '/readyz')}
    </dl>
  )
}

/** The probe in one line: status, HTTP status or failure category, and the body's scalar members. */
function describeRegistryProbe(p: RegistryProbe): string {
  const parts = [PROBE_TEXT[p.status]]
  if (p.httpStatus !== null) parts.push(`(HTTP ${p.httpStatus})`)
  if (p.error !== null) parts.push(`(${p.error})`)
  const detail =
    p.body === null || p.status === 'not_served'
      ? ''
      : Object.entries(p.body)
          .filter(([, v]) => typeof v !== 'object')
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join(' · ')
  return `${parts.join(' ')}${detail === '' ? '' : ` — ${detail}`}`
}
