/**
 * The context inspector: fetches the context through the control plane's federation proxy (GET /contexts/{ctx_id},
 * relayed verbatim from the registry) and verifies it here, in the browser, with @acdp/protocol (verify/
 * inspect-context.ts). Shows a retraction banner when the registry serves the context as retracted; the body, the
 * signature, and receipt / log inclusion / witness evidence, each marked verified, failed, not checked or not
 * available with the reason; the lineage head receipt and key revocation stages as rows of their own; the
 * registry's state; the previous and next versions (the next one from the lineage, GET
 * /registries/:authority/lineages/:lineageId); the DataRefs with their hash verdicts; then every stage of the
 * report, and the body and envelope as JSON (the body with a copy button). The registry's DID document and the
 * context's log evidence are relayed by the control plane from the enrolled registry (GET
 * /registries/:authority/did-document, …/log-evidence) and checked here like everything else. Everything is
 * keyed by ctx_id, so a route change starts from nothing.
 */
import type { RevocationLookup, VerificationStage } from '@acdp/protocol/verify'
import { useEffect, useState } from 'preact/hooks'
import { type ApiClient, ApiError } from '../api/client.js'
import { dataRefRows } from '../inspector/data-ref-rows.js'
import { evidenceRow } from '../inspector/evidence-row.js'
import { readRegistryState, type RegistryStateView } from '../inspector/registry-state.js'
import { retractionNotice } from '../inspector/retraction.js'
import { neighbours } from '../inspector/supersession.js'
import { fetchLineage } from '../lineage/fetch-lineage.js'
import { type HeadVerdict, verifyHeadReceipt } from '../lineage/head-receipt.js'
import { type LineageVersion, readVersions } from '../lineage/lineage-history.js'
import {
  browserKeyResolver,
  type Inspection,
  inspectContext,
  type RegistryTrustMaterial,
} from '../verify/inspect-context.js'
import { lookUpRevocations } from '../verify/revocation-lookup.js'
import { verifyDataRefStages } from '../verify/verify-data-ref-stages.js'
import { trustMaterial } from '../verify/trust-material.js'
import { useConsole } from '../use-api.js'
import { CopyButton } from './inspector/copy-button.js'
import { DataRefList } from './inspector/data-ref-list.js'
import { EvidenceStageRow } from './inspector/evidence-stage-row.js'
import { RegistryStateBlock } from './inspector/registry-state-block.js'
import { RetractionBanner } from './inspector/retraction-banner.js'
import { SupersessionLinks } from './inspector/supersession-links.js'
import { VerdictMark } from './ui.js'

type LineageAnswer = { versions: LineageVersion[]; head: HeadVerdict } | { problem: string }

type State =
  | { kind: 'loading' }
  | { kind: 'unavailable'; reason: string }
  | {
      kind: 'loaded'
      envelope: unknown
      inspection: Inspection
      registryState: RegistryStateView
      lineage: LineageAnswer
      dataRefStages: VerificationStage[]
      /** How the producer's key revocations were found, or why they were not. */
      revocationNote: string
    }

function describe(error: unknown): string {
  return error instanceof ApiError ? `${error.errorCode}: ${error.message}` : String(error)
}

/** The producer's key revocations on the context's registry, as the CLI finds them; or why they were not looked up. */
async function revocationsOf(
  client: ApiClient,
  envelope: unknown,
  state: RegistryStateView,
  trust: RegistryTrustMaterial,
): Promise<RevocationLookup> {
  const agentId = (envelope as { body?: { agent_id?: unknown } } | null)?.body?.agent_id
  if (state.authority === null || typeof agentId !== 'string') {
    return { revocations: undefined, note: 'revocations not looked up: the body names no registry or producer' }
  }
  return lookUpRevocations(client, state.authority, agentId, browserKeyResolver(trust.didDocument))
}

