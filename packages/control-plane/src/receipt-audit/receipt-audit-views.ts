/**
 * The API forms of receipt-audit verdicts: a run's `trust` summary (the member of GET /runs/:id, in the shape
 * receipt-auditing consoles read) and the verdict list with acknowledgement.
 */
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp } from '../core/http/wire-time.js'
import type { AuditRecord, ReceiptAuditStore, ReceiptVerdict } from './receipt-audit-store.js'

/** Most flagged events listed in a run's summary (the verdict list pages through the rest). */
export const MAX_FLAGGED_PER_RUN = 100

export interface RunTrust {
  audited: number
  verified: number
  verifiedHistorical: number
  structural: number
  noReceipt: number
  errors: number
  flagged: Array<{ eventId: string; ctxId: string; status: 'discrepancy'; discrepancies: string[] }>
}

export interface VerdictView {
  eventId: string
  runId: string | null
  ctxId: string
  registryEventId: string | null
  registryAuthority: string
  verdict: ReceiptVerdict
  discrepancies: string[]
  detail: string | null
  attempts: number
  auditedAt: string
  acknowledgedAt: string | null
  acknowledgedBy: string | null
}

/** The run's trust summary; `audited` counts every publication with a verdict, `error`s included. */
export async function getRunTrust(store: ReceiptAuditStore, tenantId: string, runId: string): Promise<RunTrust> {
  const { counts, flagged } = await store.runTrust(tenantId, runId, MAX_FLAGGED_PER_RUN)
  return {
    audited: counts.audited,
    verified: counts.verified,
    verifiedHistorical: counts.verifiedHistorical,
    structural: counts.structural,
    noReceipt: counts.noReceipt,
    errors: counts.errors,
    flagged: flagged.map((record) => ({
      eventId: String(record.eventSeq),
      ctxId: record.ctxId,
      status: 'discrepancy' as const,
      discrepancies: record.discrepancies,
    })),
  }
}

export function toVerdictView(record: AuditRecord): VerdictView {
  return {
    eventId: String(record.eventSeq),
    runId: record.runId,
    ctxId: record.ctxId,
    registryEventId: record.eventId,
    registryAuthority: record.registryAuthority,
    verdict: record.verdict,
    discrepancies: record.discrepancies,
    detail: record.detail,
    attempts: record.attempts,
    auditedAt: formatTimestamp(record.auditedAt),
    acknowledgedAt: record.acknowledgedAt === null ? null : formatTimestamp(record.acknowledgedAt),
    acknowledgedBy: record.acknowledgedBy,
  }
}

/** @throws ControlPlaneError NOT_FOUND when the tenant has no discrepancy for that event. */
export async function acknowledgeDiscrepancy(
  store: ReceiptAuditStore,
  tenantId: string,
  eventSeq: number,
  actor: string,
  now: number,
): Promise<VerdictView> {
  const record = await store.acknowledge(tenantId, eventSeq, actor, now)
  if (record === undefined) throw new ControlPlaneError('NOT_FOUND', 'no receipt discrepancy for this event')
  return toVerdictView(record)
}
