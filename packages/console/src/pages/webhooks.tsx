/**
 * Webhooks: outbound subscriptions (GET/POST /webhooks, PATCH/DELETE /webhooks/:id; the signing secret is
 * write-only and never shown) and each subscription's deliveries (GET /webhooks/:id/deliveries) with redeliver
 * (POST /webhooks/:id/deliveries/:deliveryId/redeliver).
 */
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'
import type { WebhookDelivery, WebhookDeliveryList, WebhookSubscriptionList } from '../api/types.js'
import { ErrorPanel, Loading, Section, StatusBadge, Time } from '../components/ui.js'
import { useApi, useConsole } from '../use-api.js'

function describeError(error: unknown): string {
  return error instanceof ApiError ? `${error.errorCode}: ${error.message}` : String(error)
}

export function WebhooksPage() {
  const { client } = useConsole()
  const subscriptions = useApi((c) => c.get<WebhookSubscriptionList>('/webhooks'), [])
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [note, setNote] = useState<string | undefined>(undefined)
  const list = subscriptions.data ?? []
  const act = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action()
      setNote(what)
      subscriptions.reload()
    } catch (error) {
      setNote(describeError(error))
    }
  }
  return (
    <>
      <h1>Webhooks</h1>
      <Section title="Subscriptions">
        {subscriptions.error && <ErrorPanel error={subscriptions.error} what="subscriptions" />}
        {subscriptions.data === undefined && !subscriptions.error && <Loading what="subscriptions" />}
        {subscriptions.data !== undefined && list.length === 0 && <p class="muted">No subscription yet.</p>}
        {list.length > 0 && (
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">Outbound webhook subscriptions</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Active</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((s) => (
                  <tr key={s.id}>
                    <td class="wrap">{s.url}</td>
                    <td>{s.events.length === 0 ? 'all' : s.events.join(', ')}</td>
                    <td>{s.active ? 'yes' : 'no'}</td>
                    <td>
                      <Time value={s.createdAt} />
                    </td>
                    <td class="actions">
                      <button type="button" class="secondary" onClick={() => setSelected(s.id)}>
                        Deliveries<span class="visually-hidden"> of {s.url}</span>
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        onClick={() =>
                          act(`${s.active ? 'Paused' : 'Resumed'} ${s.url}.`, () =>
                            client.patch(`/webhooks/${encodeURIComponent(s.id)}`, { active: !s.active }),
                          )
                        }
                      >
                        {s.active ? 'Pause' : 'Resume'}
                        <span class="visually-hidden"> {s.url}</span>
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() =>
                          confirm(`Delete the subscription to ${s.url}?`) &&
                          act(`Deleted ${s.url}.`, () => client.delete(`/webhooks/${encodeURIComponent(s.id)}`))
                        }
                      >
                        Delete<span class="visually-hidden"> {s.url}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {note && <p role="status">{note}</p>}
      </Section>
      <CreateSubscription onCreated={subscriptions.reload} />
      {selected !== undefined && <Deliveries webhookId={selected} />}
    </>
  )
}

function CreateSubscription({ onCreated }: { onCreated(): void }) {
  const { client } = useConsole()
  const empty = { url: '', events: '', secret: '' }
  const [form, setForm] = useState(empty)
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>(undefined)
  const submit = async (event: Event) => {
    event.preventDefault()
    const events = form.events
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '')
    const body: Record<string, unknown> = { url: form.url.trim() }
    if (events.length > 0) body['events'] = events
    if (form.secret !== '') body['secret'] = form.secret
    try {
      await client.post('/webhooks', body)
      setForm(empty)
      setMessage({ ok: true, text: 'Subscription created.' })
      onCreated()
    } catch (error) {
      setMessage({ ok: false, text: describeError(error) })
    }
  }
  const field = (name: keyof typeof empty) => (e: Event) =>
    setForm({ ...form, [name]: (e.target as HTMLInputElement).value })
  return (
    <Section title="New subscription">
      <form class="stacked" onSubmit={submit}>
        <label>
          Destination URL
          <input type="url" required value={form.url} onInput={field('url')} placeholder="https://hooks.example/acdp" />
        </label>
        <label>
          Event types (comma-separated; empty = all)
          <input type="text" value={form.events} onInput={field('events')} placeholder="context_published" />
        </label>
        <label>
          Signing secret (write-only)
          <input type="password" autoComplete="new-password" value={form.secret} onInput={field('secret')} />
        </label>
        <button type="submit">Create subscription</button>
        {message && (
          <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
      </form>
    </Section>
  )
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const { client } = useConsole()
  const deliveries = useApi(
    (c) => c.get<WebhookDeliveryList>(`/webhooks/${encodeURIComponent(webhookId)}/deliveries`, { limit: 50 }),
    [webhookId],
  )
  const [note, setNote] = useState<string | undefined>(undefined)
  const redeliver = async (delivery: WebhookDelivery) => {
    try {
      await client.post(
        `/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`,
      )
      setNote(`Delivery ${delivery.id} queued again.`)
      deliveries.reload()
    } catch (error) {
      setNote(describeError(error))
    }
  }
  return (
    <Section title="Deliveries">
      {deliveries.error && <ErrorPanel error={deliveries.error} what="deliveries" />}
      {deliveries.data === undefined ? (
        !deliveries.error && <Loading what="deliveries" />
      ) : deliveries.data.data.length === 0 ? (
        <p class="muted">Nothing delivered to this subscription yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Attempts
                </th>
                <th scope="col">Last attempt</th>
                <th scope="col">Response</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.data.map((d) => (
                <tr key={d.id}>
                  <td>{d.eventType}</td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td class="num">{d.attempts}</td>
                  <td>
                    <Time value={d.lastAttemptAt} />
                  </td>
                  <td>{d.responseStatus ?? d.error ?? '—'}</td>
                  <td>
                    <button type="button" class="secondary" onClick={() => redeliver(d)}>
                      Redeliver<span class="visually-hidden"> {d.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {note && <p role="status">{note}</p>}
    </Section>
  )
}
