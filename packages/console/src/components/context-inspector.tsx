/**
 * The context inspector: fetches the context through the control plane's federation proxy (GET /contexts/{ctx_id},
 * relayed verbatim from the registry) and verifies it here, in the browser, with @acdp/protocol (verify/
 * inspect-context.ts). Shows the body, the signature, and receipt / log inclusion / witness evidence, each marked
 * verified, failed, not checked or not available with the reason, then every stage of the report the same way. The registry's DID document and the context's log evidence are relayed
 * by the control plane from the enrolled registry (GET /registries/:authority/did-document, …/log-evidence) and
 * checked here like everything else.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'
import { type Inspection, inspectContext } from '../verify/inspect-context.js'
import { trustMaterial } from '../verify/trust-material.js'
import { useConsole } from '../use-api.js'
import { VerdictMark } from './ui.js'

type State =
  | { kind: 'loading' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'loaded'; envelope: unknown; inspection: Inspection }

/** `onClose` adds a close button (the run view's side panel); the context page has none. */
export function ContextInspector({ ctxId, onClose }: { ctxId: string; onClose?: () => void }) {
  const { client } = useConsole()
  const [state, setState] = useState<State>({ kind: 'loading' })
  useEffect(() => {
    let current = true
    setState({ kind: 'loading' })
    const trust = trustMaterial(client, ctxId)
    client
      .get<unknown>(`/contexts/${encodeURIComponent(ctxId)}`)
      .then(async (envelope) => {
        const inspection = await inspectContext(envelope, await trust)
        if (current) setState({ kind: 'loaded', envelope, inspection })
      })
      .catch((error: unknown) => {
        if (!current) return
        const reason =
          error instanceof ApiError
            ? error.statusCode === 404
              ? 'the control plane could not retrieve this context (no federation proxy route, an unenrolled registry, or a context invisible to this tenant)'
              : `${error.errorCode}: ${error.message}`
            : String(error)
        setState({ kind: 'unavailable', reason })
      })
    return () => {
      current = false
    }
  }, [client, ctxId])

  return (
    <section class="panel inspector" aria-labelledby="inspector-heading" data-ctx-id={ctxId}>
      <div class="page-head">
        <h2 id="inspector-heading">Context inspector</h2>
        {onClose !== undefined && (
          <button type="button" class="secondary" onClick={onClose}>
            Close inspector
          </button>
        )}
      </div>
      <p class="mono">{ctxId}</p>
      {state.kind === 'loading' && <p role="status">Retrieving and verifying…</p>}
      {state.kind === 'unavailable' && (
        <>
          <ul class="verdicts">
            <li data-subject="body">
              <VerdictMark mark="not_available" /> Context: {state.reason}
            </li>
          </ul>
        </>
      )}
      {state.kind === 'loaded' && (
        <>
          <p class="muted">
            Verified in this browser with @acdp/protocol; the server's word is not taken for any mark.
          </p>
          <ul class="verdicts" aria-label="Verification results">
            {state.inspection.items.map((item) => (
              <li key={item.subject} data-subject={item.subject} data-mark={item.mark}>
                <VerdictMark mark={item.mark} /> <strong>{item.label}</strong>
                <span class="detail">{item.detail}</span>
              </li>
            ))}
          </ul>
          {(state.inspection.report?.warnings ?? []).map((warning) => (
            <p key={warning} class="muted" data-warning="">
              Warning: {warning}
            </p>
          ))}
          <details>
            <summary>Every stage ({state.inspection.report?.summary ?? 'not verified'})</summary>
            <ul class="verdicts" aria-label="Verification stages">
              {(state.inspection.report?.stages ?? []).map((stage) => (
                <li key={stage.name} data-stage={stage.name} data-mark={stage.state}>
                  <VerdictMark mark={stage.state} /> <strong class="mono">{stage.name}</strong>
                  <span class="detail">{stage.reason}</span>
                </li>
              ))}
            </ul>
          </details>
          <details>
            <summary>Envelope as retrieved</summary>
            <pre tabIndex={0} aria-label="Context envelope JSON">
              {JSON.stringify(state.envelope, null, 2)}
            </pre>
          </details>
        </>
      )}
    </section>
  )
}
