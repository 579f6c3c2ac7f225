/**
 * One row per registry for the Trust page, merged from the few reads the page makes: the enrollments, the
 * receipt-audit totals (GET /receipt-audit/summary), each enrolled registry's witness state and the witness
 * alerts. Pure, so what the page shows is exactly what these answers say.
 */
import type { Enrollment, WitnessAlert } from '../api/types.js'
import type { AuditCounts, RegistryAuditTotals, WitnessCosigner, WitnessHeadState } from '../api/trust-types.js'

/** How the registry's log head is witnessed, as the control plane's witness last concluded. */
export type WitnessStanding =
  | { kind: 'off' } // the control plane does not serve the witness
  | { kind: 'not_witnessed' } // enrolled without a log profile or base URL
  | { kind: 'no_head' } // witnessed, but no checkpoint has verified yet
  | {
      kind: 'head'
      treeSize: number
      rootHash: string
      lastSuccessAt: string | null
      /** Consistency with the previous retained head; null on the log's first observation. */
      consistent: boolean | null
      /** Cosignatures counted towards the quorum; null when quorum consumption is off. */
      cosignatures: number | null
      quorum: boolean | null
      /** Distinct trusted witnesses the quorum needs; null when quorum consumption is off (or not recorded). */
      quorumMin: number | null
      /** Who cosigned the head, each with its standing; null when the control plane has not recorded it. */
      cosigners: WitnessCosigner[] | null
      failures: number
    }

export interface RegistryTrustRow {
  authority: string
  enrolled: boolean
  counts: AuditCounts & { openDiscrepancies: number }
  witness: WitnessStanding
  /** Unacknowledged active witness alerts of this registry. */
  openWitnessAlerts: WitnessAlert[]
}

const NO_COUNTS = {
  published: 0,
  audited: 0,
  verified: 0,
  verifiedHistorical: 0,
  structural: 0,
  noReceipt: 0,
  discrepancies: 0,
  errors: 0,
  inLog: 0,
  underWitnessedHead: 0,
  fullyEvidenced: 0,
  openDiscrepancies: 0,
}

export function registryTrustRows(input: {
  enrollments: readonly Enrollment[]
  totals: readonly RegistryAuditTotals[]
  /** null: the witness is not served (404); a missing authority or a null state: not witnessed. */
  witness: ReadonlyMap<string, WitnessHeadState | null> | null
  alerts: readonly WitnessAlert[]
}): RegistryTrustRow[] {
  const authorities = new Set([
    ...input.enrollments.map((e) => e.authority),
    ...input.totals.map((t) => t.registryAuthority),
  ])
  const enrolled = new Set(input.enrollments.map((e) => e.authority))
  return [...authorities].sort().map((authority) => {
    const totals = input.totals.find((t) => t.registryAuthority === authority)
    const { registryAuthority: _name, ...counts } = totals ?? { registryAuthority: authority, ...NO_COUNTS }
    return {
      authority,
      enrolled: enrolled.has(authority),
      counts,
      witness: standing(input.witness, authority),
      openWitnessAlerts: input.alerts.filter((a) => a.authority === authority && a.acknowledgedAt === null),
    }
  })
}

function standing(witness: ReadonlyMap<string, WitnessHeadState | null> | null, authority: string): WitnessStanding {
  if (witness === null) return { kind: 'off' }
  const state = witness.get(authority)
  if (state === undefined || state === null) return { kind: 'not_witnessed' }
  if (state.treeSize === null || state.rootHash === null) return { kind: 'no_head' }
  // The newest checkpoint is the retained head's observation (checkpoints are newest first).
  const latest = state.checkpoints[0]
  return {
    kind: 'head',
    treeSize: state.treeSize,
    rootHash: state.rootHash,
    lastSuccessAt: state.lastSuccessAt,
    consistent: latest?.consistencyOk ?? null,
    cosignatures: latest?.witnessedCount ?? null,
    quorum: latest?.meetsQuorum ?? null,
    quorumMin: latest?.quorumMin ?? null,
    cosigners: latest?.cosigners ?? null,
    failures: state.consecutiveFailures,
  }
}

/** Share of `part` in `whole` as a whole percent ("—" for an empty whole), floored so 99.6 % never reads 100 %. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return '—'
  return `${Math.floor((part / whole) * 100)} %`
}

/** Receipts that verified (under a current or a retired key). */
export function receiptVerified(counts: AuditCounts): number {
  return counts.verified + counts.verifiedHistorical
}
