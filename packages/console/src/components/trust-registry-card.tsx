/**
 * One registry on the Trust page: receipt coverage and verdicts (the control plane's receipt audit), its log head
 * and how that head is witnessed, and its open alerts. Every figure carries `data-figure`/`data-value`, the number
 * as served, so a test can hold the page to the API.
 */
import type { ComponentChildren } from 'preact'
import { percent, receiptVerified, type RegistryTrustRow, type WitnessStanding } from '../trust/registry-trust.js'
import { Time, Truncated } from './ui.js'

function Figure({ name, value, children }: { name: string; value: number; children?: ComponentChildren }) {
  return (
    <span data-figure={name} data-value={value}>
      {children ?? value}
    </span>
  )
}

export function TrustRegistryCard({ row }: { row: RegistryTrustRow }) {
  const { counts } = row
  const headingId = `trust-${row.authority.replace(/[^A-Za-z0-9]+/g, '-')}`
  return (
    <article class="panel" aria-labelledby={headingId} data-trust-registry={row.authority}>
      <h3 id={headingId}>{row.authority}</h3>
      <dl class="facts">
        <dt>Enrollment</dt>
        <dd>{row.enrolled ? 'enrolled' : 'not enrolled (seen in events only)'}</dd>
        <dt>Receipt coverage</dt>
        <dd>
          <Figure name="audited" value={counts.audited} /> of <Figure name="published" value={counts.published} />{' '}
          publications audited ({percent(counts.audited, counts.published)})
        </dd>
        <dt>Receipts verified</dt>
        <dd>
          <Figure name="receipt-verified" value={receiptVerified(counts)} /> (
          {percent(receiptVerified(counts), counts.audited)} of audited;{' '}
          <Figure name="verified-historical" value={counts.verifiedHistorical} /> under a retired key)
        </dd>
        <dt>Partly checked</dt>
        <dd>
          <Figure name="structural" value={counts.structural} /> structural,{' '}
          <Figure name="no-receipt" value={counts.noReceipt} /> without a receipt
        </dd>
        <dt>Discrepancies</dt>
        <dd class={counts.discrepancies > 0 ? 'error' : undefined}>
          <Figure name="discrepancies" value={counts.discrepancies} /> (
          <Figure name="open-discrepancies" value={counts.openDiscrepancies} /> open)
        </dd>
        <dt>Audit errors</dt>
        <dd>
          <Figure name="errors" value={counts.errors} /> <span class="muted">(environmental, not a trust flag)</span>
        </dd>
        <WitnessFacts witness={row.witness} />
        <dt>Witness alerts</dt>
        <dd data-figure="open-witness-alerts" data-value={row.openWitnessAlerts.length}>
          {row.openWitnessAlerts.length === 0 ? (
            'none open'
          ) : (
            <span class="error">
              {row.openWitnessAlerts.map((alert) => alert.reason).join(', ')} (since{' '}
              <Time value={row.openWitnessAlerts[0]?.at} />)
            </span>
          )}
        </dd>
      </dl>
    </article>
  )
}

function WitnessFacts({ witness }: { witness: WitnessStanding }) {
  if (witness.kind !== 'head') {
    const text = {
      off: 'the log witness is not part of this control plane',
      not_witnessed: 'not witnessed (no transparency log profile or no base URL)',
      no_head: 'witnessed, no checkpoint verified yet',
    }[witness.kind]
    return (
      <>
        <dt>Log head</dt>
        <dd class="muted" data-witness={witness.kind}>
          {text}
        </dd>
      </>
    )
  }
  return (
    <>
      <dt>Log head</dt>
      <dd data-witness="head">
        size <Figure name="tree-size" value={witness.treeSize} />, root{' '}
        <span class="mono">
          <Truncated value={witness.rootHash} max={24} />
        </span>
        , verified <Time value={witness.lastSuccessAt} />
      </dd>
      <dt>Witnessed</dt>
      <dd>
        {witness.consistent === null
          ? 'first head seen'
          : witness.consistent
            ? 'consistent with the previous head'
            : 'not consistent with the previous head'}
        ;{' '}
        {witness.cosignatures === null ? (
          'cosignatures not counted (quorum consumption off)'
        ) : (
          <>
            <Figure name="cosignatures" value={witness.cosignatures} /> valid cosignature
            {witness.cosignatures === 1 ? '' : 's'}, quorum{' '}
            <strong class={witness.quorum ? 'ok' : 'error'} data-quorum={witness.quorum ? 'met' : 'not-met'}>
              {witness.quorum ? 'met' : 'not met'}
            </strong>
          </>
        )}
        {witness.failures > 0 && (
          <>
            ; <Figure name="poll-failures" value={witness.failures} /> failed polls since
          </>
        )}
      </dd>
    </>
  )
}
