/**
 * One registry on the Trust page: receipt coverage and verdicts (the control plane's receipt audit), the log
 * evidence the control plane established (publications matched to a log leaf, under the witnessed head, fully
 * evidenced), its log head and how that head is witnessed, and its open alerts. Every figure carries `data-figure`/`data-value`, the number
 * as served, so a test can hold the page to the API.
 */
import type { ComponentChildren } from 'preact'
import type { CosignerStanding, WitnessCosigner } from '../api/trust-types.js'
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
        <dt>Log evidence</dt>
        <dd>
          <Figure name="in-log" value={counts.inLog} /> matched to a log leaf,{' '}
          <Figure name="under-witnessed-head" value={counts.underWitnessedHead} /> under the witnessed head
        </dd>
        <dt>Fully evidenced</dt>
        <dd>
          <Figure name="fully-evidenced" value={counts.fullyEvidenced} /> of{' '}
          <Figure name="evidence-published" value={counts.published} /> (
          {percent(counts.fullyEvidenced, counts.published)}:{' '}
          <span class="muted">receipt verified, leaf under the witnessed head, quorum met when on</span>)
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
        {witness.failures > 0 && (
          <>
            ; <Figure name="poll-failures" value={witness.failures} /> failed polls since
          </>
        )}
      </dd>
      <dt>Quorum</dt>
      <dd data-quorum-line>
        <QuorumLine witness={witness} />
      </dd>
      <dt>Cosigned by</dt>
      <dd>
        <CosignerList cosigners={witness.cosigners} />
      </dd>
    </>
  )
}

type HeadStanding = Extract<WitnessStanding, { kind: 'head' }>

/** "2 of 2 needed — met": the count, the minimum in force and the verdict, in words (never colour alone). */
function QuorumLine({ witness }: { witness: HeadStanding }) {
  if (witness.cosignatures === null) {
    return (
      <span data-quorum="off">
        off <span class="muted">(cosignatures not counted: quorum consumption is off)</span>
      </span>
    )
  }
  const met = witness.quorum === true
  return (
    <>
      <Figure name="cosignatures" value={witness.cosignatures} />
      {witness.quorumMin === null ? (
        ' counted'
      ) : (
        <>
          {' of '}
          <Figure name="quorum-min" value={witness.quorumMin} /> needed
        </>
      )}
      {' — '}
      <strong class={met ? 'ok' : 'error'} data-quorum={met ? 'met' : 'not-met'}>
        {met ? 'met' : 'not met'}
      </strong>
    </>
  )
}

/** What each standing means for the quorum, as read beside the name. */
const STANDING_TEXT: Record<CosignerStanding, string> = {
  counted: 'counted',
  invalid: 'invalid — does not count',
  untrusted: 'not a trusted witness — does not count',
  unchecked: 'not checked (quorum consumption off)',
  own: 'our own cosignature — never counts',
}

function CosignerList({ cosigners }: { cosigners: WitnessCosigner[] | null }) {
  if (cosigners === null) {
    return (
      <span class="muted" data-cosigners="not-recorded">
        not recorded for this head yet
      </span>
    )
  }
  if (cosigners.length === 0) {
    return (
      <span class="muted" data-cosigners="none">
        nobody: the registry serves this head without cosignatures
      </span>
    )
  }
  return (
    <ul class="cosigners" data-cosigners="listed">
      {cosigners.map((cosigner, index) => (
        <li key={`${index}`} data-cosigner={cosigner.name ?? ''} data-standing={cosigner.standing}>
          {cosigner.name === null ? (
            <span class="muted">(names no witness)</span>
          ) : (
            <span class="mono">{cosigner.name}</span>
          )}{' '}
          <span class={cosigner.standing === 'counted' ? 'ok' : 'muted'}>— {STANDING_TEXT[cosigner.standing]}</span>
        </li>
      ))}
    </ul>
  )
}