/** The context's lineage as its registry serves it, with the lineage head receipt checked; or why it is not had. */
async function lineageOf(
  client: ApiClient,
  state: RegistryStateView,
  trust: RegistryTrustMaterial,
): Promise<LineageAnswer> {
  if (state.authority === null || state.lineageId === null) return { problem: 'the body names no lineage' }
  try {
    const lineage = await fetchLineage(client, state.authority, state.lineageId)
    const head = await verifyHeadReceipt(
      lineage.current,
      state.authority,
      state.lineageId,
      trust.didDocument,
      trust.now,
    )
    return { versions: readVersions(Array.isArray(lineage.versions) ? lineage.versions : []), head }
  } catch (error) {
    return { problem: `the lineage could not be retrieved (${describe(error)})` }
  }
}

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
        const material = await trust
        const registryState = readRegistryState(envelope)
        const [revocations, lineage] = await Promise.all([
          revocationsOf(client, envelope, registryState, material),
          lineageOf(client, registryState, material),
        ])
        const inspection = await inspectContext(envelope, {
          ...material,
          ...(revocations.revocations === undefined ? {} : { revocations: revocations.revocations }),
        })
        const dataRefStages = await verifyDataRefStages(envelope, inspection, location.origin)
        if (current) {
          setState({
            kind: 'loaded',
            envelope,
            inspection,
            registryState,
            lineage,
            dataRefStages,
            revocationNote: revocations.note,
          })
        }
      })
      .catch((error: unknown) => {
        if (!current) return
        const reason =
          error instanceof ApiError && error.statusCode === 404
            ? 'the control plane could not retrieve this context (no federation proxy route, an unenrolled registry, or a context invisible to this tenant)'
            : describe(error)
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
      {state.kind === 'loaded' && <Loaded ctxId={ctxId} {...state} />}
    </section>
  )
}

function Loaded({
  ctxId,
  envelope,
  inspection,
  registryState,
  lineage,
  dataRefStages,
  revocationNote,
}: Extract<State, { kind: 'loaded' }> & { ctxId: string }) {
  const body = (envelope as { body?: unknown } | null)?.body
  const bodyJson = JSON.stringify(body ?? null, null, 2)
  const report = inspection.report
  return (
    <>
      <RetractionBanner notice={retractionNotice(envelope)} />
      <p class="muted">Verified in this browser with @acdp/protocol; the server's word is not taken for any mark.</p>
      <ul class="verdicts" aria-label="Verification results">
        {inspection.items.map((item) => (
          <li key={item.subject} data-subject={item.subject} data-mark={item.mark}>
            <VerdictMark mark={item.mark} /> <strong>{item.label}</strong>
            <span class="detail">{item.detail}</span>
          </li>
        ))}
        <EvidenceStageRow
          label="Lineage head receipt"
          row={evidenceRow(report, 'lineage_head_receipt', { fallback: 'head' in lineage ? lineage.head : undefined })}
        />
        <EvidenceStageRow
          label="Key revocation"
          row={evidenceRow(report, 'key_revocation', { note: revocationNote })}
        />
      </ul>
      {(report?.warnings ?? []).map((warning) => (
        <p key={warning} class="muted" data-warning="">
          Warning: {warning}
        </p>
      ))}
      <RegistryStateBlock state={registryState} />
      <SupersessionLinks neighbours={neighbours(ctxId, registryState.supersedes, lineage)} />
      <DataRefList rows={dataRefRows(envelope, dataRefStages)} />
      <details>
        <summary>Every stage ({report?.summary ?? 'not verified'})</summary>
        <ul class="verdicts" aria-label="Verification stages">
          {(report?.stages ?? []).map((stage) => (
            <li key={stage.name} data-stage={stage.name} data-mark={stage.state}>
              <VerdictMark mark={stage.state} /> <strong class="mono">{stage.name}</strong>
              <span class="detail">{stage.reason}</span>
            </li>
          ))}
        </ul>
      </details>
      <section aria-labelledby="body-json-heading" class="inspector-block">
        <h3 id="body-json-heading">Body</h3>
        <CopyButton text={bodyJson} label="Copy body JSON" />
        <details>
          <summary>Body as JSON</summary>
          <pre tabIndex={0} aria-label="Context body JSON" data-body-json="">
            {bodyJson}
          </pre>
        </details>
      </section>
      <details>
        <summary>Envelope as retrieved</summary>
        <pre tabIndex={0} aria-label="Context envelope JSON">
          {JSON.stringify(envelope, null, 2)}
        </pre>
      </details>
    </>
  )
}
