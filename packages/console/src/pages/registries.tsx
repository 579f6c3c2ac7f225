/**
 * Registries: observed registries (GET /registries), enrollments (GET /registries/enrollments; secrets are never
 * returned, only whether one is set), the enroll form for admins (POST /registries/enroll), and the log witness
 * (GET /registries/log-witness/alerts, GET /registries/:authority/log-witness, POST …/ack) when this control plane
 * serves it — a 404 there means the witness is not part of this server, and the section says so. Each enabled
 * enrollment with a base URL shows the profiles its registry advertises (GET /registries/:authority/capabilities).
 */
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'
import type {
  Enrollment,
  EnrollmentList,
  RegistryCapabilities,
  RegistryList,
  WitnessAlertList,
  WitnessState,
} from '../api/types.js'
import { ErrorPanel, Loading, Section, Time, Truncated, Unavailable } from '../components/ui.js'
import { useApi, useConsole } from '../use-api.js'

export function RegistriesPage() {
  const registries = useApi((client) => client.get<RegistryList>('/registries'), [])
  const enrollments = useApi((client) => client.get<EnrollmentList>('/registries/enrollments'), [])
  const { session } = useConsole()
  return (
    <>
      <h1>Registries</h1>
      <Section title="Observed registries">
        {registries.error && <ErrorPanel error={registries.error} what="registries" />}
        {registries.data === undefined ? (
          !registries.error && <Loading what="registries" />
        ) : registries.data.data.length === 0 ? (
          <p class="muted">No registry has sent events yet.</p>
        ) : (
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">Registries seen in ingested events</caption>
              <thead>
                <tr>
                  <th scope="col">Authority</th>
                  <th scope="col">Base URL</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                  <th scope="col" class="num">
                    Events
                  </th>
                </tr>
              </thead>
              <tbody>
                {registries.data.data.map((r) => (
                  <tr key={r.authority}>
                    <td>{r.authority}</td>
                    <td>{r.baseUrl ?? '—'}</td>
                    <td>
                      <Time value={r.firstSeen} />
                    </td>
                    <td>
                      <Time value={r.lastSeen} />
                    </td>
                    <td class="num">{r.eventCount}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title="Enrollments">
        {enrollments.error && <ErrorPanel error={enrollments.error} what="enrollments" />}
        {enrollments.data === undefined ? (
          !enrollments.error && <Loading what="enrollments" />
        ) : (
          <EnrollmentTable enrollments={enrollments.data.data} />
        )}
      </Section>
      {session.isAdmin ? (
        <EnrollForm onEnrolled={enrollments.reload} />
      ) : (
        <Section title="Enroll a registry">
          <p class="muted">Enrolling needs an admin key; this key is not one.</p>
        </Section>
      )}
      <WitnessSection enrollments={enrollments.data?.data ?? []} />
    </>
  )
}

function EnrollmentTable({ enrollments }: { enrollments: Enrollment[] }) {
  if (enrollments.length === 0) return <p class="muted">No registry is enrolled.</p>
  return (
    <div class="table-scroll">
      <table data-testid="enrollments">
        <caption class="visually-hidden">Enrolled registries</caption>
        <thead>
          <tr>
            <th scope="col">Authority</th>
            <th scope="col">Base URL</th>
            <th scope="col">Registry DID</th>
            <th scope="col">Enabled</th>
            <th scope="col">Webhook secret</th>
            <th scope="col">Read credential</th>
            <th scope="col">Advertised profiles</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {enrollments.map((e) => (
            <tr key={e.authority} data-authority={e.authority}>
              <td>{e.authority}</td>
              <td>{e.baseUrl ?? '—'}</td>
              <td>{e.registryDid ?? '—'}</td>
              <td>{e.enabled ? 'yes' : 'no'}</td>
              <td>{e.hasWebhookSecret ? 'set (never shown)' : 'not set'}</td>
              <td data-read-credential>{e.hasReadCredential ? 'set (never shown)' : 'none: reads are anonymous'}</td>
              <td data-profiles>
                {e.enabled && e.baseUrl !== null ? <AdvertisedProfiles authority={e.authority} /> : '—'}
              </td>
              <td>
                <Time value={e.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * The profiles the registry advertises in its capabilities document, read through the control plane
 * (GET /registries/:authority/capabilities); the registry's own word, shown as such.
 */
function AdvertisedProfiles({ authority }: { authority: string }) {
  const capabilities = useApi(
    (client) => client.get<RegistryCapabilities>(`/registries/${encodeURIComponent(authority)}/capabilities`),
    [authority],
  )
  if (capabilities.error) {
    const reason = capabilities.error instanceof ApiError ? capabilities.error.errorCode : 'error'
    return <span class="muted">not available ({reason})</span>
  }
  if (capabilities.data === undefined) return <span class="muted">…</span>
  if (capabilities.data.profiles.length === 0) return <span class="muted">none</span>
  return (
    <ul class="tags" aria-label={`Profiles advertised by ${authority}`}>
      {capabilities.data.profiles.map((profile) => (
        <li key={profile} class="mono">
          {profile}
        </li>
      ))}
    </ul>
  )
}

function EnrollForm({ onEnrolled }: { onEnrolled(): void }) {
  const { client } = useConsole()
  const empty = { authority: '', baseUrl: '', registryDid: '', webhookSecret: '', readCredential: '', enabled: true }
  const [form, setForm] = useState(empty)
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>(undefined)
  const submit = async (event: Event) => {
    event.preventDefault()
    const body: Record<string, unknown> = { authority: form.authority.trim(), enabled: form.enabled }
    if (form.baseUrl.trim() !== '') body['baseUrl'] = form.baseUrl.trim()
    if (form.registryDid.trim() !== '') body['registryDid'] = form.registryDid.trim()
    if (form.webhookSecret !== '') body['webhookSecret'] = form.webhookSecret
    // Left empty, an update keeps the stored credential (POST /registries/enroll: absent keeps, null clears).
    if (form.readCredential !== '') body['readCredential'] = form.readCredential
    try {
      const saved = await client.post<Enrollment>('/registries/enroll', body)
      // The secret and the credential leave the page's memory as soon as the server has them.
      setForm(empty)
      setMessage({ ok: true, text: `Enrolled ${saved.authority}.` })
      onEnrolled()
    } catch (error) {
      setMessage({
        ok: false,
        text: error instanceof ApiError ? `${error.errorCode}: ${error.message}` : String(error),
      })
    }
  }
  const field = (name: keyof typeof empty) => (e: Event) =>
    setForm({ ...form, [name]: (e.target as HTMLInputElement).value })
  return (
    <Section title="Enroll a registry">
      <form class="stacked" onSubmit={submit}>
        <label>
          Authority (host or host:port)
          <input type="text" required value={form.authority} onInput={field('authority')} />
        </label>
        <label>
          Base URL
          <input type="url" value={form.baseUrl} onInput={field('baseUrl')} placeholder="https://registry.example" />
        </label>
        <label>
          Registry DID
          <input
            type="text"
            value={form.registryDid}
            onInput={field('registryDid')}
            placeholder="did:web:registry.example"
          />
        </label>
        <label>
          Webhook secret (at least 16 characters; write-only)
          <input
            type="password"
            autoComplete="new-password"
            value={form.webhookSecret}
            onInput={field('webhookSecret')}
          />
        </label>
        <label>
          Read credential (a bearer token the registry accepts for reads; optional, write-only): search, lineage and
          contexts are then read with it instead of anonymously
          <input type="password" autoComplete="off" value={form.readCredential} onInput={field('readCredential')} />
        </label>
        <label class="inline">
          <input
            type="checkbox"
            checked={form.enabled}
            onChange={(e) => setForm({ ...form, enabled: (e.target as HTMLInputElement).checked })}
          />{' '}
          Enabled
        </label>
        <button type="submit">Enroll</button>
        {message && (
          <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
      </form>
    </Section>
  )
}

function WitnessSection({ enrollments }: { enrollments: Enrollment[] }) {
  const { client, session } = useConsole()
  const alerts = useApi(
    (c) => c.get<WitnessAlertList>('/registries/log-witness/alerts', { includeAcknowledged: true }),
    [],
  )
  const [note, setNote] = useState<string | undefined>(undefined)
  if (alerts.error?.isNotFound) {
    return (
      <Section title="Log witness">
        <Unavailable feature="The transparency-log witness" />
      </Section>
    )
  }
  const acknowledge = async (authority: string) => {
    try {
      await client.post(`/registries/${encodeURIComponent(authority)}/log-witness/ack`)
      setNote(`Acknowledged the alert for ${authority}.`)
      alerts.reload()
    } catch (error) {
      setNote(error instanceof ApiError ? `${error.errorCode}: ${error.message}` : String(error))
    }
  }
  const list = alerts.data?.data ?? []
  return (
    <Section title="Log witness">
      {alerts.error && <ErrorPanel error={alerts.error} what="witness alerts" />}
      {alerts.loading && alerts.data === undefined && <Loading what="witness alerts" />}
      {alerts.data !== undefined && list.length === 0 && <p class="muted">No witness alerts.</p>}
      {list.length > 0 && (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Witness alerts</caption>
            <thead>
              <tr>
                <th scope="col">Registry</th>
                <th scope="col">Reason</th>
                <th scope="col">Detected</th>
                <th scope="col">State</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {list.map((alert) => (
                <tr
                  key={alert.id}
                  data-witness-alert={alert.authority}
                  data-state={alert.acknowledgedAt === null ? 'active' : 'acknowledged'}
                >
                  <td>{alert.authority}</td>
                  <td>{alert.reason}</td>
                  <td>
                    <Time value={alert.at} />
                  </td>
                  <td>
                    {alert.acknowledgedAt === null ? (
                      'active'
                    ) : (
                      <>
                        acknowledged by {alert.acknowledgedBy ?? 'unknown'} <Time value={alert.acknowledgedAt} />
                      </>
                    )}
                  </td>
                  <td>
                    {session.isAdmin && alert.acknowledgedAt === null ? (
                      <button type="button" onClick={() => acknowledge(alert.authority)}>
                        Acknowledge<span class="visually-hidden"> the alert for {alert.authority}</span>
                      </button>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {note && <p role="status">{note}</p>}
      <WitnessHeads authorities={enrollments.map((e) => e.authority)} />
    </Section>
  )
}

/** Each enrolled registry's retained head; a 404 for one registry means it is not witnessed (no log profile). */
function WitnessHeads({ authorities }: { authorities: string[] }) {
  const heads = useApi(
    (client) =>
      Promise.all(
        authorities.map((authority) =>
          client.get<WitnessState>(`/registries/${encodeURIComponent(authority)}/log-witness`).then(
            (state): { authority: string; state: WitnessState | null } => ({ authority, state }),
            (error: unknown) => {
              if (error instanceof ApiError && error.isNotFound) return { authority, state: null }
              throw error
            },
          ),
        ),
      ),
    [authorities.join(',')],
  )
  if (heads.error) return <ErrorPanel error={heads.error} what="witnessed heads" />
  if (heads.data === undefined || heads.data.length === 0) return null
  return (
    <div class="table-scroll">
      <table>
        <caption>Witnessed heads of enrolled registries</caption>
        <thead>
          <tr>
            <th scope="col">Registry</th>
            <th scope="col" class="num">
              Tree size
            </th>
            <th scope="col">Root hash</th>
            <th scope="col">Last verified</th>
            <th scope="col">Quorum</th>
            <th scope="col">Failures</th>
          </tr>
        </thead>
        <tbody>
          {heads.data.map(({ authority, state }) => {
            const latest = state?.checkpoints[0]
            return (
              <tr
                key={authority}
                data-witness-head={authority}
                data-tree-size={state?.treeSize ?? ''}
                data-failures={state?.consecutiveFailures ?? ''}
              >
                <td>{authority}</td>
                {state === null ? (
                  <td colSpan={5} class="muted">
                    not witnessed
                  </td>
                ) : (
                  <>
                    <td class="num">{state.treeSize ?? '—'}</td>
                    <td class="mono">
                      <Truncated value={state.rootHash} max={30} />
                    </td>
                    <td>
                      <Time value={state.lastSuccessAt} />
                    </td>
                    <td>
                      {latest?.meetsQuorum === null || latest === undefined
                        ? '—'
                        : `${latest.meetsQuorum ? 'met' : 'not met'} (${latest.witnessedCount ?? 0})`}
                    </td>
                    <td>
                      {state.consecutiveFailures}
                      {state.lastFailure ? ` (${state.lastFailure})` : ''}
                    </td>
                  </>
                )}
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
