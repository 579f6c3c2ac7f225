/**
 * Trust: per registry, how much of what it announced the control plane's receipt audit has checked and what it
 * found, its log head and how that head is witnessed, and its open alerts; the contexts whose receipt evidence
 * failed; per run, how many publications are fully evidenced (receipt verified, leaf matched and under the witnessed
 * head, quorum met when on), with the breakdown. A handful of reads for the whole page (trust/load-trust.ts): the
 * control plane aggregates; the inclusion proof and cosignatures of one context are checked in the browser on its
 * page.
 */
import type { AuditVerdict, RunAuditTotals } from '../api/trust-types.js'
import { ContextLink } from '../components/context-link.js'
import { TrustRegistryCard } from '../components/trust-registry-card.js'
import { ErrorPanel, Loading, Section, Time, Unavailable } from '../components/ui.js'
import { href } from '../router.js'
import { loadTrust, TRUST_FAILED, TRUST_RUNS } from '../trust/load-trust.js'
import { percent, receiptVerified, registryTrustRows } from '../trust/registry-trust.js'
import { useApi } from '../use-api.js'

export function TrustPage() {
  const loaded = useApi(loadTrust, [])
  if (loaded.error) {
    return (
      <>
        <h1>Trust</h1>
        <ErrorPanel error={loaded.error} what="trust evidence" />
      </>
    )
  }
  if (loaded.data === undefined) {
    return (
      <>
        <h1>Trust</h1>
        <Loading what="trust evidence" />
      </>
    )
  }
  const data = loaded.data
  const rows = registryTrustRows({
    enrollments: data.enrollments,
    totals: data.summary.registries,
    witness: data.witness,
    alerts: data.alerts ?? [],
  })
  return (
    <>
      <div class="page-head">
        <h1>Trust</h1>
        <button type="button" class="secondary" onClick={loaded.reload}>
          Refresh
        </button>
      </div>
      <Section title="Registries">
        {data.alerts === null && <Unavailable feature="The transparency-log witness" />}
        {rows.length === 0 ? (
          <p class="muted">No registry is enrolled and none has announced a publication yet.</p>
        ) : (
          <div class="grid">
            {rows.map((row) => (
              <TrustRegistryCard key={row.authority} row={row} />
            ))}
          </div>
        )}
      </Section>
      <Section title="Contexts whose evidence failed">
        <FailedContexts verdicts={data.failed.data} more={data.failed.nextBefore !== null} />
      </Section>
      <Section title="Runs">
        <RunsEvidence runs={data.summary.runs} />
      </Section>
    </>
  )
}

function FailedContexts({ verdicts, more }: { verdicts: AuditVerdict[]; more: boolean }) {
  if (verdicts.length === 0) return <p class="muted">No receipt discrepancy has been found.</p>
  return (
    <>
      <div class="table-scroll">
        <table data-testid="failed-contexts">
          <caption class="visually-hidden">Contexts whose receipt audit found a discrepancy, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Context</th>
              <th scope="col">Registry</th>
              <th scope="col">Run</th>
              <th scope="col">Failed checks</th>
              <th scope="col">Audited</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {verdicts.map((v) => (
              <tr key={v.eventId} data-failed-ctx={v.ctxId}>
                <td>
                  <ContextLink ctxId={v.ctxId} max={40} />
                </td>
                <td>{v.registryAuthority}</td>
                <td>
                  {v.runId === null ? <span class="muted">—</span> : <a href={href('runs', v.runId)}>{v.runId}</a>}
                </td>
                <td class="mono">{v.discrepancies.join(', ')}</td>
                <td>
                  <Time value={v.auditedAt} />
                </td>
                <td>{v.acknowledgedAt === null ? 'open' : `acknowledged by ${v.acknowledgedBy ?? 'unknown'}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more && (
        <p class="muted">
          The newest {TRUST_FAILED} are listed; GET /receipt-audit/verdicts?verdict=discrepancy pages through all.
        </p>
      )}
    </>
  )
}

function RunsEvidence({ runs }: { runs: RunAuditTotals[] }) {
  if (runs.length === 0) return <p class="muted">No run has an audited publication yet.</p>
  return (
    <>
      <p class="muted">
        The {TRUST_RUNS} most recently audited runs. A publication is fully evidenced when its receipt verified, the
        control plane matched it to a log leaf lying under the witnessed head of that log, and that head met the witness
        quorum (when quorum consumption is on). The leaf's position is checked on the server, not its inclusion proof:
        “verify this run” on a run's page checks inclusion and cosignatures in the browser.
      </p>
      <div class="table-scroll">
        <table data-testid="trust-runs">
          <caption class="visually-hidden">Receipt and log evidence per run</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col" class="num">
                Fully evidenced
              </th>
              <th scope="col" class="num">
                Publications
              </th>
              <th scope="col" class="num">
                Audited
              </th>
              <th scope="col" class="num">
                Receipt verified
              </th>
              <th scope="col" class="num">
                In the log
              </th>
              <th scope="col" class="num">
                Under witnessed head
              </th>
              <th scope="col" class="num">
                Discrepancies
              </th>
              <th scope="col" class="num">
                Partly checked
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr
                key={run.runId}
                data-trust-run={run.runId}
                data-published={run.published}
                data-evidenced={receiptVerified(run)}
                data-discrepancies={run.discrepancies}
                data-fully-evidenced={run.fullyEvidenced}
                data-in-log={run.inLog}
                data-under-witnessed-head={run.underWitnessedHead}
              >
                <td>
                  <a href={href('runs', run.runId)}>{run.runId}</a>
                </td>
                <td class="num">
                  {run.fullyEvidenced} of {run.published} ({percent(run.fullyEvidenced, run.published)})
                </td>
                <td class="num">{run.published}</td>
                <td class="num">{run.audited}</td>
                <td class="num">
                  {receiptVerified(run)} ({percent(receiptVerified(run), run.published)})
                </td>
                <td class="num">{run.inLog}</td>
                <td class="num">{run.underWitnessedHead}</td>
                <td class={run.discrepancies > 0 ? 'num error' : 'num'}>{run.discrepancies}</td>
                <td class="num">{run.structural + run.noReceipt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  )
}
